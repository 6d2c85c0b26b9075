package report

import (
	"fmt"
	"strconv"
)

// baselineNotes warns about baseline entries that no longer match a failure: left in place,
// they would accept that failure again should it come back unnoticed.
func (t *textWriter) baselineNotes() {
	u := t.r.Baseline
	if u == nil || len(u.Stale) == 0 {
		return
	}
	t.line("")
	for _, e := range u.Stale {
		t.line("%s %s", t.p.yellow("warning:"), staleEntryText(u.File, e))
	}
}

// staleEntryText says which entry is stale and what to do about it.
func staleEntryText(file string, e BaselineEntry) string {
	where := clip(file, 120)
	if e.Line > 0 {
		where += ":" + strconv.Itoa(e.Line)
	}
	what := e.Check
	if e.Tool != "" {
		what += " (tool " + clip(e.Tool, 80) + ")"
	}
	return fmt.Sprintf("baseline entry %s at %s no longer fails: remove it", what, where)
}
