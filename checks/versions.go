package checks

import (
	"fmt"
	"strings"

	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/protocol"
)

// versionSupportCheck is the catalogue entry of lifecycle.version-support: a fact, never a
// failure. On one probe it says what that probe learnt; VersionSupport says it for a probe of
// every revision (--protocol-version all).
func versionSupportCheck() Check {
	return Check{ID: "lifecycle.version-support", Area: "lifecycle", Rule: "C3, C'",
		Spec:     "https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning",
		Title:    "which protocol revisions the server accepts",
		Evaluate: checkVersionSupport}
}

func checkVersionSupport(r *Capture, f *Finding) {
	if r.Stateless() {
		if r.Discover == nil {
			f.Untested("%s", discoverFailedReason(r))
			return
		}
		raw, listed := supportedVersions(r)
		f.Data = map[string]any{"offered": r.Requested, "accepted": r.Accepted(), "supportedVersions": listed}
		f.Info("offered %s: %s; server/discover lists %s", r.Requested, acceptedWord(r.Accepted()), clipOrNone(raw))
		return
	}
	st, ok := initializeStep(r)
	if !ok {
		f.Untested("%s", initializeFailedReason(r))
		return
	}
	data := map[string]any{"offered": r.Requested, "accepted": r.Accepted()}
	msg := fmt.Sprintf("offered %s: %s", r.Requested, acceptedWord(r.Accepted()))
	switch {
	case st.Outcome != probe.OutcomeOK:
		msg += " (" + describeAnswer(r, st) + ")"
	case r.Negotiated != r.Requested && protocol.KnownRevision(r.Negotiated):
		msg += " (answered " + r.Negotiated + ")"
		data["negotiated"] = r.Negotiated
	case r.Negotiated != r.Requested:
		msg += fmt.Sprintf(" (answered %s)", Clip([]byte(r.Negotiated)))
		data["negotiated"] = r.Negotiated
	}
	if d, ok := r.FirstStep(probe.StepDiscover); ok {
		msg += fmt.Sprintf("; not stateless (server/discover got %s)", describeAnswer(r, d))
		data["stateless"] = false
	}
	f.Data = data
	f.Info("%s", msg)
}

func acceptedWord(ok bool) string {
	if ok {
		return "accepted"
	}
	return "not accepted"
}

// listOrNone joins revisions the probe offered (its own strings, never a server's).
func listOrNone(vs []string) string {
	if len(vs) == 0 {
		return "no revision"
	}
	return strings.Join(vs, ", ")
}

// RevisionOutcome is what one probe of a --protocol-version all run found about its revision.
type RevisionOutcome struct {
	Revision string
	Result   *probe.Result
}

// VersionSupport is lifecycle.version-support over probes of several revisions, one each:
// which the server accepted and what it answered to the others.
func VersionSupport(outcomes []RevisionOutcome) Finding {
	def := withCatalogue([]Check{versionSupportCheck()})[0]
	f := Finding{ID: def.ID, Rule: def.Rule, Spec: def.Spec, Area: def.Area}
	var accepted, rejected []string
	answers := map[string]string{}
	for _, o := range outcomes {
		if o.Result != nil && o.Result.Accepted() {
			accepted = append(accepted, o.Revision)
			continue
		}
		rejected = append(rejected, o.Revision)
		answers[o.Revision] = revisionAnswer(o.Result)
	}
	f.Data = map[string]any{"accepted": nonNil(accepted), "rejected": nonNil(rejected)}
	msg := "accepts " + listOrNone(accepted)
	if len(rejected) > 0 {
		var parts []string
		for _, rev := range rejected {
			parts = append(parts, rev+" ("+answers[rev]+")")
		}
		msg += "; not " + strings.Join(parts, ", ")
	}
	f.Info("%s", msg)
	f.settle()
	return f
}

func nonNil(vs []string) []string {
	if vs == nil {
		return []string{}
	}
	return vs
}

// revisionAnswer says in a few words what a server answered to a revision it did not accept.
func revisionAnswer(res *probe.Result) string {
	if res == nil {
		return "not probed"
	}
	run := NewCapture(res)
	name := probe.StepInitialize
	if protocol.Stateless(res.Requested) {
		name = probe.StepDiscover
	}
	st, ok := run.FirstStep(name)
	switch {
	case ok && st.Outcome == probe.OutcomeOK && protocol.KnownRevision(res.Negotiated):
		return "answered " + res.Negotiated
	case ok && st.Outcome == probe.OutcomeOK && res.Negotiated != "":
		return "answered " + Clip([]byte(res.Negotiated))
	case ok && st.Outcome == probe.OutcomeOK:
		return "a result that does not name it"
	case ok:
		return name + " got " + describeAnswer(run, st)
	case res.Err != "":
		return Clip([]byte(res.Err))
	}
	return "no answer"
}
