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
}

// History events.
const (
	histFired     = "fired"     // an alert opened (a drift: the surface changed)
	histResolved  = "resolved"  // an alert closed
	histReminded  = "reminded"  // an open alert was announced again
	histFlapping  = "flapping"  // an alert resolved too often and is held open
	histAnnounced = "announced" // an alert opened while muted is announced now
	histChanged   = "changed"   // the tool surface changed again while drift is held open
)

// flapPolicy is flap damping: threshold resolutions within window hold an alert open.
type flapPolicy struct {
	threshold int // 0: off
	window    time.Duration
}

// maxCycles bounds the resolution times an alert keeps; only threshold of them matter.
const maxCycles = 64

// step applies a condition to an alert and returns the history events it causes. Condition
// kinds (all but drift) open on a bad condition and close on a good one; the resolution is
// held back while the alert flaps.
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
		st.Cycles = pruneCycles(st.Cycles, at, flap.window)
		if wasBad {
			st.Cycles = append(st.Cycles, at)
		}
		if flap.threshold > 0 && len(st.Cycles) >= flap.threshold {
			if st.Held {
				return nil // still flapping
			}
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
// often (threshold within the window) that the alert is held open, to resolve once they
// have slowed down.
func stepChange(st *store.AlertState, c condition, at time.Time, flap flapPolicy, newIncident func() string) []string {
	switch c.state {
	case condBad:
		st.CondBad = true
		st.Cycles = append(pruneCycles(st.Cycles, at, flap.window), at)
		if st.Held {
			return []string{histChanged}
		}
		st.Incident = newIncident()
		st.Since, st.FiredAt, st.NotifiedAt = at, at, time.Time{}
		if flap.threshold > 0 && len(st.Cycles) >= flap.threshold {
			st.Status, st.Held = store.AlertFiring, true
			return []string{histFlapping}
		}
		return []string{histFired}
	case condGood:
		st.CondBad = false
		if !st.Held {
			return nil
		}
		st.Cycles = pruneCycles(st.Cycles, at, flap.window)
		if flap.threshold > 0 && len(st.Cycles) >= flap.threshold {
			return nil
		}
		st.Status, st.Held, st.ResolvedAt = store.AlertOK, false, at
		return []string{histResolved}
	}
	return nil
}

// pruneCycles drops the times at or before at-window (and beyond the newest maxCycles-1).
func pruneCycles(cycles []time.Time, at time.Time, window time.Duration) []time.Time {
	cut := at.Add(-window)
	out := slices.DeleteFunc(slices.Clone(cycles), func(t time.Time) bool { return !t.After(cut) })
	if len(out) >= maxCycles {
		out = out[len(out)-maxCycles+1:]
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
