package checks

import (
	"net/http"
	"testing"

	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/protocol"
)

// concurrentPair appends the two concurrent pings of the concurrency probe to a session:
// both written before either answer; answered says which got their response.
func concurrentPair(answered [2]bool) func(p *sessionPlan) {
	return concurrentPairOn(probe.ConnConcurrent, answered)
}

// concurrentPairOn is concurrentPair on connection c.
func concurrentPairOn(c int, answered [2]bool) func(p *sessionPlan) {
	return func(p *sessionPlan) {
		p.onNegotiation = func(w *wireScript) {
			steps := []probe.Step{
				{Name: probe.StepConcurrentFirst, Method: "ping", Conn: c, ID: "2", Response: -1},
				{Name: probe.StepConcurrentSecond, Method: "ping", Conn: c, ID: "3", Response: -1},
			}
			for i := range steps {
				steps[i].Request = w.out(c, `{"jsonrpc":"2.0","id":`+steps[i].ID+`,"method":"ping"}`)
			}
			for i := range steps {
				w.exchange[c] = i + 1
				if answered[i] {
					steps[i].Response = w.in(c, `{"jsonrpc":"2.0","id":`+steps[i].ID+`,"result":{}}`)
					steps[i].Outcome = probe.OutcomeOK
				} else {
					steps[i].Response = w.note(c, probe.NoteTimeout, "no response within 3s")
					steps[i].Outcome = probe.OutcomeNoAnswer
				}
			}
			w.res.Steps = append(w.res.Steps, steps...)
		}
	}
}

// concurrentServerError is concurrentPair with the second ping answered HTTP 500 and no
// JSON-RPC message: a request left unanswered, which http.concurrent-requests judges.
func concurrentServerError(p *sessionPlan) {
	concurrentPair([2]bool{true, false})(p)
	pair := p.onNegotiation
	p.onNegotiation = func(w *wireScript) {
		pair(w)
		c := probe.ConnConcurrent
		st := &w.res.Steps[len(w.res.Steps)-1]
		st.Response = w.inBody(c, http.StatusInternalServerError, "text/plain", "internal error")
		st.HTTPStatus, st.Outcome = http.StatusInternalServerError, probe.OutcomeTransport
	}
}

// One fault, one finding: the 500 to a concurrent ping is http.concurrent-requests' finding
// (a request left unanswered), so http.status leaves it.
func TestAServerErrorToAConcurrentRequestIsJudgedOnce(t *testing.T) {
	h := protocol.TransportHTTP
	runCheckRows(t, "http.concurrent-requests", []checkRow{
		{name: "the unanswered request fails", res: scriptedSession(h, concurrentServerError), want: StatusFail},
	})
	runCheckRows(t, "http.status", []checkRow{
		{name: "http.status leaves it", res: scriptedSession(h, concurrentServerError), want: StatusPass},
	})
}

// JSON-RPC 2.0 §4, which every MCP message "MUST follow": "When a rpc call is made, the
// Server MUST reply with a Response, except for in the case of Notifications"; 2025-11-25
// basic/transports, Sending Messages to the Server: "Every JSON-RPC message sent from the
// client MUST be a new HTTP POST request", and a request's POST "MUST" be answered with
// application/json or text/event-stream.
func TestConcurrentRequestsAreBothAnswered(t *testing.T) {
	h := protocol.TransportHTTP
	runCheckRows(t, "http.concurrent-requests", []checkRow{
		{name: "both answered passes", res: scriptedSession(h, concurrentPair([2]bool{true, true})),
			want: StatusPass, msg: "both in flight at once"},
		{name: "both answered on the session-era connection passes", res: scriptedSession(h, concurrentPairOn(probe.ConnConcurrentSession, [2]bool{true, true})),
			want: StatusPass, msg: "both in flight at once"},
		{name: "the second dropped on the session-era connection fails", res: scriptedSession(h, concurrentPairOn(probe.ConnConcurrentSession, [2]bool{true, false})),
			want: StatusFail, msg: "got a response to id 2 and for id 3 no answer within the timeout"},
		{name: "the second dropped fails", res: scriptedSession(h, concurrentPair([2]bool{true, false})),
			want: StatusFail, msg: "got a response to id 2 and for id 3 no answer within the timeout"},
		{name: "the first dropped fails", res: scriptedSession(h, concurrentPair([2]bool{false, true})),
			want: StatusFail, msg: "got a response to id 3 and for id 2"},
		{name: "neither answered is untested", res: scriptedSession(h, concurrentPair([2]bool{false, false})),
			want: StatusUntested, msg: "neither of two concurrent ping requests"},
		{name: "no probe is not judged", res: scriptedSession(h), want: StatusUntested, msg: "the concurrent requests were not sent"},
		{name: "stdio is a skip", res: scriptedSession(protocol.TransportStdio), want: StatusSkip},
	})
}

