package checks

import (
	"testing"

	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/protocol"
)

// legacyStream records a legacy HTTP+SSE conversation the way the transport does: the GET of
// the event stream (exchange 1), its events, and each POST (later exchanges) answered 202
// with its answer as an event of the stream.
type legacyStream struct {
	w      *wireScript
	stream int // exchange number of the GET
}

func newLegacyStream(url string) *legacyStream {
	w := newWireScript(protocol.TransportSSE)
	w.exchange[probe.ConnMain]++
	s := &legacyStream{w: w, stream: w.exchange[probe.ConnMain]}
	w.add(probe.Frame{Conn: probe.ConnMain, Dir: probe.Out, Kind: probe.KindHTTPRequest, Exchange: s.stream,
		HTTP: &probe.HTTPInfo{Method: "GET", URL: url}})
	w.add(probe.Frame{Conn: probe.ConnMain, Dir: probe.In, Kind: probe.KindHTTPResponse, Exchange: s.stream,
		HTTP: &probe.HTTPInfo{Status: 200, ContentType: "text/event-stream"}})
	return s
}

// event records one event of the stream: an endpoint (no message) or a message.
func (s *legacyStream) event(name, data string) int {
	f := probe.Frame{Conn: probe.ConnMain, Dir: probe.In, Kind: probe.KindMessage, Exchange: s.stream, Raw: []byte(data),
		SSE: &probe.SSEInfo{Event: name}, HTTP: &probe.HTTPInfo{Status: 200, ContentType: "text/event-stream"}}
	if name == "endpoint" {
		f.Kind = probe.KindSSEEvent
	}
	return s.w.add(f)
}

// post records a POST to the endpoint answered 202, its answer on the stream in an event
// of the given name ("" for none).
func (s *legacyStream) post(raw, answerEvent, answer string) {
	w := s.w
	w.exchange[probe.ConnMain]++
	x := w.exchange[probe.ConnMain]
	w.add(probe.Frame{Conn: probe.ConnMain, Dir: probe.Out, Kind: probe.KindMessage, Exchange: x, Raw: []byte(raw),
		HTTP: &probe.HTTPInfo{Method: "POST", URL: "http://127.0.0.1:8000/message?sessionId=1"}})
	w.add(probe.Frame{Conn: probe.ConnMain, Dir: probe.In, Kind: probe.KindHTTPResponse, Exchange: x, Raw: []byte("Accepted"),
		HTTP: &probe.HTTPInfo{Status: 202, ContentType: "text/plain"}})
	if answer != "" {
		s.event(answerEvent, answer)
	}
}

const (
	legacyInit   = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	legacyAnswer = `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2024-11-05","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}`
)

func legacyRun(bend func(s *legacyStream)) *probe.Result {
	s := newLegacyStream("http://127.0.0.1:8000/sse")
	if bend == nil {
		bend = func(s *legacyStream) {
			s.event("endpoint", "/message?sessionId=1")
			s.post(legacyInit, "message", legacyAnswer)
		}
	}
	bend(s)
	return s.w.res
}

func TestSSEEndpointEvent(t *testing.T) {
	runStatelessRows(t, "sse.endpoint-event", []checkRow{
		{name: "a relative endpoint first passes", res: legacyRun(nil), want: StatusPass, msg: "each opening with an endpoint event"},
		{name: "an absolute endpoint on the same origin passes", want: StatusPass, msg: "on its own origin", res: legacyRun(func(s *legacyStream) {
			s.event("endpoint", "http://127.0.0.1:8000/message?sessionId=1")
		})},
		{name: "a message before the endpoint fails", want: StatusFail, msg: `expected the endpoint event first, got event "message" before it`, res: legacyRun(func(s *legacyStream) {
			s.event("message", `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"hi"}}`)
			s.event("endpoint", "/message?sessionId=1")
		})},
		{name: "an endpoint on another host fails", want: StatusFail, msg: "is on another origin", res: legacyRun(func(s *legacyStream) {
			s.event("endpoint", "http://mcp.invalid/message?sessionId=1")
		})},
		{name: "an endpoint on another port fails", want: StatusFail, msg: "is on another origin", res: legacyRun(func(s *legacyStream) {
			s.event("endpoint", "http://127.0.0.1:9000/message")
		})},
		{name: "an empty endpoint fails", want: StatusFail, msg: "carries no URI", res: legacyRun(func(s *legacyStream) {
			s.event("endpoint", "")
		})},
		{name: "a stream without events fails", want: StatusFail, msg: "got a stream without any event", res: legacyRun(func(s *legacyStream) {})},
	})
}

