package web

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/mcpwatch/mcpwatch/store"
	"github.com/mcpwatch/mcpwatch/web/chart"
)

// stateView is a server or run state as the pages show it: a word, a colour class and what
// the word means, for the reader who has never seen the page before.
type stateView struct {
	Key     string // the store's state or outcome
	Label   string
	Meaning string
}

// states lists the server states, worst first: the status page sorts by this order.
func states() []stateView {
	return []stateView{
		{store.StateDown, "Down", "the server does not answer (initialize fails) in any region"},
		{store.StateDegraded, "Degraded", "the server answers but fails a required check, or is down in some regions"},
		{store.StateUnknown, "No data", "the server has not been probed yet"},
		{store.StateUp, "Up", "the server answers and passes every required check"},
		{store.StatePaused, "Paused", "the server is not being probed"},
	}
}

func stateOf(key string) stateView {
	for _, s := range states() {
		if s.Key == key {
			return s
		}
	}
	return stateView{Key: store.StateUnknown, Label: key, Meaning: ""}
}

func knownState(key string) bool { return stateRank(key) < len(states()) }

func stateRank(key string) int {
	for i, s := range states() {
		if s.Key == key {
			return i
		}
	}
	return len(states())
}

// outcomeView is the state of one run (up, degraded, down).
func outcomeView(outcome string) stateView {
	switch outcome {
	case store.OutcomeUp:
		return stateView{outcome, "Up", "the server answered and passed every required check"}
	case store.OutcomeDegraded:
		return stateView{outcome, "Degraded", "the server answered but failed a required check"}
	case store.OutcomeDown:
		return stateView{outcome, "Down", "the server did not answer: initialize failed"}
	}
	return stateView{store.StateUnknown, outcome, ""}
}

// Day classes of the uptime bars: every run reached the server; under 1% or more of them
// failed (the colour of the failed share drawn on top of a day's bar); no run on a day of
// the server's history; a day before its first run, of which there is no data.
const (
	dayAllUp  = "day-ok"
	dayMinor  = "day-minor" // at least 99% reached the server
	dayMajor  = "day-major"
	dayNoData = "day-none"
	dayBefore = "day-before"
)

// dayBar turns one day of uptime into a bar with its numbers. A day with failures is drawn
// green with its failed share on top, so that one failed run among hundreds is a sliver,
// not a day painted red.
func dayBar(d store.DayUptime) chart.Bar {
	date := d.Day.UTC().Format("Mon Jan 2")
	switch {
	case d.Runs == 0:
		return chart.Bar{Fill: 1, Class: dayNoData, Label: date + ": no runs"}
	case d.OK >= d.Runs:
		// Concatenated rather than formatted: a status page labels 4,500 bars.
		return chart.Bar{Fill: 1, Class: dayAllUp, Label: date + ": 100% up, all " + strconv.FormatInt(d.Runs, 10) + " runs answered"}
	}
	class := dayMajor
	if d.OK*100 >= d.Runs*99 {
		class = dayMinor
	}
	return chart.Bar{Fill: 1, Class: dayAllUp, Share: float64(d.Runs-d.OK) / float64(d.Runs), ShareClass: class,
		Label: date + ": " + formatUptime(d.OK, d.Runs) + " up, " + strconv.FormatInt(d.Runs-d.OK, 10) + " of " + strconv.FormatInt(d.Runs, 10) + " runs failed"}
}

// firstDayWithRuns is the index of the first day that has runs, len(days) when none has.
func firstDayWithRuns(days []store.DayUptime) int {
	for i, d := range days {
		if d.Runs > 0 {
			return i
		}
	}
	return len(days)
}

// uptimeStrip draws days of uptime, oldest first. The days before the first run are no
// data, not days without runs: they are drawn as a faint baseline.
func uptimeStrip(days []store.DayUptime, width, height float64, label string) chart.Bars {
	bars := make([]chart.Bar, len(days))
	first := firstDayWithRuns(days)
	for i, d := range days {
		if i < first {
			bars[i] = chart.Bar{Fill: 0, Class: dayBefore, Label: d.Day.UTC().Format("Mon Jan 2") + ": no data (before the first run)"}
			continue
		}
		bars[i] = dayBar(d)
	}
	return chart.Bars{Width: width, Height: height, Gap: 1.5, Bars: bars, Class: "uptime", Label: label, Stretch: true}
}

// stripStart says where a strip's data begins, for the axis under it: "" when its first day
// has runs, "no data yet" when no day has, else "no data before Mon Jan 2".
func stripStart(days []store.DayUptime) string {
	switch first := firstDayWithRuns(days); {
	case first == 0:
		return ""
	case first == len(days):
		return "no data yet"
	default:
		return "no data before " + days[first].Day.UTC().Format("Mon Jan 2")
	}
}

// recentShown is how many of a server's last runs the bar of recent probes draws.
const recentShown = 30

// Tick classes of the bar of recent probes: a run's outcome, or a slot before the first run.
const tickNone = "tick-none"

// recentTicks draws a server's last runs (newest first, as the store gives them) as ticks,
// oldest on the left and the newest at the right edge; slots before the first run are no
// data.
func recentTicks(runs []store.RunRecord, name string) chart.Bars {
	bars := make([]chart.Bar, recentShown)
	pad := recentShown - min(len(runs), recentShown)
	for i := range pad {
		bars[i] = chart.Bar{Fill: 0, Class: tickNone, Label: "no run yet"}
	}
	for i, r := range runs[:recentShown-pad] {
		label := fmt.Sprintf("%s in %s: %s", formatTime(r.Start), r.Region, strings.ToLower(outcomeView(r.Outcome).Label))
		switch {
		case r.Outcome == store.OutcomeDown:
			label += " after " + formatLatency(r.Duration)
		case r.AnswerTime > 0:
			label += ", answered in " + formatLatency(r.AnswerTime) + " (whole probe " + formatLatency(r.Duration) + ")"
		default:
			label += ", whole probe " + formatLatency(r.Duration)
		}
		if codes := runCodes(r); codes != "" {
			label += " (" + codes + ")"
		}
		bars[recentShown-1-i] = chart.Bar{Fill: 1, Class: "tick-" + outcomeView(r.Outcome).Key, Label: label}
	}
	return chart.Bars{Width: 180, Height: 34, Gap: 1.5, Bars: bars, Class: "recent",
		Label: fmt.Sprintf("The last %d runs of %s, oldest first", recentShown, name), Stretch: true}
}

// daysUptime sums days.
func daysUptime(days []store.DayUptime) (ok, runs int64) {
	for _, d := range days {
		ok += d.OK
		runs += d.Runs
	}
	return ok, runs
}

// hourlyP50 is the median latency of each hour of [from, from+n hours) over all regions, NaN
// where no run reached the server.
func hourlyP50(hours []store.ServerHour, from time.Time, n int) []float64 {
	sums := make([]store.Stats, n)
	for _, h := range hours {
		i := int(h.Hour.Sub(from) / time.Hour)
		if i >= 0 && i < n {
			sums[i].Merge(h.Stats)
		}
	}
	out := make([]float64, n)
	for i, st := range sums {
		out[i] = math.NaN()
		if st.Up+st.Degraded > 0 {
			out[i] = millis(st.LatencyQuantile(0.5))
		}
	}
	return out
}