// streamReply answers a request with an event stream: a priming event first when primed,
// the response when answered, a retry field on the last event when retry, then the end.
func streamReply(primed, answered, retry bool) reply {
	return func(w *wireScript, conn int, id string) int {
		w.head(conn, 200, "text/event-stream", "")
		if primed {
			w.sse(conn, "", "")
		}
		seq := -1
		if answered {
			seq = w.sse(conn, `{"jsonrpc":"2.0","id":`+id+`,"result":{}}`, "")
		}
		if retry {
			w.add(probe.Frame{Conn: conn, Dir: probe.In, Kind: probe.KindSSEEvent, Exchange: w.exchange[conn],
				SSE: &probe.SSEInfo{Retry: "1000"}, HTTP: &probe.HTTPInfo{Status: 200, ContentType: "text/event-stream"}})
		}
		w.note(conn, probe.NoteStreamEnded, "the server ended the stream")
		return seq
	}
}

// 2025-11-25 basic/transports, Sending Messages to the Server: "The server SHOULD
// immediately send an SSE event consisting of an event ID and an empty data field in order
// to prime the client to reconnect"; "If the server does close the connection prior to
// terminating the SSE stream, it SHOULD send an SSE event with a standard retry field before
// closing the connection."
func TestSSEPrimingAndRetry(t *testing.T) {
	h := protocol.TransportHTTP
	older := func(p *sessionPlan) {
		p.initResult = `{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}`
	}
	runCheckRows(t, "http.sse-priming", []checkRow{
		{name: "a primed stream with its response passes", res: scriptedSession(h, answer(probe.StepPing, streamReply(true, true, false))),
			want: StatusPass, msg: "1 event streams"},
		{name: "a stream without priming warns", res: scriptedSession(h, answer(probe.StepPing, streamReply(false, true, false))),
			want: StatusWarn, msg: `POST "ping" (id`},
		{name: "a primed stream closed early without retry warns", res: scriptedSession(h, answer(probe.StepPing, streamReply(true, false, false))),
			want: StatusWarn, msg: "expected a retry field before the server closed the stream"},
		{name: "a primed stream closed early after retry passes", res: scriptedSession(h, answer(probe.StepPing, streamReply(true, false, true))),
			want: StatusPass},
		{name: "a stream ended without response or event id is http.sse-framing's", res: scriptedSession(h, answer(probe.StepPing, streamReply(false, false, false))),
			want: StatusSkip, msg: "no request of 2025-11-25"},
		{name: "JSON answers only are a skip", res: scriptedSession(h), want: StatusSkip},
		{name: "an earlier revision is a skip", res: scriptedSession(h, older, answer(probe.StepPing, streamReply(false, true, false))),
			want: StatusSkip, msg: "rules of 2025-11-25"},
	})
}

// tlsResult is a probe of target whose main connection negotiated version ("" for plain
// http), with the legacy handshake's outcome (nil: not made) and a 401 on the anonymous
// initialize when protected.
func tlsResult(target, version string, legacy *probe.Outcome, protected bool) *probe.Result {
	w := newWireScript(protocol.TransportHTTP)
	w.res.Target = target
	w.call(probe.ConnMain, probe.StepInitialize, "initialize", "1", "{}", func(w *wireScript, conn int, id string) int {
		return w.add(probe.Frame{Conn: conn, Dir: probe.In, Kind: probe.KindMessage, Exchange: w.exchange[conn],
			Raw:  []byte(`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}`),
			HTTP: &probe.HTTPInfo{Status: 200, ContentType: "application/json", TLS: tlsInfoOf(version)}})
	})
	if protected {
		w.call(probe.ConnAuth, probe.StepAuthInitialize, "initialize", "1", "{}", func(w *wireScript, conn int, id string) int {
			w.head(conn, http.StatusUnauthorized, "text/plain", "unauthorized")
			return -1
		})
	}
	if legacy != nil {
		st := probe.Step{Name: probe.StepTLSLegacyHandshake, Method: "TLS handshake", Conn: probe.ConnTLSVersion, Request: -1, Outcome: *legacy}
		detail := "a handshake offering only TLS 1.0 and 1.1 succeeded: the server negotiated TLS 1.1"
		if *legacy != probe.OutcomeOK {
			st.Err = "TLS handshake with 127.0.0.2:443: remote error: tls: protocol version not supported"
			detail = "a handshake offering only TLS 1.0 and 1.1 failed: " + st.Err
		}
		st.Response = w.add(probe.Frame{Conn: probe.ConnTLSVersion, Dir: probe.In, Kind: probe.KindNote, Note: probe.NoteTLSHandshake, Detail: detail})
		w.res.Steps = append(w.res.Steps, st)
	}
	return w.res
}

