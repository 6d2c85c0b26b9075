package alert

import (
	"slices"
	"time"

	"github.com/mcpwatch/mcpwatch/store"
)

// condState is what one run says about one alert's condition.
type condState uint8

const (
	condUnknown condState = iota // the run cannot tell (the server was down, a check skipped)
	condGood
	condBad
)

// condition is the verdict of one kind's evaluator on one key for one run. Thresholds that
// span runs (down's consecutive failures, quorum) are the evaluator's: the machine fires on
// the first bad condition it is given.
type condition struct {
	kind  Kind
	key   string
	state condState
	ev    Evidence
	// regionSet: ev.Regions is the set of regions where the condition holds (not merely the
	// region of the run), so an open alert whose set changes sends an update.
	regionSet bool
}

// History events.
const (
	histFired     = "fired"     // an alert opened (a drift: the surface changed)
	histResolved  = "resolved"  // an alert closed
	histReminded  = "reminded"  // an open alert was announced again
	histFlapping  = "flapping"  // an alert resolved too often and is held open
	histAnnounced = "announced" // an alert opened while muted is announced now
	// histChanged: an open alert changed without opening or closing: the tool surface changed
	// again while drift is held open (sent nowhere), or the regions of an announced alert
	// changed (sent as an update).
	histChanged = "changed"
)

// flapPolicy is flap damping: threshold resolutions within window hold an alert open, until
// its condition has stayed good for quiet.
type flapPolicy struct {
	threshold int // 0: off
	window    time.Duration
	quiet     time.Duration
}

// keep is how far back an alert's resolution times matter: the window counts them, and the
// last one starts the quiet period.
func (f flapPolicy) keep() time.Duration { return max(f.window, f.quiet) }

// count is the number of resolutions (for drift: changes) within the window.
func (f flapPolicy) count(cycles []time.Time, at time.Time) int {
	cut := at.Add(-f.window)
	n := 0
	for _, t := range cycles {
		if t.After(cut) {
			n++
		}
	}
	return n
}

// flapping reports whether the resolutions within the window reach the threshold.
func (f flapPolicy) flapping(cycles []time.Time, at time.Time) bool {
	return f.threshold > 0 && f.count(cycles, at) >= f.threshold
}

// quietSince is when the quiet period of a held alert began: its last resolution (for drift,
// its last change); zero when none is kept, as in a state stored before quiet periods were.
func quietSince(cycles []time.Time) time.Time {
	if len(cycles) == 0 {
		return time.Time{}
	}
	return cycles[len(cycles)-1]
}

// quietEnough reports whether a held alert has been quiet long enough to resolve.
func (f flapPolicy) quietEnough(cycles []time.Time, at time.Time) bool {
	since := quietSince(cycles)
	return since.IsZero() || at.Sub(since) >= f.quiet
}

// maxCycles bounds the resolution times an alert keeps; only threshold of them matter.
const maxCycles = 64

// step applies a condition to an alert and returns the history events it causes. Condition
// kinds (all but drift) open on a bad condition and close on a good one; while the alert
// flaps, its resolution is held back until the condition has stayed good for the quiet period.
func step(st *store.AlertState, c condition, at time.Time, flap flapPolicy, newIncident func() string) []string {
	if c.kind == KindDrift {
		return stepChange(st, c, at, flap, newIncident)
	}
	switch c.state {
	case condBad:
		st.CondBad = true
		if st.Status == store.AlertFiring {
			return nil
		}
		st.Status, st.Held = store.AlertFiring, false
		st.Incident = newIncident()
		st.Since = at
		if !c.ev.Since.IsZero() && c.ev.Since.Before(at) {
			st.Since = c.ev.Since
		}
		st.FiredAt, st.ResolvedAt, st.NotifiedAt = at, time.Time{}, time.Time{}
		return []string{histFired}
	case condGood:
		wasBad := st.CondBad
		st.CondBad = false
		if st.Status != store.AlertFiring {
			return nil
		}
		st.Cycles = pruneCycles(st.Cycles, at, flap.keep())
		if wasBad {
			st.Cycles = append(st.Cycles, at)
		}
		if st.Held {
			if !flap.quietEnough(st.Cycles, at) {
				return nil // still flapping, or not quiet for long enough
			}
		} else if flap.flapping(st.Cycles, at) {
			st.Held = true
			return []string{histFlapping}
		}
		st.Status, st.Held, st.ResolvedAt = store.AlertOK, false, at
		return []string{histResolved}
	}
	return nil
}

// stepChange is the machine of drift, whose bad condition is an event (the surface changed in
// this run) rather than a state: each change is announced on its own, unless changes come so
// often (threshold within the window) that the alert is held open, to resolve once the
// surface has stayed unchanged for the quiet period.
func stepChange(st *store.AlertState, c condition, at time.Time, flap flapPolicy, newIncident func() string) []string {
	switch c.state {
	case condBad:
		st.CondBad = true
		st.Cycles = append(pruneCycles(st.Cycles, at, flap.keep()), at)
		if st.Held {
			return []string{histChanged}
		}
		st.Incident = newIncident()
		st.Since, st.FiredAt, st.NotifiedAt = at, at, time.Time{}
		if flap.flapping(st.Cycles, at) {
			st.Status, st.Held = store.AlertFiring, true
			return []string{histFlapping}
		}
		return []string{histFired}
	case condGood:
		st.CondBad = false
		if !st.Held {
			return nil
		}
		st.Cycles = pruneCycles(st.Cycles, at, flap.keep())
		if !flap.quietEnough(st.Cycles, at) {
			return nil
		}
		st.Status, st.Held, st.ResolvedAt = store.AlertOK, false, at
		return []string{histResolved}
	}
	return nil
}

// pruneCycles drops the times at or before at-keep (and beyond the newest maxCycles-1).
func pruneCycles(cycles []time.Time, at time.Time, keep time.Duration) []time.Time {
	cut := at.Add(-keep)
	out := slices.DeleteFunc(slices.Clone(cycles), func(t time.Time) bool { return !t.After(cut) })
	if len(out) >= maxCycles {
		out = out[len(out)-maxCycles+1:]
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
