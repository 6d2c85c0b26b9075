package report

import (
	"fmt"
	"io"

	"github.com/mcpwatch/mcpwatch/checks"
	"go.yaml.in/yaml/v3"
)

// baselineHeader opens a written baseline: it is meant to be committed and edited by people.
const baselineHeader = `Failures accepted for now: prober check --baseline FILE fails only on failures not
listed here. Each entry names a check id (docs/checks.md); with tool it accepts only that tool's
failures. Add a reason so that the next reader knows why; remove an entry once it is fixed
(the report lists the entries that no longer fail). Written by prober check --write-baseline.`

// NewBaseline lists the failures that fail the verdict of a report (baselined or not), as the
// entries of a baseline. A check whose failures all name a tool gets one entry per tool, so
// that a new failing tool is a new failure; any other check gets one entry. Reasons are kept
// from previous, and so are its entries for checks the report did not run (deselected,
// skipped or untested), so that a partial run does not forget them.
func NewBaseline(r *Report, previous *Baseline) *Baseline {
	failOn := checks.Severity(r.FailOn)
	nb := &Baseline{}
	ran := map[string]bool{}
	for _, c := range r.Checks {
		// An untested check did not run to a verdict: its entries are kept like a skipped one's.
		if c.Status != string(checks.StatusSkip) && c.Status != string(checks.StatusUntested) {
			ran[c.ID] = true
		}
		if !failsAt(c, failOn) {
			continue
		}
		tools, byTool := failingTools(c, failOn)
		if !byTool {
			nb.Entries = append(nb.Entries, BaselineEntry{Check: c.ID, Reason: previous.reasonFor(c.ID, "")})
			continue
		}
		for _, t := range tools {
			nb.Entries = append(nb.Entries, BaselineEntry{Check: c.ID, Tool: t, Reason: previous.reasonFor(c.ID, t)})
		}
	}
	if previous != nil {
		for _, e := range previous.Entries {
			if !ran[e.Check] {
				e.Line = 0
				nb.Entries = append(nb.Entries, e)
			}
		}
	}
	return nb
}

// failingTools lists the tools the failing evidence of c is about, in order, and whether
// every failure names one (and all were kept).
func failingTools(c Check, failOn checks.Severity) ([]string, bool) {
	if c.MoreEvidence > 0 {
		return nil, false
	}
	var tools []string
	seen := map[string]bool{}
	for _, ev := range c.Evidence {
		if !evidenceFails(ev.Severity, failOn) {
			continue
		}
		if ev.Tool == "" {
			return nil, false
		}
		if !seen[ev.Tool] {
			seen[ev.Tool] = true
			tools = append(tools, ev.Tool)
		}
	}
	return tools, len(tools) > 0
}

// reasonFor is the reason of the entry for check and tool, or of the check's entry without a
// tool; "" for a nil baseline.
func (b *Baseline) reasonFor(check, tool string) string {
	if b == nil {
		return ""
	}
	fallback := ""
	for _, e := range b.Entries {
		if e.Check != check {
			continue
		}
		if e.Tool == tool {
			return e.Reason
		}
		if e.Tool == "" {
			fallback = e.Reason
		}
	}
	return fallback
}

// entryMessage is what the report said of an entry's failure: for a tool entry, the first
// evidence about that tool (the check's message sums up every tool), else the check's message.
func entryMessage(c Check, tool string) string {
	if tool != "" {
		for _, ev := range c.Evidence {
			if ev.Tool == tool && ev.Severity != "" {
				return ev.Message
			}
		}
	}
	return c.Message
}

// WriteBaseline writes b as YAML, each entry under a comment with what the report said of
// its failure (r may be nil).
func WriteBaseline(w io.Writer, b *Baseline, r *Report) error {
	byID := map[string]Check{}
	if r != nil {
		for _, c := range r.Checks {
			byID[c.ID] = c
		}
	}
	list := &yaml.Node{Kind: yaml.SequenceNode}
	for _, e := range b.Entries {
		entry := &yaml.Node{Kind: yaml.MappingNode}
		add := func(k, v string) {
			entry.Content = append(entry.Content,
				&yaml.Node{Kind: yaml.ScalarNode, Value: k},
				&yaml.Node{Kind: yaml.ScalarNode, Value: v})
		}
		add("check", e.Check)
		if e.Tool != "" {
			add("tool", e.Tool)
		}
		if e.Reason != "" {
			add("reason", e.Reason)
		}
		if m := entryMessage(byID[e.Check], e.Tool); m != "" {
			// A comment is one line: a message quoting the server must not break out of it.
			entry.HeadComment = "now: " + clip(m, 160)
		}
		list.Content = append(list.Content, entry)
	}
	doc := &yaml.Node{Kind: yaml.DocumentNode, HeadComment: baselineHeader, Content: []*yaml.Node{list}}
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("baseline: writing: %w", err)
	}
	if err := enc.Close(); err != nil {
		return fmt.Errorf("baseline: writing: %w", err)
	}
	return nil
}
