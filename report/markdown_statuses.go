package report

import "fmt"

// advice is the table of checks that only advise, under its own heading: no MUST or SHOULD
// is behind them, and they fail the run only at --fail-on advice.
func (m *markdownWriter) advice() {
	var cs []Check
	for _, c := range m.r.Checks {
		if c.advice() {
			cs = append(cs, c)
		}
	}
	if len(cs) == 0 {
		return
	}
	open := "#### Advice\n\nNo MUST or SHOULD is behind these; they fail the run only with `--fail-on advice`.\n\n" +
		"| | Check | What happened | Rule |\n|---|---|---|---|\n"
	m.section(open, "\n", len(cs), "", "piece of advice", "pieces of advice", func(i int) string {
		c := cs[i]
		icon := "💡"
		switch {
		case c.Baselined:
			icon = "☑️"
		case m.r.failsVerdict(c):
			icon = "❌"
		}
		return fmt.Sprintf("| %s | `%s` | %s | %s |\n", icon, c.ID, mdCode(c.Message, markdownCellWidth), ruleLink(c))
	})
}

// untested lists the checks that applied but that the probe could not judge, with why, apart
// from the skipped ones: none of them is a pass.
func (m *markdownWriter) untested() {
	cs := untestedChecks(m.r)
	if len(cs) == 0 {
		return
	}
	open := fmt.Sprintf("#### Untested (%d)\n\nThese checks apply to the server, but the probe could not judge them; none counts as a pass.\n\n"+
		"| Check | Why it was not judged |\n|---|---|\n", len(cs))
	m.section(open, "\n", len(cs), "", "untested check", "untested checks", func(i int) string {
		c := cs[i]
		return fmt.Sprintf("| `%s` | %s |\n", c.ID, mdCode(c.Message, markdownCellWidth))
	})
}
