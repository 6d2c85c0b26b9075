package alert

import "fmt"

// maxCheckMemory bounds the checks remembered per server; the registry has a few dozen.
const maxCheckMemory = 500

// Bounds of a check's id and message in an alert.
const (
	maxCheckID      = 128
	maxCheckMessage = 1000
)

// conformance judges each watched check: bad when it fails now and did not fail the last time
// it was judged (in any region), or fails still while its alert is open; good when it passes
// (or only warns) again. A skipped or untested check was not judged: it says nothing. A check that was never seen passing does not alert: a conformance
// alert is about a regression, and `prober check` is the tool for a server's standing faults.
//
// A down run says nothing here: its checks judge the failure to initialize, which is the down
// alert's to report, and the run before the outage stays the previous run.
func (e *evaluator) conformance(obs *Observation, last map[string]string, firing func(Kind, string) bool) []condition {
	if obs.Outcome == OutcomeDown {
		return nil
	}
	var out []condition
	seen := map[string]bool{}
	for _, c := range obs.Checks {
		c.ID, c.Rule, c.Spec = clip(c.ID, maxCheckID), clip(c.Rule, maxCheckID), clip(c.Spec, maxCheckMessage)
		if c.ID == "" || seen[c.ID] {
			continue
		}
		seen[c.ID] = true
		prev, known := last[c.ID]
		if c.Status == CheckPass || c.Status == CheckWarn || c.Status == CheckFail {
			if known || len(last) < maxCheckMemory {
				last[c.ID] = c.Status
			}
		}
		if !e.cfg.Conformance.watches(c.ID) {
			continue
		}
		switch c.Status {
		case CheckFail:
			if prev != CheckPass && prev != CheckWarn && !firing(KindConformance, c.ID) {
				continue
			}
			msg := clip(c.Message, maxCheckMessage)
			out = append(out, condition{kind: KindConformance, key: c.ID, state: condBad, ev: Evidence{
				Summary: fmt.Sprintf("check %s fails: %s", c.ID, msg),
				Regions: []string{obs.Region},
				Rule:    c.Rule,
				Spec:    c.Spec,
				Lines:   []string{fmt.Sprintf("%s (run from %s at %s, outcome %s)", msg, obs.Region, timeText(obs.At), obs.Outcome)},
			}})
		case CheckPass, CheckWarn:
			summary := fmt.Sprintf("check %s passes again", c.ID)
			if c.Status == CheckWarn {
				summary = fmt.Sprintf("check %s no longer fails (it warns: %s)", c.ID, clip(c.Message, maxCheckMessage))
			}
			out = append(out, condition{kind: KindConformance, key: c.ID, state: condGood, ev: Evidence{
				Summary: summary,
				Regions: []string{obs.Region},
				Rule:    c.Rule,
				Spec:    c.Spec,
			}})
		}
	}
	return out
}
