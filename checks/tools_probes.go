package checks

import (
	"encoding/json"

	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/protocol"
)

// toolProbeChecks judge what the server does with a tool it does not list and a cursor it
// never issued, both probed at the end of the main session; neither calls a real tool.
func toolProbeChecks() []Check {
	return []Check{
		{ID: "tools.unknown-tool", Area: "tools", Rule: "B", Spec: specTools + "#error-handling",
			Title:    "tools/call of a tool the server does not list gets a JSON-RPC error",
			Evaluate: checkUnknownTool},
		{ID: "tools.invalid-cursor", Area: "tools", Rule: "D", Spec: specPagination + "#error-handling",
			Title:    "tools/list with a cursor the server never issued gets error -32602",
			Evaluate: checkInvalidCursor},
	}
}

// toolsDeclared skips a check when the server declares no tools (nothing to judge).
func toolsDeclared(r *Capture, f *Finding) bool {
	switch _, handshake := r.Handshake(); {
	case handshake == probe.HandshakeNone:
		f.Untested("no initialize or discover result, so no declared capabilities to judge tools by")
	case !r.Declares("tools"):
		f.Skip("server declares no tools capability")
	default:
		return true
	}
	return false
}

func checkUnknownTool(r *Capture, f *Finding) {
	if !toolsDeclared(r, f) {
		return
	}
	st, ok := stepOn(r, probe.ConnMain, probe.StepUnknownTool)
	if !ok {
		for _, l := range stepsOn(r, probe.ConnMain, probe.StepToolsList) {
			if l.Outcome != probe.OutcomeOK {
				f.Untested("no tool was called: tools/list failed (%s), so no name could be shown to be absent", describeStep(l))
				return
			}
		}
		f.notJudged(ruleUnsentHere(r, probe.ConnMain), "%s", ruleMissing(r, probe.ConnMain, "tools/call of an unknown tool"))
		return
	}
	name := calledTool(r, st)
	frames := Seqs(st.Request, st.Response)
	m := exchangeAnswer(r, st)
	switch {
	case m != nil && m.Kind == ErrorResponse:
		if code, ok := errorCode(m); ok {
			f.Data = map[string]any{"code": code}
		}
		f.Pass("tools/call of %s, which the server does not list, got %s", name, describeError(m))
	case m != nil && m.Kind == ResultResponse:
		f.Warn(frames, "tools/call of %s, which the server does not list: expected a JSON-RPC error (the spec's example is -32602), got a result %s", name, clipJSON(m.Result))
	default:
		f.Warn(frames, "tools/call of %s, which the server does not list: expected a JSON-RPC error (the spec's example is -32602), got %s", name, describeAnswer(r, st))
	}
}

// calledTool is the quoted name a tools/call step asked for.
func calledTool(r *Capture, st probe.Step) string {
	if m := r.Message(st.Request); m != nil {
		var p struct {
			Name string `json:"name"`
		}
		if json.Unmarshal(m.Params, &p) == nil && p.Name != "" {
			return quoteName(p.Name)
		}
	}
	return "a tool"
}

func checkInvalidCursor(r *Capture, f *Finding) {
	if !toolsDeclared(r, f) {
		return
	}
	st, ok := stepOn(r, probe.ConnMain, probe.StepInvalidCursor)
	if !ok {
		f.notJudged(ruleUnsentHere(r, probe.ConnMain), "%s", ruleMissing(r, probe.ConnMain, "tools/list with an invalid cursor"))
		return
	}
	frames := Seqs(st.Request, st.Response)
	m := exchangeAnswer(r, st)
	switch {
	case m != nil && m.Kind == ErrorResponse:
		if code, ok := errorCode(m); ok && code == protocol.CodeInvalidParams {
			f.Pass("a cursor the server never issued got %s", describeError(m))
			return
		}
		f.Warn(frames, "tools/list with a cursor the server never issued: expected error -32602, got %s", describeError(m))
	case m != nil && m.Kind == ResultResponse:
		f.Warn(frames, "tools/list with a cursor the server never issued: expected error -32602, got a page %s", clipJSON(m.Result))
	default:
		f.Warn(frames, "tools/list with a cursor the server never issued: expected error -32602, got %s", describeAnswer(r, st))
	}
}