func TestSSEMessageEvents(t *testing.T) {
	runStatelessRows(t, "sse.message-events", []checkRow{
		{name: "message events pass", res: legacyRun(nil), want: StatusPass, msg: "1 server messages"},
		{name: "an event without a name is a message event", want: StatusPass, msg: "1 server messages", res: legacyRun(func(s *legacyStream) {
			s.event("endpoint", "/message?sessionId=1")
			s.post(legacyInit, "", legacyAnswer)
		})},
		{name: "an event of another name fails", want: StatusFail, msg: `got a message in event "jsonrpc"`, res: legacyRun(func(s *legacyStream) {
			s.event("endpoint", "/message?sessionId=1")
			s.post(legacyInit, "jsonrpc", legacyAnswer)
		})},
		{name: "two messages in one event fail", want: StatusFail, msg: "got 2 JSON values in one event's data", res: legacyRun(func(s *legacyStream) {
			s.event("endpoint", "/message?sessionId=1")
			s.post(legacyInit, "message", legacyAnswer+"\n"+`{"jsonrpc":"2.0","method":"notifications/message","params":{}}`)
		})},
		{name: "a batch in one event fails", want: StatusFail, msg: "got an array (a batch)", res: legacyRun(func(s *legacyStream) {
			s.event("endpoint", "/message?sessionId=1")
			s.post(legacyInit, "message", "["+legacyAnswer+"]")
		})},
		{name: "an answer in the POST response fails", want: StatusFail, msg: "got one in the HTTP response to a POST", res: legacyRun(func(s *legacyStream) {
			s.event("endpoint", "/message?sessionId=1")
			w := s.w
			w.exchange[probe.ConnMain]++
			x := w.exchange[probe.ConnMain]
			w.add(probe.Frame{Conn: probe.ConnMain, Dir: probe.Out, Kind: probe.KindMessage, Exchange: x, Raw: []byte(legacyInit),
				HTTP: &probe.HTTPInfo{Method: "POST"}})
			w.add(probe.Frame{Conn: probe.ConnMain, Dir: probe.In, Kind: probe.KindMessage, Exchange: x, Raw: []byte(legacyAnswer),
				HTTP: &probe.HTTPInfo{Status: 200, ContentType: "application/json"}})
		})},
		// 2024-11-05 basic/transports, "HTTP with SSE": "Server messages are sent as SSE
		// message events, with the message content encoded as JSON in the event data." An
		// HTTP error answering a POST refuses that POST; the JSON-RPC error in its body is
		// no server message of the session. mcp-grafana answers a malformed POST with 400
		// and an id-less -32700 in the body.
		{name: "a 4xx error answer to a POST is a refusal, not a message event", want: StatusPass, msg: "1 server messages", res: legacyRun(func(s *legacyStream) {
			s.event("endpoint", "/message?sessionId=1")
			s.post(legacyInit, "message", legacyAnswer)
			w := s.w
			w.exchange[probe.ConnMain]++
			x := w.exchange[probe.ConnMain]
			w.add(probe.Frame{Conn: probe.ConnMain, Dir: probe.Out, Kind: probe.KindMessage, Exchange: x, Raw: []byte(probe.MalformedJSON),
				HTTP: &probe.HTTPInfo{Method: "POST"}})
			w.inBody(probe.ConnMain, 400, "application/json", parseErrorAnswer)
		})},
		{name: "a 4xx carrying a result is still a message outside the stream", want: StatusFail, msg: "got one in the HTTP response to a POST", res: legacyRun(func(s *legacyStream) {
			s.event("endpoint", "/message?sessionId=1")
			w := s.w
			w.exchange[probe.ConnMain]++
			x := w.exchange[probe.ConnMain]
			w.add(probe.Frame{Conn: probe.ConnMain, Dir: probe.Out, Kind: probe.KindMessage, Exchange: x, Raw: []byte(legacyInit),
				HTTP: &probe.HTTPInfo{Method: "POST"}})
			w.inBody(probe.ConnMain, 400, "application/json", legacyAnswer)
		})},
		{name: "no message is untested", res: legacyRun(func(s *legacyStream) { s.event("endpoint", "/m") }), want: StatusUntested, msg: "sent no message"},
	})
}
