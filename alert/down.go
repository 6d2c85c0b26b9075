package alert

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"
)

// regionMemory is what the engine keeps of one region's runs of a server.
type regionMemory struct {
	// LastAt is the start of the last run observed; earlier runs are ignored as repeats.
	LastAt time.Time `json:"lastAt"`
	// Downs and Goods count the current streak of down and of other runs.
	Downs int `json:"downs,omitempty"`
	Goods int `json:"goods,omitempty"`
	// StreakStart is the first down run of the current down streak.
	StreakStart time.Time `json:"streakStart,omitzero"`
	// Failing: FailureThreshold down runs in a row, not yet SuccessThreshold good ones.
	Failing      bool      `json:"failing,omitempty"`
	FailingSince time.Time `json:"failingSince,omitzero"`
	// Last is the last down run.
	Last *runFacts `json:"last,omitempty"`
}

// runFacts is how a down run failed.
type runFacts struct {
	At         time.Time `json:"at"`
	ErrorCode  *int64    `json:"errorCode,omitempty"`
	HTTPStatus *int      `json:"httpStatus,omitempty"`
	ExitStatus *int      `json:"exitStatus,omitempty"`
	Error      string    `json:"error,omitempty"`
	// RunID is the run, for a link to its page; Response the start of its failing answer.
	RunID    string `json:"runId,omitempty"`
	Response string `json:"response,omitempty"`
}

// sameFailure reports whether two runs failed the same way (the same codes and error).
func (f *runFacts) sameFailure(o *runFacts) bool {
	return f != nil && o != nil && f.Error == o.Error && equalPtr(f.ErrorCode, o.ErrorCode) &&
		equalPtr(f.HTTPStatus, o.HTTPStatus) && equalPtr(f.ExitStatus, o.ExitStatus)
}

func equalPtr[T comparable](a, b *T) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

// regionForget: a region silent this long is dropped from memory altogether.
const regionForget = 30 * 24 * time.Hour

// maxErrorText bounds the error text an alert carries.
const maxErrorText = 500

// observeRegion updates the run streaks of the observation's region.
func (e *evaluator) observeRegion(obs *Observation, regions map[string]*regionMemory) {
	r := regions[obs.Region]
	if r == nil {
		r = &regionMemory{}
		regions[obs.Region] = r
	}
	r.LastAt = obs.At
	cfg := e.cfg.Down
	if obs.Outcome == OutcomeDown {
		if r.Downs == 0 {
			r.StreakStart = obs.At
		}
		r.Downs++
		r.Goods = 0
		r.Last = &runFacts{At: obs.At, ErrorCode: obs.ErrorCode, HTTPStatus: obs.HTTPStatus, ExitStatus: obs.ExitStatus,
			Error: clip(obs.Error, maxErrorText), RunID: obs.RunID, Response: clip(obs.Response, maxErrorText)}
		if !r.Failing && r.Downs >= cfg.FailureThreshold {
			r.Failing, r.FailingSince = true, r.StreakStart
		}
	} else {
		r.Goods++
		r.Downs, r.StreakStart = 0, time.Time{}
		if r.Failing && r.Goods >= cfg.SuccessThreshold {
			r.Failing, r.FailingSince = false, time.Time{}
		}
	}
	for name, m := range regions {
		if obs.At.Sub(m.LastAt) > regionForget {
			delete(regions, name)
		}
	}
}

// down judges whether enough regions agree that the server is down.
func (e *evaluator) down(obs *Observation, regions map[string]*regionMemory) []condition {
	cfg := e.cfg.Down
	var failing, fresh []string
	for name, m := range regions {
		if obs.At.Sub(m.LastAt) > cfg.RegionExpiry {
			continue
		}
		fresh = append(fresh, name)
		if m.Failing {
			failing = append(failing, name)
		}
	}
	slices.Sort(failing)
	c := condition{kind: KindDown}
	if len(failing) < cfg.Quorum {
		c.state = condGood
		c.ev = Evidence{
			Summary: fmt.Sprintf("initialize succeeds again (run from %s: %s)", obs.Region, obs.Outcome),
			Regions: []string{obs.Region},
		}
		if len(failing) > 0 {
			c.ev.Lines = append(c.ev.Lines, fmt.Sprintf("still failing in %s, fewer than the quorum of %d", strings.Join(failing, ", "), cfg.Quorum))
		}
		return []condition{c}
	}
	c.state, c.regionSet = condBad, true
	// The evidence of the most recent failure, the observed region's when it is failing.
	var latest *runFacts
	var since time.Time
	for _, name := range failing {
		m := regions[name]
		if since.IsZero() || m.FailingSince.Before(since) {
			since = m.FailingSince
		}
		if m.Last != nil && (latest == nil || m.Last.At.After(latest.At)) {
			latest = m.Last
		}
	}
	c.ev = Evidence{Regions: failing, Since: since}
	// The summary names the failure by its codes; its words (and the start of the answer)
	// are said once, beside it, and a region's line repeats neither unless it failed
	// otherwise.
	failure := "no successful initialize"
	if latest != nil {
		c.ev.ErrorCode, c.ev.HTTPStatus, c.ev.ExitStatus, c.ev.Error = latest.ErrorCode, latest.HTTPStatus, latest.ExitStatus, latest.Error
		c.ev.RunID, c.ev.Response = latest.RunID, latest.Response
		failure = cmp.Or(c.ev.Codes(), failure)
	}
	c.ev.Summary = fmt.Sprintf("down in %d of %d region(s) (%s): %s", len(failing), len(fresh), strings.Join(failing, ", "), failure)
	for _, name := range failing {
		m := regions[name]
		line := fmt.Sprintf("%s: down since %s, %d run(s) in a row", name, timeText(m.FailingSince), m.Downs)
		if m.Downs == 0 {
			line = fmt.Sprintf("%s: down since %s, recovering (%d good run(s), %d needed)", name, timeText(m.FailingSince), m.Goods, cfg.SuccessThreshold)
		}
		if m.Last != nil && !m.Last.sameFailure(latest) {
			ev := Evidence{ErrorCode: m.Last.ErrorCode, HTTPStatus: m.Last.HTTPStatus, ExitStatus: m.Last.ExitStatus, Error: m.Last.Error}
			line += "; last: " + failureText(&ev)
		}
		c.ev.Lines = append(c.ev.Lines, line)
	}
	return []condition{c}
}

// failureText says how a run failed: its exact codes and its error.
func failureText(ev *Evidence) string {
	codes := ev.Codes()
	switch {
	case codes != "" && ev.Error != "":
		return codes + " (" + ev.Error + ")"
	case codes != "":
		return codes
	case ev.Error != "":
		return ev.Error
	}
	return "no successful initialize"
}
