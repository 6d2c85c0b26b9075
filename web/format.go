package web

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/mcpwatch/mcpwatch/store"
)

// Figures are formatted here and nowhere else, so that the tests that recompute them from raw
// runs can hold the page to one rule each.

// formatUptime renders a fraction as a percentage with two decimals, rounded down: a day with
// one failed run in 100,000 shows 99.99%, never 100%. No runs is "–".
func formatUptime(ok, runs int64) string {
	if runs <= 0 {
		return "–"
	}
	if ok >= runs {
		return "100%"
	}
	// Integer arithmetic: floor(ok/runs * 10000) without float rounding surprises.
	basis := ok * 10000 / runs
	return fmt.Sprintf("%d.%02d%%", basis/100, basis%100)
}

// formatLatency renders a latency the way people read them: three significant figures,
// milliseconds below a second. Zero means no value and renders as "–".
func formatLatency(d time.Duration) string {
	if d <= 0 {
		return "–"
	}
	ms := float64(d) / float64(time.Millisecond)
	switch {
	case ms < 10:
		return strconv.FormatFloat(ms, 'f', 2, 64) + " ms"
	case ms < 100:
		return strconv.FormatFloat(ms, 'f', 1, 64) + " ms"
	case ms < 1000:
		return strconv.FormatFloat(ms, 'f', 0, 64) + " ms"
	case ms < 60_000:
		return strconv.FormatFloat(ms/1000, 'f', 2, 64) + " s"
	}
	return fmt.Sprintf("%dm%02ds", int(ms/60_000), int(ms/1000)%60)
}

// formatAxisMillis labels a latency axis.
func formatAxisMillis(ms float64) string {
	switch {
	case ms == 0:
		return "0"
	case ms >= 1000:
		return strconv.FormatFloat(ms/1000, 'f', -1, 64) + " s"
	}
	return strconv.FormatFloat(ms, 'f', -1, 64) + " ms"
}

// formatTime is an absolute instant, always in UTC so that every reader sees the same text.
func formatTime(t time.Time) string {
	if t.IsZero() {
		return "–"
	}
	return t.UTC().Format("2006-01-02 15:04:05 UTC")
}

// formatAgo says how long before now t was, in one unit.
func formatAgo(t, now time.Time) string {
	if t.IsZero() {
		return "never"
	}
	d := now.Sub(t)
	switch {
	case d < 0:
		return "just now"
	case d < time.Minute:
		return fmt.Sprintf("%d s ago", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%d min ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%d h ago", int(d.Hours()))
	}
	return fmt.Sprintf("%d days ago", int(d.Hours()/24))
}

// formatIn says how long after now t comes, in one unit: formatAgo's counterpart.
func formatIn(t, now time.Time) string {
	d := t.Sub(now)
	switch {
	case d < time.Minute:
		return "in under a minute"
	case d < time.Hour:
		return fmt.Sprintf("in %d min", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("in %d h", int(d.Hours()))
	}
	return fmt.Sprintf("in %d days", int(d.Hours()/24))
}

// formatDuration is a run's duration.
func formatDuration(d time.Duration) string {
	if d <= 0 {
		return "0 ms"
	}
	return formatLatency(d)
}

// runCodes lists what a run got back, exactly: the JSON-RPC error code, the HTTP status and
// the exit status of a stdio server, each named.
func runCodes(r store.RunRecord) string {
	var parts []string
	if r.ErrorCode != nil {
		parts = append(parts, "JSON-RPC "+strconv.FormatInt(*r.ErrorCode, 10))
	}
	if r.HTTPStatus != nil {
		parts = append(parts, "HTTP "+strconv.Itoa(*r.HTTPStatus))
	}
	if r.ExitStatus != nil {
		parts = append(parts, "exit "+strconv.Itoa(*r.ExitStatus))
	}
	return strings.Join(parts, " · ")
}

// codeParts splits runCodes' text into its codes, for tables that wrap between them.
func codeParts(codes string) []string {
	if codes == "" {
		return nil
	}
	return strings.Split(codes, " · ")
}

// stepCodes is runCodes for one step.
func stepCodes(st store.StepRecord) string {
	var parts []string
	if st.ErrorCode != nil {
		parts = append(parts, "JSON-RPC "+strconv.FormatInt(*st.ErrorCode, 10))
	}
	if st.HTTPStatus != nil {
		parts = append(parts, "HTTP "+strconv.Itoa(*st.HTTPStatus))
	}
	return strings.Join(parts, " · ")
}

// plural picks the word for a count: plural(3, "server", "servers") is "3 servers".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// millis converts a duration to float milliseconds for charts.
func millis(d time.Duration) float64 {
	return math.Round(float64(d)/float64(time.Microsecond)) / 1000
}

func itoa64(n int64) string { return strconv.FormatInt(n, 10) }
