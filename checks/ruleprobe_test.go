package checks

import (
	"net/http"
	"testing"

	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/protocol"
)

// The rule probes' connections, scripted the way probe's rule probes record them.

const ruleInitParams = `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"mcpwatch","version":"dev"}}`

// withHeader answers as reply does and sets a header on the answering frame (an HTTP
// response's head, e.g. the Mcp-Session-Id an initialize answer issues).
func withHeader(rp reply, name, value string) reply {
	return func(w *wireScript, conn int, id string) int {
		seq := rp(w, conn, id)
		if seq >= 0 && value != "" {
			f := &w.res.Frames[seq]
			info := *f.HTTP
			info.Header = http.Header{name: {value}}
			f.HTTP = &info
		}
		return seq
	}
}

// statusReply answers an HTTP request with a whole response of another status.
func statusReply(status int, contentType, body string) reply {
	return func(w *wireScript, conn int, id string) int {
		return w.inBody(conn, status, contentType, body)
	}
}

// ruleHandshake records a rule connection's initialize and initialized; on HTTP the
// initialize answer issues sessionID ("" for none).
func (w *wireScript) ruleHandshake(conn int, initResult, sessionID string) probe.Step {
	init := w.call(conn, probe.StepRuleInitialize, "initialize", "1", ruleInitParams, withHeader(resultReply(initResult), "Mcp-Session-Id", sessionID))
	if init.Outcome == probe.OutcomeOK {
		w.notify(conn, probe.StepRuleInitialized, "notifications/initialized", nil)
	}
	return init
}

// raw records a message the router cannot route (no method, or no JSON at all) and its
// answer, as the rule probe's rawCall does.
func (w *wireScript) raw(conn int, name, raw, id string, answer reply) probe.Step {
	st := probe.Step{Name: name, Conn: conn, ID: id, Request: w.out(conn, raw), Response: -1}
	w.settle(&st, answer(w, conn, id))
	w.res.Steps = append(w.res.Steps, st)
	return st
}

// fetch records a request that carries no message (GET, DELETE) and its response head.
func (w *wireScript) fetch(conn int, name, method, url string, status int, contentType, body string, header http.Header) probe.Step {
	w.exchange[conn]++
	out := w.add(probe.Frame{Conn: conn, Dir: probe.Out, Kind: probe.KindHTTPRequest, Exchange: w.exchange[conn],
		HTTP: &probe.HTTPInfo{Method: method, URL: url}})
	st := probe.Step{Name: name, Method: method, Conn: conn, Request: out, Response: -1, Outcome: probe.OutcomeTransport}
	if status == 0 {
		w.note(conn, probe.NoteTimeout, method+" "+url+": no response within 10s")
		st.Err = "timed out"
	} else {
		st.Response = w.add(probe.Frame{Conn: conn, Dir: probe.In, Kind: probe.KindHTTPResponse, Exchange: w.exchange[conn],
			Raw: []byte(body), HTTP: &probe.HTTPInfo{Status: status, ContentType: contentType, Header: header}})
		st.HTTPStatus = status
		if status >= 200 && status <= 299 {
			st.Outcome = probe.OutcomeOK
		}
	}
	w.res.Steps = append(w.res.Steps, st)
	return st
}

// withRules runs the conformant session of a transport and, beside it, the rule
// connections scripted by rules.
func withRules(transport string, rules func(w *wireScript), edits ...func(p *sessionPlan)) *probe.Result {
	edits = append(edits, func(p *sessionPlan) { p.afterNotifications = rules })
	return scriptedSession(transport, edits...)
}

// pingReply is the answer of a working server to a ping.
var pingReply = resultReply(`{}`)

// A probe that left the rule probes to another probe of the same server (--protocol-version
// all) skips their checks saying where they ran, not that it stopped early.
func TestRuleChecksSayWhereTheRuleProbesRan(t *testing.T) {
	const where = "the probes that do not depend on the revision offered (the rule probes, and initialize with a bogus revision) ran once, in the probe of revision 2025-11-25"
	for _, id := range []string{"http.session", "lifecycle.parse-error", "auth.challenge", "tools.unknown-tool"} {
		res := scriptedSession(protocol.TransportHTTP)
		res.RulesElsewhere = where
		runCheckRows(t, id, []checkRow{{name: id, res: res, want: StatusSkip, msg: where}})
	}
}

// Under --protocol-version all, initialize with a bogus revision is sent in one probe only;
// the others' lifecycle.version-negotiation judges their own initialize and says where the
// bogus one went.
func TestVersionNegotiationSaysWhereTheBogusInitializeWent(t *testing.T) {
	const where = "ran once, in the probe of revision 2025-11-25"
	res := scriptedSession(protocol.TransportStdio, func(p *sessionPlan) { p.bogus = nil })
	res.RulesElsewhere = "the probes that do not depend on the revision offered " + where
	runCheckRows(t, "lifecycle.version-negotiation", []checkRow{{name: "elsewhere", res: res, want: StatusSkip, msg: where}})
}
