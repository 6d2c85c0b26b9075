package report

import (
	"fmt"
	"strings"

	"github.com/mcpwatch/mcpwatch/checks"
)

// advice lists the checks that only advise (no normative keyword behind them), apart from the
// failures and warnings: they never fail the run unless --fail-on advice.
func (t *textWriter) advice() {
	var cs []Check
	for _, c := range t.r.Checks {
		if c.advice() {
			cs = append(cs, c)
		}
	}
	if len(cs) == 0 {
		return
	}
	t.section(fmt.Sprintf("Advice (%d: no MUST or SHOULD behind it)", len(cs)))
	t.line("")
	for _, c := range cs {
		t.problem(c)
	}
}

// untested lists the checks that applied but that the probe could not judge, each with why:
// apart from the skips, which did not apply, and never among the passes.
func (t *textWriter) untested() {
	cs := untestedChecks(t.r)
	if len(cs) == 0 {
		return
	}
	t.section(fmt.Sprintf("Untested (%d: they apply, but the probe could not judge them)", len(cs)))
	if t.r.Unreached && !t.verbose {
		t.line("  %s", t.p.yellow(unreachedLine(t.r, len(cs))))
		return
	}
	for _, c := range cs {
		t.idLine(c.ID, t.p.yellow, clip(c.Message, lineWidth+40), nil)
	}
}

// belowThreshold names the warnings and advice that did not fail the verdict, "" for none.
func belowThreshold(r *Report) string {
	var warnings, advice int
	for _, c := range r.Checks {
		if c.Status != string(checks.StatusWarn) || r.failsVerdict(c) || c.Baselined {
			continue
		}
		if c.advice() {
			advice++
		} else {
			warnings++
		}
	}
	var parts []string
	if warnings > 0 {
		parts = append(parts, plural(warnings, "warning", "warnings"))
	}
	if advice > 0 {
		parts = append(parts, plural(advice, "advice", "advice"))
	}
	return strings.Join(parts, " and ")
}

// unreachedLine stands for the list of untested (or skipped) checks of a probe that never
// heard from the server: one reason holds for all of them, and a list of fifty repeating it
// would bury the probe error above.
func unreachedLine(r *Report, n int) string {
	why := "nothing came back from the server"
	if r.Error != "" {
		why += " (" + clip(r.Error, lineWidth) + ")"
	}
	return fmt.Sprintf("all %d: %s; --verbose lists them", n, why)
}
