package alert

import (
	"fmt"
	"strings"

	"github.com/mcpwatch/mcpwatch/internal/textclip"
	"github.com/mcpwatch/mcpwatch/internal/toolsurface"
)

// Bounds of a drift message.
const (
	maxDriftLines    = 30
	maxDriftNames    = 5
	driftDescPreview = 120
)

// drift compares the run's tool surface with the last one seen: bad when it changed, good when
// it did not. The first surface seen, and any run that could not list the tools, say nothing.
func (e *evaluator) drift(obs *Observation, mem *driftMemory) []condition {
	if obs.Tools == nil {
		return nil
	}
	before := mem.Tools
	mem.Tools = obs.Tools
	if before == nil {
		return nil
	}
	d := toolsurface.DiffSurfaces(before, obs.Tools)
	c := condition{kind: KindDrift, ev: Evidence{Regions: []string{obs.Region}}}
	if d.Empty() {
		c.state = condGood
		c.ev.Summary = fmt.Sprintf("the tool surface is unchanged (%d tools)", len(obs.Tools.Tools))
		return []condition{c}
	}
	c.state = condBad
	var parts, lines, poisoned []string
	names := func(n int, what string, list func(int) string) {
		if n == 0 {
			return
		}
		var shown []string
		for i := range min(n, maxDriftNames) {
			shown = append(shown, list(i))
		}
		if n > maxDriftNames {
			shown = append(shown, fmt.Sprintf("and %d more", n-maxDriftNames))
		}
		parts = append(parts, fmt.Sprintf("%d %s (%s)", n, what, strings.Join(shown, ", ")))
	}
	names(len(d.Added), "added", func(i int) string { return d.Added[i].Name })
	names(len(d.Removed), "removed", func(i int) string { return d.Removed[i].Name })
	names(len(d.Changed), "changed", func(i int) string { return d.Changed[i].Name })
	c.ev.Summary = fmt.Sprintf("the tool surface changed: %s; now %d tools", strings.Join(parts, ", "), len(obs.Tools.Tools))

	// A change that makes a description match a tool-poisoning pattern is named first.
	var poisonLines, poisonNames []string
	notePoison := func(name, before, after string) {
		if line, ok := poisonNews(name, before, after); ok {
			poisonLines = append(poisonLines, line)
			poisonNames = append(poisonNames, name)
		}
	}
	for _, t := range d.Added {
		notePoison(t.Name, "", t.Description)
		line := "added " + t.Name
		if t.Description != "" {
			line += ": " + textclip.Runes(t.Description, driftDescPreview)
		}
		lines = append(lines, line)
	}
	for _, t := range d.Removed {
		lines = append(lines, "removed "+t.Name)
	}
	for _, ch := range d.Changed {
		if ch.Description {
			notePoison(ch.Name, ch.Before.Description, ch.After.Description)
			poisoned = append(poisoned, ch.Name)
			diff := shortDiff(ch.Before.Description, ch.After.Description)
			if ch.Before.Description == ch.After.Description {
				diff = fmt.Sprintf("the change lies past the first %d bytes", toolsurface.MaxDescriptionBytes)
			}
			lines = append(lines, fmt.Sprintf("changed %s: description %s", ch.Name, diff))
		}
		if ch.Schema {
			lines = append(lines, fmt.Sprintf("changed %s: input or output schema", ch.Name))
		}
	}
	lines = append(poisonLines, lines...)
	if len(lines) > maxDriftLines {
		lines = append(lines[:maxDriftLines], fmt.Sprintf("and %d more changes", len(lines)-maxDriftLines))
	}
	c.ev.Lines = lines
	if len(poisoned) > 0 {
		if len(poisoned) > maxDriftNames {
			poisoned = append(poisoned[:maxDriftNames], fmt.Sprintf("and %d more", len(poisoned)-maxDriftNames))
		}
		c.ev.Warning = fmt.Sprintf("The description of an existing tool changed (%s). Models read tool descriptions as instructions: review the change, it may be tool poisoning.",
			strings.Join(poisoned, ", "))
	}
	if len(poisonNames) > 0 {
		if len(poisonNames) > maxDriftNames {
			poisonNames = append(poisonNames[:maxDriftNames], fmt.Sprintf("and %d more", len(poisonNames)-maxDriftNames))
		}
		c.ev.Warning = fmt.Sprintf("The description of %s now matches a tool poisoning pattern (see the first lines). Models read tool descriptions as instructions: review the change before the server is used again.",
			strings.Join(poisonNames, ", "))
	}
	return []condition{c}
}
