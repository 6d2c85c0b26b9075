package checks

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/protocol"
)

func stableChecks() []Check {
	return []Check{
		{ID: "lists.stable", Area: "lists", Rule: "E, D", Spec: specTools + "#capabilities",
			Title:    "tools/list keeps its order when asked again; the tool, resource and prompt sets do not vary per connection or with other requests (2026-07-28; advice before)",
			Evaluate: checkListsStable},
	}
}

// stableList is a list compared across two listings.
type stableList struct {
	capability, method, step, other, member, key, changed string
}

var stableLists = []stableList{
	{"tools", "tools/list", probe.StepToolsList, probe.StepToolsListOther, "tools", "name", "notifications/tools/list_changed"},
	{"resources", "resources/list", probe.StepResourcesList, probe.StepResourcesListOther, "resources", "uri", "notifications/resources/list_changed"},
	{"prompts", "prompts/list", probe.StepPromptsList, probe.StepPromptsListOther, "prompts", "name", "notifications/prompts/list_changed"},
}

// checkListsStable compares listings of one probe. 2026-07-28 server/tools, "Capabilities":
// the set "MUST NOT vary per-connection or as a side effect of other requests on the
// connection" (the same sentence in server/resources and server/prompts), and "Servers
// SHOULD return tools in a deterministic order (i.e., the same ordering across requests
// when the underlying set of tools has not changed)". Earlier revisions say neither (their
// sets may follow the session), so there a difference is advice. A list_changed
// notification seen during the probe excuses a changed set ("MAY change over time").
func checkListsStable(r *Capture, f *Finding) {
	if _, handshake := r.Handshake(); handshake == probe.HandshakeNone {
		f.Untested("no initialize or discover result, so no declared lists to compare")
		return
	}
	rev := r.Revision()
	strict := protocol.Stateless(rev)
	setFault := func(frames []int, format string, args ...any) {
		if strict {
			f.Fail(frames, format, args...)
			return
		}
		f.Advise(frames, format+" (2026-07-28 forbids this; %s does not)", append(args, rev)...)
	}
	changed := map[string]bool{}
	r.Inbound(func(_ probe.Frame, m *Message) {
		if m != nil && m.Kind == Notification {
			changed[m.Method] = true
		}
	})
	var judged, notJudged []string
	declaredAny := false
	for _, k := range stableLists {
		if !r.Declares(k.capability) {
			continue
		}
		declaredAny = true
		main := r.surfaceList(k.step, probe.ConnMain)
		if !main.complete() {
			notJudged = append(notJudged, k.method+" did not complete on the main connection")
			continue
		}
		if changed[k.changed] {
			notJudged = append(notJudged, k.method+" (the server announced a change with "+k.changed+")")
			continue
		}
		first := main.keys(k.member, k.key)
		if k.capability == "tools" {
			again := r.surfaceList(probe.StepToolsListRepeat, probe.ConnMain)
			switch {
			case !again.sent():
				notJudged = append(notJudged, "tools/list asked again: "+unsentReason(r))
			case !again.complete():
				notJudged = append(notJudged, "tools/list asked again did not complete")
			default:
				judged = append(judged, "tools/list asked twice")
				second := again.keys(k.member, k.key)
				frames := append(main.responses(), again.responses()...)
				if diff := setDifference(first, second); diff != "" {
					setFault(frames, "tools/list answered a different set of tools when asked again on the same connection: %s", diff)
				} else if !slices.Equal(first, second) {
					msg := "tools/list returned the same tools in a different order when asked again"
					if strict {
						f.Warn(frames, "%s", msg)
					} else {
						f.Advise(frames, "%s (2026-07-28 asks for a deterministic order; %s does not)", msg, rev)
					}
				}
			}
		}
		other := r.surfaceList(k.other, probe.ConnNegotiation)
		switch {
		case !other.sent():
			notJudged = append(notJudged, k.method+" on a second connection: "+unsentReason(r))
		case !other.complete():
			st, _ := other.firstFailed()
			notJudged = append(notJudged, k.method+" on a second connection did not complete ("+describeStep(st)+")")
		default:
			judged = append(judged, k.method+" on two connections")
			if diff := setDifference(first, other.keys(k.member, k.key)); diff != "" {
				setFault(append(main.responses(), other.responses()...), "%s answered a different set on a second connection of the same probe: %s", k.method, diff)
			}
		}
	}
	if !declaredAny {
		f.Skip("server declares no tools, resources or prompts")
		return
	}
	if len(judged) == 0 {
		f.notJudged(stoppedHere(r), "nothing to compare: %s", strings.Join(notJudged, "; "))
		return
	}
	msg := "the same sets and order: " + strings.Join(judged, ", ")
	if len(notJudged) > 0 {
		msg += "; not compared: " + strings.Join(notJudged, "; ")
	}
	f.Pass("%s", msg)
}

// unsentReason says why a comparison request was not sent.
func unsentReason(r *Capture) string {
	if r.RulesElsewhere != "" {
		return "not sent here (" + r.RulesElsewhere + ")"
	}
	return "not sent (the connection did not get that far)"
}

// setDifference names the items only one of two listings has ("" when the sets are equal).
func setDifference(a, b []string) string {
	in := func(xs []string) map[string]int {
		m := map[string]int{}
		for _, x := range xs {
			m[x]++
		}
		return m
	}
	ma, mb := in(a), in(b)
	var gone, added []string
	for _, x := range a {
		if mb[x] == 0 && !slices.Contains(gone, x) {
			gone = append(gone, x)
		}
	}
	for _, x := range b {
		if ma[x] == 0 && !slices.Contains(added, x) {
			added = append(added, x)
		}
	}
	if len(gone) == 0 && len(added) == 0 {
		return ""
	}
	var parts []string
	if len(gone) > 0 {
		parts = append(parts, "missing "+quoteList(gone))
	}
	if len(added) > 0 {
		parts = append(parts, "added "+quoteList(added))
	}
	return strings.Join(parts, ", ")
}

// quoteList quotes the first few names of a list.
func quoteList(xs []string) string {
	const shown = 5
	var q []string
	for i, x := range xs {
		if i == shown {
			q = append(q, fmt.Sprintf("and %d more", len(xs)-shown))
			break
		}
		q = append(q, quoteName(x))
	}
	return strings.Join(q, ", ")
}
