package web

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/store"
)

func TestDayBarShowsItsFailedShareOnAGreenDay(t *testing.T) {
	t.Parallel()
	day := time.Date(2025, 11, 20, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		runs, ok   int64
		class      string
		share      float64
		shareClass string
		label      string
	}{
		{0, 0, dayNoData, 0, "", "Thu Nov 20: no runs"},
		{1440, 1440, dayAllUp, 0, "", "Thu Nov 20: 100% up, all 1440 runs answered"},
		{1440, 1439, dayAllUp, 1.0 / 1440, dayMinor, "Thu Nov 20: 99.93% up, 1 of 1440 runs failed"},
		{1440, 1430, dayAllUp, 10.0 / 1440, dayMinor, "Thu Nov 20: 99.30% up, 10 of 1440 runs failed"},
		{100, 99, dayAllUp, 0.01, dayMinor, "Thu Nov 20: 99.00% up, 1 of 100 runs failed"},
		{100, 98, dayAllUp, 0.02, dayMajor, "Thu Nov 20: 98.00% up, 2 of 100 runs failed"},
		{12, 0, dayAllUp, 1, dayMajor, "Thu Nov 20: 0.00% up, 12 of 12 runs failed"},
	} {
		b := dayBar(store.DayUptime{Day: day, Runs: tc.runs, OK: tc.ok})
		if b.Class != tc.class || b.Label != tc.label || math.Abs(b.Share-tc.share) > 1e-12 || b.ShareClass != tc.shareClass {
			t.Errorf("%d of %d: %q share %v %q, %q; want %q share %v %q, %q", tc.ok, tc.runs,
				b.Class, b.Share, b.ShareClass, b.Label, tc.class, tc.share, tc.shareClass, tc.label)
		}
	}
}

func TestUptimeStripSaysNoDataBeforeTheFirstRun(t *testing.T) {
	t.Parallel()
	day := func(i int) time.Time { return time.Date(2025, 11, 20+i, 0, 0, 0, 0, time.UTC) }
	for _, tc := range []struct {
		name    string
		runs    []int64
		classes []string
		start   string
	}{
		{"no run at all", []int64{0, 0, 0}, []string{dayBefore, dayBefore, dayBefore}, "no data yet"},
		{"first run on the second day", []int64{0, 5, 0}, []string{dayBefore, dayAllUp, dayNoData}, "no data before Fri Nov 21"},
		{"runs from the first day", []int64{5, 0, 5}, []string{dayAllUp, dayNoData, dayAllUp}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			days := make([]store.DayUptime, len(tc.runs))
			for i, n := range tc.runs {
				days[i] = store.DayUptime{Day: day(i), Runs: n, OK: n}
			}
			strip := uptimeStrip(days, 90, 20, "uptime")
			for i, b := range strip.Bars {
				if b.Class != tc.classes[i] {
					t.Errorf("day %d: class %q, want %q", i, b.Class, tc.classes[i])
				}
				if b.Class == dayBefore && !strings.Contains(b.Label, "no data") {
					t.Errorf("day %d: label %q does not say there is no data", i, b.Label)
				}
			}
			if got := stripStart(days); got != tc.start {
				t.Errorf("stripStart = %q, want %q", got, tc.start)
			}
		})
	}
}

func TestHeadlineNamesTheWorstState(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		total  int
		counts map[string]int
		text   string
		class  string
	}{
		{0, nil, "No servers yet", store.StateUnknown},
		{5, map[string]int{store.StateUp: 3, store.StateDown: 1, store.StateDegraded: 1}, "1 of 5 servers down", store.StateDown},
		{6, map[string]int{store.StateUp: 3, store.StateDegraded: 2, store.StatePaused: 1}, "2 of 5 servers degraded", store.StateDegraded},
		{3, map[string]int{store.StateUp: 3}, "All 3 servers are up", store.StateUp},
		{1, map[string]int{store.StateUp: 1}, "The server is up", store.StateUp},
		{2, map[string]int{store.StateUnknown: 2}, "Waiting for the first runs", store.StateUnknown},
		{3, map[string]int{store.StateUp: 2, store.StateUnknown: 1}, "2 of 3 servers up, 1 not probed yet", store.StateUp},
		{2, map[string]int{store.StatePaused: 2}, "Every server is paused", store.StatePaused},
	} {
		text, class := headline(tc.total, tc.counts)
		if text != tc.text || class != tc.class {
			t.Errorf("headline(%d, %v) = %q %q, want %q %q", tc.total, tc.counts, text, class, tc.text, tc.class)
		}
	}
}

func TestHourlyP50MergesRegionsAndLeavesGaps(t *testing.T) {
	t.Parallel()
	from := time.Date(2025, 11, 20, 10, 0, 0, 0, time.UTC)
	hist := func(bucket int, n int64) store.Histogram {
		h := make(store.Histogram, store.HistogramBuckets)
		h[bucket] = n
		return h
	}
	// Bucket 5 holds (75ms, 100ms]; two regions of one run each in the first hour.
	hours := []store.ServerHour{
		{HourStats: store.HourStats{Hour: from, Region: "eu", Stats: store.Stats{Runs: 1, Up: 1, LatencyMin: 80 * time.Millisecond, LatencyMax: 80 * time.Millisecond, Latency: hist(5, 1)}}},
		{HourStats: store.HourStats{Hour: from, Region: "us", Stats: store.Stats{Runs: 1, Up: 1, LatencyMin: 90 * time.Millisecond, LatencyMax: 90 * time.Millisecond, Latency: hist(5, 1)}}},
		{HourStats: store.HourStats{Hour: from.Add(2 * time.Hour), Region: "eu", Stats: store.Stats{Runs: 1, Down: 1}}},
	}
	got := hourlyP50(hours, from, 3)
	if got[0] != 85 {
		t.Errorf("first hour p50 %v, want 85 (halfway between the merged 80 and 90 ms)", got[0])
	}
	if !math.IsNaN(got[1]) || !math.IsNaN(got[2]) {
		t.Errorf("hours without a run that reached the server should be gaps: %v", got)
	}
}

func TestStatesAreOrderedWorstFirstAndExplained(t *testing.T) {
	t.Parallel()
	var keys []string
	for _, s := range states() {
		keys = append(keys, s.Key)
		if s.Meaning == "" || s.Label == "" {
			t.Errorf("state %q lacks a label or meaning", s.Key)
		}
	}
	if strings.Join(keys, ",") != "down,degraded,unknown,up,paused" {
		t.Errorf("order %v", keys)
	}
	if knownState("sideways") || !knownState(store.StateDown) {
		t.Error("knownState is wrong")
	}
}
