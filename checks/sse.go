package checks

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/url"
	"strconv"

	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/protocol"
)

const sseSpec = "https://modelcontextprotocol.io/specification/2024-11-05/basic/transports#http-with-sse"

// sseChecks judge the legacy HTTP+SSE transport (2024-11-05 basic/transports, HTTP with SSE).
func sseChecks() []Check {
	return []Check{
		{ID: "sse.endpoint-event", Area: "sse", Rule: "H", Spec: sseSpec, Transport: protocol.TransportSSE,
			Title:    "the event stream opens with an endpoint event whose URI is on the stream's origin",
			Evaluate: checkEndpointEvent},
		{ID: "sse.message-events", Area: "sse", Rule: "H", Spec: sseSpec, Transport: protocol.TransportSSE,
			Title:    "server messages arrive as message events of the stream, one JSON-RPC message each",
			Evaluate: checkMessageEvents},
	}
}

// sseStream is the GET of one connection that opened (or tried to open) its event stream.
type sseStream struct {
	ex  httpExchange
	url string // as requested (password redacted)
}

// sseStreams finds, per connection, the first GET exchange: the legacy transport's stream.
func sseStreams(r *Capture) []sseStream {
	var out []sseStream
	seen := map[int]bool{}
	for _, ex := range httpExchanges(r) {
		if seen[ex.conn] || ex.request < 0 {
			continue
		}
		req := r.Frames[ex.request]
		if req.Kind != probe.KindHTTPRequest || req.HTTP == nil || req.HTTP.Method != "GET" {
			continue
		}
		seen[ex.conn] = true
		out = append(out, sseStream{ex: ex, url: req.HTTP.URL})
	}
	return out
}

// isEvent reports whether a frame is one event of an event stream.
func isEvent(fr probe.Frame) bool {
	return fr.SSE != nil && (fr.Kind == probe.KindSSEEvent || fr.Kind == probe.KindMessage)
}

func checkEndpointEvent(r *Capture, f *Finding) {
	streams := sseStreams(r)
	if len(streams) == 0 {
		f.notJudged(stoppedHere(r), "no event stream was opened (%s)", probeStopped(r))
		return
	}
	for _, s := range streams {
		ex := s.ex
		if !ex.eventStream(r) {
			what := "no response"
			if ex.head >= 0 {
				what = "HTTP " + strconv.Itoa(ex.status(r)) + describeBody(r, ex.head)
			}
			f.Fail(Seqs(ex.request, ex.head), "GET %s: expected an event stream opening with an endpoint event, got %s", Clip([]byte(s.url)), what)
			continue
		}
		first := -1
		endpoint := -1
		for _, seq := range ex.in {
			fr := r.Frames[seq]
			if !isEvent(fr) {
				continue
			}
			if first < 0 {
				first = seq
			}
			if fr.SSE.Event == "endpoint" {
				endpoint = seq
				break
			}
		}
		switch {
		case first < 0:
			f.Fail(Seqs(ex.request, ex.head), "GET %s: expected an endpoint event first, got a stream without any event", Clip([]byte(s.url)))
			continue
		case endpoint < 0:
			f.Fail(Seqs(ex.request, first), "expected an endpoint event first, got event %s and no endpoint event", eventName(r.Frames[first]))
			continue
		case endpoint != first:
			f.Fail(Seqs(first, endpoint), "expected the endpoint event first, got event %s before it", eventName(r.Frames[first]))
		}
		stream, err := url.Parse(s.url)
		if err != nil {
			f.Skip("the stream URL %s cannot be parsed to judge the endpoint against", Clip([]byte(s.url)))
			continue
		}
		if _, err := probe.ResolveEndpoint(stream, string(r.Frames[endpoint].Raw)); err != nil {
			f.Fail(Seqs(endpoint), "expected an endpoint URI on the stream's origin, got %s: %s", Clip(r.Frames[endpoint].Raw), err.Error())
		}
	}
	f.Pass("%d event stream(s), each opening with an endpoint event on its own origin", len(streams))
}

func eventName(fr probe.Frame) string {
	if fr.SSE == nil || fr.SSE.Event == "" {
		return `"message" (no event field)`
	}
	return Clip([]byte(fr.SSE.Event))
}

func checkMessageEvents(r *Capture, f *Finding) {
	streams := sseStreams(r)
	from := map[int]int{} // conn -> the exchange number of its stream: its messages come after
	for _, s := range streams {
		from[s.ex.conn] = s.ex.number
	}
	n := 0
	r.Inbound(func(fr probe.Frame, m *Message) {
		start, ok := from[fr.Conn]
		if !ok || fr.Exchange < start {
			return // not a connection of the legacy transport, or before it opened
		}
		if fr.SSE == nil && fr.HTTP != nil && fr.HTTP.Status >= 400 && fr.HTTP.Status <= 499 && m != nil && m.Kind == ErrorResponse {
			// A POST the server refused (a malformed message, a deliberate probe) may carry
			// its JSON-RPC error in the body of the HTTP error: that is the refusal, not a
			// message the stream should have carried.
			return
		}
		n++
		switch {
		case fr.SSE == nil:
			f.Fail(Seqs(fr.Seq), "expected server messages as message events of the stream, got one in the HTTP response to a POST: %s", clipJSON(fr.Raw))
			return
		case fr.SSE.Event != "" && fr.SSE.Event != "message":
			f.Fail(Seqs(fr.Seq), "expected a message event, got a message in event %s", Clip([]byte(fr.SSE.Event)))
		}
		if k := jsonValues(fr.Raw); k > 1 {
			f.Fail(Seqs(fr.Seq), "expected one JSON-RPC message per event, got %d JSON values in one event's data", k)
		} else if m != nil && m.Kind == NotObject && bytes.HasPrefix(bytes.TrimSpace(fr.Raw), []byte("[")) {
			f.Fail(Seqs(fr.Seq), "expected one JSON-RPC message per event, got an array (a batch) %s", clipJSON(fr.Raw))
		}
	})
	if n == 0 {
		f.notJudged(stoppedHere(r), "the server sent no message over the legacy transport (%s)", probeStopped(r))
		return
	}
	f.Pass("%d server messages, each a message event with one JSON-RPC message", n)
}

// jsonValues counts the JSON values at the top level of b (0 when it does not parse):
// two objects on two data lines are one event's data, but two messages.
func jsonValues(b []byte) int {
	dec := json.NewDecoder(bytes.NewReader(b))
	n := 0
	for {
		var v json.RawMessage
		err := dec.Decode(&v)
		if errors.Is(err, io.EOF) {
			return n
		}
		if err != nil {
			if n > 1 {
				return n
			}
			return 0
		}
		n++
	}
}
