package checks

import (
	"slices"

	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/protocol"
)

// A check that finds no evidence is either not applicable (skip) or not judged (untested).
// The helpers below tell the two apart where the same missing step can mean either.

// stoppedHere reports whether a step missing from the run was this probe's to send: true when
// the probe stopped before it (the server died, a timeout, an interruption), so the check is
// untested; false when the run sends it in another of its probes (RulesElsewhere), which
// judges the check, so here it does not apply.
func stoppedHere(r *Capture) bool { return r.RulesElsewhere == "" }

// ruleUnsentHere is stoppedHere for a rule probe on its own connection: untested when the
// connection's initialize failed or the probe stopped; not applicable when the server speaks
// the stateless revision (the session-era rule probes are not sent to it) or the rule probes
// run elsewhere. It follows the branches of ruleMissing, which gives the reason.
func ruleUnsentHere(r *Capture, conn int) bool {
	if init, ok := stepOn(r, conn, probe.StepRuleInitialize); ok && init.Outcome != probe.OutcomeOK {
		return true
	}
	if protocol.Stateless(r.Revision()) {
		return false
	}
	return stoppedHere(r)
}

// sentAny reports whether the probe sent a request of one of the methods: when it did and
// none got a result, a check of those results is untested, not inapplicable.
func sentAny(r *Capture, methods []string) bool {
	return slices.ContainsFunc(r.Steps, func(st probe.Step) bool { return slices.Contains(methods, st.Method) })
}
