package report

import (
	"fmt"
	"strings"
)

// maxDifferencesShown bounds the differing checks the text report names per revision.
const maxDifferencesShown = 6

// revisions writes the per-revision table of a --protocol-version all run: one line per
// revision (accepted or not, verdict, counts), then the checks whose status differs from the
// main revision's.
func (t *textWriter) revisions() {
	if len(t.r.Revisions) == 0 {
		return
	}
	t.section("Revisions")
	for _, rev := range t.r.Revisions {
		accepted := t.p.green("accepted    ")
		if !rev.Accepted {
			answer := "not accepted"
			accepted = t.p.dim(answer)
		}
		verdict := t.p.green("pass")
		if rev.Verdict == VerdictFail {
			verdict = t.p.red("fail")
		}
		s := rev.Summary
		counts := fmt.Sprintf("%3d pass %2d fail %2d warn %2d untested %2d skip", s.Pass, s.Fail, s.Warn, s.Untested, s.Skip)
		note := ""
		switch {
		case rev.Main:
			note = t.p.dim("  the checks below")
		case !rev.Accepted && rev.Negotiated != nil:
			note = t.p.dim("  answered " + clip(*rev.Negotiated, 40))
		case !rev.Accepted && rev.Error != "":
			note = t.p.dim("  " + clip(rev.Error, 60))
		}
		t.line("  %s  %s  %s  %s  %s%s", pad(rev.Revision, 10), accepted, verdict, counts,
			t.p.dim(humanMillis(rev.DurationMs)), note)
		if rev.Main || len(rev.Differences) == 0 || !rev.Accepted {
			continue
		}
		var parts []string
		for i, c := range rev.Differences {
			if i == maxDifferencesShown {
				parts = append(parts, fmt.Sprintf("and %d more", len(rev.Differences)-i))
				break
			}
			parts = append(parts, c.ID+" "+t.status(c.Status))
		}
		t.line("  %s  %s %s", pad("", 10), t.p.dim("differs:"), strings.Join(parts, ", "))
	}
}

// status colours a check status for the table.
func (t *textWriter) status(s string) string {
	switch s {
	case "fail":
		return t.p.red(s)
	case "warn", "untested":
		return t.p.yellow(s)
	}
	return s
}

// revisionProblem is a check that fails or warns in other accepted revisions but not in the
// main one: its evidence from the newest such revision, and every revision it breaks in.
type revisionProblem struct {
	check     Check
	frames    []Frame
	revisions []string
}

// revisionProblems lists, in report order, the problems of the accepted revisions other
// than the main one that the main revision's checks do not show.
func (r *Report) revisionProblems() []revisionProblem {
	var out []revisionProblem
	at := map[string]int{}
	for _, rev := range r.Revisions {
		if rev.Main || !rev.Accepted {
			continue
		}
		for _, c := range rev.Differences {
			if !problem(c.Status) {
				continue
			}
			i, seen := at[c.ID]
			if !seen {
				at[c.ID] = len(out)
				out = append(out, revisionProblem{check: c, frames: rev.CitedFrames})
				i = len(out) - 1
			} else if rev.Revision > out[i].revisions[len(out[i].revisions)-1] {
				// Revisions are listed oldest first: the newest one's evidence is shown.
				out[i].check, out[i].frames = c, rev.CitedFrames
			}
			out[i].revisions = append(out[i].revisions, rev.Revision)
		}
	}
	return out
}

// revisionProblems writes the evidence of what breaks only under other accepted revisions:
// the verdict counts it, so the reader must see it as a failure of the main revision is seen.
func (t *textWriter) revisionProblems() {
	ps := t.r.revisionProblems()
	if len(ps) == 0 {
		return
	}
	t.section(fmt.Sprintf("Only in other accepted revisions (%s)", plural(len(ps), "check", "checks")))
	for _, p := range ps {
		// The frames cited are the other revision's: render with its transcript.
		sub := textWriter{w: t.w, p: t.p, r: &Report{CitedFrames: p.frames}, width: t.width}
		t.line("")
		t.line("%s", t.p.cyan("under "+strings.Join(p.revisions, ", ")))
		sub.problem(p.check)
	}
}