func tlsInfoOf(version string) *probe.TLSInfo {
	if version == "" {
		return nil
	}
	return &probe.TLSInfo{Version: version, Subject: "CN=example.com", Issuer: "CN=CA"}
}

// MCP 2025-11-25 basic/authorization, Communication Security: "Implementations MUST follow
// OAuth 2.1 Section 1.5 'Communication Security'" (TLS for credentials and tokens); RFC 8996:
// "TLS 1.0 MUST NOT be used", "TLS 1.1 MUST NOT be used"; RFC 9325 §3.1.1: "Implementations
// MUST NOT negotiate TLS version 1.0". Authorization is OPTIONAL, so the MUST binds servers
// that take credentials; others get advice. No request is made: the hosts are names only.
func TestTLSVersionOfRemoteServers(t *testing.T) {
	ok, refused := probe.OutcomeOK, probe.OutcomeTransport
	runCheckRows(t, "tls.version", []checkRow{
		{name: "a protected remote server on plain http fails", res: tlsResult("http://mcp.example.com/mcp", "", nil, true),
			want: StatusFail, msg: "got plain http to \"mcp.example.com\""},
		{name: "an open remote server on plain http gets advice", res: tlsResult("http://mcp.example.com/mcp", "", nil, false),
			want: StatusWarn, msg: "no MCP keyword requires TLS"},
		{name: "loopback plain http is a skip", res: tlsResult("http://127.0.0.1:8080/mcp", "", nil, true), want: StatusSkip, msg: "loopback or private"},
		{name: "localhost plain http is a skip", res: tlsResult("http://localhost:8080/mcp", "", nil, true), want: StatusSkip},
		{name: "a private address on plain http is a skip", res: tlsResult("http://10.1.2.3/mcp", "", nil, true), want: StatusSkip},
		{name: "an IPv6 unique local address on plain http is a skip", res: tlsResult("http://[fd00::1]/mcp", "", nil, true), want: StatusSkip},
		{name: "https refusing TLS 1.1 passes", res: tlsResult("https://mcp.example.com/mcp", "TLS 1.3", &refused, true),
			want: StatusPass, msg: "negotiated TLS 1.3"},
		{name: "a protected https server accepting TLS 1.1 fails", res: tlsResult("https://mcp.example.com/mcp", "TLS 1.3", &ok, true),
			want: StatusFail, msg: "the server negotiated TLS 1.1"},
		{name: "an open https server accepting TLS 1.1 gets advice", res: tlsResult("https://mcp.example.com/mcp", "TLS 1.3", &ok, false),
			want: StatusWarn, msg: "to be refused"},
		{name: "https without the handshake is untested", res: tlsResult("https://mcp.example.com/mcp", "TLS 1.3", nil, false),
			want: StatusUntested, msg: "was not made"},
		{name: "stdio is a skip", res: scriptedSession(protocol.TransportStdio), want: StatusSkip},
	})
}

func TestRemoteHost(t *testing.T) {
	for host, want := range map[string]bool{
		"example.com": true, "203.0.113.7": true, "2001:db8::1": true,
		"localhost": false, "api.localhost": false, "127.0.0.2": false, "::1": false, "[::1]": false,
		"192.168.1.1": false, "172.16.0.1": false, "10.0.0.1": false, "169.254.1.1": false, "fe80::1": false, "fc00::1": false,
	} {
		if got := remoteHost(host); got != want {
			t.Errorf("remoteHost(%q) = %v, want %v", host, got, want)
		}
	}
}

// TestTransportCatalogueEntries holds the IDs and rules of catalogue revision 2's transport
// checks to docs/checks.md.
func TestTransportCatalogueEntries(t *testing.T) {
	want := []struct{ id, rule, transport string }{
		{"http.concurrent-requests", "G3", protocol.TransportHTTP},
		{"http.sse-priming", "G5", protocol.TransportHTTP},
		{"tls.version", "", ""},
	}
	got := transportChecks()
	if len(got) != len(want) {
		t.Fatalf("%d checks, want %d", len(got), len(want))
	}
	for i, w := range want {
		if c := got[i]; c.ID != w.id || c.Rule != w.rule || c.Transport != w.transport {
			t.Errorf("check %d is %s (%q, %q), want %s (%q, %q)", i, c.ID, c.Rule, c.Transport, w.id, w.rule, w.transport)
		}
	}
}
