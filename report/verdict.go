package report

import (
	"fmt"
	"strings"
	"time"

	"github.com/mcpwatch/mcpwatch/checks"
)

// The verdict and the counts beside it, in the words every format uses: the counts of failed,
// warned and advice leave out what the baseline accepts (counted as accepted), so that a
// summary line never shows a failure beside a PASS, and the verdict sentence says the same
// thing in the text report, the markdown header and the GitHub log group.

// shownCounts are the counts a summary line shows.
type shownCounts struct {
	// failed, warned and advice count the checks of those statuses that the baseline does
	// not accept; accepted counts those it does.
	failed, warned, advice, accepted int
}

func (r *Report) shownCounts() shownCounts {
	var n shownCounts
	for _, c := range r.Checks {
		switch {
		case c.Baselined:
			n.accepted++
		case c.Status == string(checks.StatusFail):
			n.failed++
		case c.advice():
			n.advice++
		case c.Status == string(checks.StatusWarn):
			n.warned++
		}
	}
	return n
}

// countParts are the counts of a summary line in order: passed, failed, warned, then advice,
// accepted and untested when there are some, then skipped and info.
func (r *Report) countParts() []string {
	s, n := r.Summary, r.shownCounts()
	parts := []string{
		fmt.Sprintf("%d passed", s.Pass),
		fmt.Sprintf("%d failed", n.failed),
		fmt.Sprintf("%d warned", n.warned),
	}
	if n.advice > 0 {
		parts = append(parts, fmt.Sprintf("%d advice", n.advice))
	}
	if n.accepted > 0 {
		parts = append(parts, fmt.Sprintf("%d accepted by the baseline", n.accepted))
	}
	if s.Untested > 0 {
		parts = append(parts, fmt.Sprintf("%d untested", s.Untested))
	}
	return append(parts, fmt.Sprintf("%d skipped", s.Skip), fmt.Sprintf("%d info", s.Info))
}

// verdictWord is PASS or FAIL, or INTERRUPTED for a probe the user stopped before anything
// failed: not a verdict on the server.
func (r *Report) verdictWord() string {
	switch {
	case r.interruptedOnly():
		return "INTERRUPTED"
	case r.Failed():
		return "FAIL"
	}
	return "PASS"
}

// interruptedOnly reports whether the probe was interrupted and no check failed.
func (r *Report) interruptedOnly() bool { return r.InterruptedMs > 0 && r.Summary.Failing == 0 }

// verdictSentence says why the verdict is what it is, after its PASS or FAIL.
func (r *Report) verdictSentence() string {
	s := r.Summary
	threshold := "at severity " + r.FailOn + " or above"
	if !r.Failed() {
		var sentence string
		if accepted := r.acceptedIDs(); len(accepted) > 0 {
			sentence = "every check that fails " + threshold + " is accepted by the baseline: " +
				strings.Join(clipList(accepted, 5), ", ")
		} else {
			sentence = "no check fails " + threshold
		}
		if below := belowThreshold(r); below != "" {
			sentence += " (" + below + " below the threshold)"
		}
		return sentence + untestedNote(s)
	}
	var why []string
	if s.Failing > 0 {
		why = append(why, plural(s.Failing, "check fails ", "checks fail ")+threshold)
	}
	switch {
	case r.interruptedOnly():
		// The user stopped it: not the server's failure, and not a verdict on it.
		why = append(why, "after "+r.interruptedAfter()+", before the probe finished")
	case r.InterruptedMs > 0:
		why = append(why, "interrupted after "+r.interruptedAfter()+", before the probe finished")
	case r.Error != "":
		why = append(why, "the probe did not finish")
	}
	if revs := r.FailingRevisions(); len(revs) > 0 {
		why = append(why, plural(len(revs), "accepted revision fails", "accepted revisions fail")+": "+strings.Join(revs, ", "))
	}
	sentence := strings.Join(why, "; ")
	if s.Baselined > 0 {
		sentence += fmt.Sprintf(" (%d more accepted by the baseline)", s.Baselined)
	}
	return sentence + untestedNote(s)
}

// interruptedAfter is how long the probe ran before it was interrupted.
func (r *Report) interruptedAfter() string {
	return time.Duration(r.InterruptedMs * float64(time.Millisecond)).Round(time.Millisecond).String()
}

// acceptedIDs are the checks the baseline accepts.
func (r *Report) acceptedIDs() []string {
	var ids []string
	for _, c := range r.Checks {
		if c.Baselined {
			ids = append(ids, c.ID)
		}
	}
	return ids
}

// clipList keeps the first n items of a list and counts the rest.
func clipList(items []string, n int) []string {
	if len(items) <= n {
		return items
	}
	return append(items[:n:n], fmt.Sprintf("%d more", len(items)-n))
}

// acceptedText is what a check the baseline accepts says about it, with the reason its entry
// gives.
func acceptedText(c Check) string {
	if c.BaselineReason == "" {
		return "accepted by the baseline (no reason given)"
	}
	return "accepted by the baseline (" + clip(c.BaselineReason, 200) + ")"
}
