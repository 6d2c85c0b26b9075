package report

import (
	"slices"
	"strings"

	"github.com/mcpwatch/mcpwatch/checks"
)

// accepts reports whether the baseline accepts every failure by which c fails the verdict at
// failOn, and why (the reasons of the entries that do). A nil baseline accepts nothing.
func (b *Baseline) accepts(c Check, failOn checks.Severity) (bool, string) {
	if b == nil {
		return false, ""
	}
	var reasons []string
	addReason := func(e BaselineEntry) {
		if e.Reason != "" && !slices.Contains(reasons, e.Reason) {
			reasons = append(reasons, e.Reason)
		}
	}
	for _, e := range b.Entries {
		if e.Check == c.ID && e.Tool == "" {
			addReason(e)
			return true, strings.Join(reasons, "; ")
		}
	}
	// Tool entries accept the failures about their tools only; evidence the check did not
	// keep could be about any tool, so it cannot be accepted that way.
	if c.MoreEvidence > 0 {
		return false, ""
	}
	failing := 0
	for _, ev := range c.Evidence {
		if !evidenceFails(ev.Severity, failOn) {
			continue
		}
		failing++
		e, ok := b.toolEntry(c.ID, ev.Tool)
		if ev.Tool == "" || !ok {
			return false, ""
		}
		addReason(e)
	}
	return failing > 0, strings.Join(reasons, "; ")
}

func (b *Baseline) toolEntry(check, tool string) (BaselineEntry, bool) {
	for _, e := range b.Entries {
		if e.Check == check && e.Tool == tool && tool != "" {
			return e, true
		}
	}
	return BaselineEntry{}, false
}

// evidenceFails reports whether evidence of a severity fails the verdict at failOn.
func evidenceFails(severity string, failOn checks.Severity) bool {
	return severityMeets(checks.Severity(severity), failOn)
}

// use lists the stale entries against the checks of a report. An entry is stale when its
// check ran (any status but skip and untested) and shows no failure or warning the entry would
// accept, whatever the threshold: a warning below it is still the problem the entry was
// written for. An untested check says nothing either way, so its entries stay.
func (b *Baseline) use(cs []Check) *BaselineUse {
	if b == nil {
		return nil
	}
	u := &BaselineUse{File: b.File, Entries: len(b.Entries), Stale: []BaselineEntry{}}
	byID := map[string]Check{}
	for _, c := range cs {
		byID[c.ID] = c
	}
	for _, e := range b.Entries {
		c, ran := byID[e.Check]
		if !ran || c.Status == string(checks.StatusSkip) || c.Status == string(checks.StatusUntested) {
			continue
		}
		if !entryStillMatches(e, c) {
			u.Stale = append(u.Stale, e)
		}
	}
	return u
}

func entryStillMatches(e BaselineEntry, c Check) bool {
	if c.Status != string(checks.StatusFail) && c.Status != string(checks.StatusWarn) {
		return false
	}
	if e.Tool == "" || c.MoreEvidence > 0 {
		return true
	}
	for _, ev := range c.Evidence {
		if ev.Tool == e.Tool && ev.Severity != "" {
			return true
		}
	}
	return false
}
