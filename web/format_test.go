package web

import (
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/store"
)

func TestFormatUptimeRoundsDown(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		ok, runs int64
		want     string
	}{
		{0, 0, "–"},
		{10, 10, "100%"},
		{99999, 100000, "99.99%"},
		{9995, 10000, "99.95%"},
		{1, 3, "33.33%"},
		{2, 3, "66.66%"},
		{0, 5, "0.00%"},
		{1439, 1440, "99.93%"},
	} {
		if got := formatUptime(tc.ok, tc.runs); got != tc.want {
			t.Errorf("formatUptime(%d, %d) = %q, want %q", tc.ok, tc.runs, got, tc.want)
		}
	}
}

func TestFormatLatencyKeepsThreeFigures(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{0, "–"},
		{4213 * time.Microsecond, "4.21 ms"},
		{42130 * time.Microsecond, "42.1 ms"},
		{421300 * time.Microsecond, "421 ms"},
		{1234 * time.Millisecond, "1.23 s"},
		{75 * time.Second, "1m15s"},
	} {
		if got := formatLatency(tc.d); got != tc.want {
			t.Errorf("formatLatency(%v) = %q, want %q", tc.d, got, tc.want)
		}
	}
}

func TestFormatAgoUsesOneUnit(t *testing.T) {
	t.Parallel()
	now := time.Date(2025, 11, 22, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		t    time.Time
		want string
	}{
		{time.Time{}, "never"},
		{now.Add(time.Second), "just now"},
		{now.Add(-12 * time.Second), "12 s ago"},
		{now.Add(-5 * time.Minute), "5 min ago"},
		{now.Add(-30 * time.Hour), "30 h ago"},
		{now.Add(-72 * time.Hour), "3 days ago"},
	} {
		if got := formatAgo(tc.t, now); got != tc.want {
			t.Errorf("formatAgo(%v) = %q, want %q", tc.t, got, tc.want)
		}
	}
}

func TestRunCodesNameEachCode(t *testing.T) {
	t.Parallel()
	code, status, exit := int64(-32603), 503, 1
	for _, tc := range []struct {
		run  store.RunRecord
		want string
	}{
		{store.RunRecord{}, ""},
		{store.RunRecord{ErrorCode: &code}, "JSON-RPC -32603"},
		{store.RunRecord{ErrorCode: &code, HTTPStatus: &status}, "JSON-RPC -32603 · HTTP 503"},
		{store.RunRecord{ExitStatus: &exit}, "exit 1"},
	} {
		if got := runCodes(tc.run); got != tc.want {
			t.Errorf("runCodes = %q, want %q", got, tc.want)
		}
	}
}
