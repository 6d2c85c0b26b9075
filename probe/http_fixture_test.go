package probe

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// mcpFixture is a Streamable HTTP MCP server for tests. It answers every request with JSON
// unless the test gave a method another answer (an event stream, an error status, a broken
// stream, ...), and it records every request it got.
type mcpFixture struct {
	t *testing.T
	// version is the protocolVersion answered to initialize.
	version string
	// sessions: issue an Mcp-Session-Id on initialize and require it afterwards.
	sessions bool
	// answers overrides how a method is answered.
	answers map[string]fixtureAnswer
	// tools is the tools/list result.
	tools []byte

	mu       sync.Mutex
	seen     []seenRequest
	issued   map[string]bool
	replies  map[string]chan json.RawMessage // by session: the probe's answers to the server's requests
	nSession int
}

// fixtureAnswer writes the answer to one request.
type fixtureAnswer func(w http.ResponseWriter, r *http.Request, f *mcpFixture, m fixtureMessage)

type fixtureMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

type seenRequest struct {
	Proto      string
	HTTPMethod string
	RPCMethod  string
	Header     http.Header
	Body       []byte
}

func newMCPFixture(t *testing.T, version string) *mcpFixture {
	tools, err := os.ReadFile("testdata/http/tools-list.json")
	if err != nil {
		t.Fatalf("fixture: %v", err)
	}
	return &mcpFixture{t: t, version: version, sessions: true, answers: map[string]fixtureAnswer{},
		tools: bytes.TrimSpace(tools), issued: map[string]bool{}, replies: map[string]chan json.RawMessage{}}
}

// start serves the fixture on loopback; the server is closed when the test ends.
func (f *mcpFixture) start() *httptest.Server {
	srv := httptest.NewServer(f)
	f.t.Cleanup(srv.Close)
	return srv
}

// repliesOf is where the answers of one session to the server's requests go.
func (f *mcpFixture) repliesOf(session string) chan json.RawMessage {
	f.mu.Lock()
	defer f.mu.Unlock()
	ch := f.replies[session]
	if ch == nil {
		ch = make(chan json.RawMessage, 16)
		f.replies[session] = ch
	}
	return ch
}

func (f *mcpFixture) requests() []seenRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]seenRequest(nil), f.seen...)
}

func (f *mcpFixture) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	var m fixtureMessage
	_ = json.Unmarshal(body, &m)
	f.mu.Lock()
	f.seen = append(f.seen, seenRequest{Proto: r.Proto, HTTPMethod: r.Method, RPCMethod: m.Method, Header: r.Header.Clone(), Body: body})
	sessionOK := !f.sessions || f.issued[r.Header.Get("Mcp-Session-Id")]
	f.mu.Unlock()

	switch {
	case r.Method == http.MethodDelete:
		if !sessionOK {
			http.Error(w, "unknown session", http.StatusNotFound)
			return
		}
		w.WriteHeader(http.StatusNoContent)
		return
	case r.Method != http.MethodPost:
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	case m.Method != "initialize" && !sessionOK:
		http.Error(w, "missing or unknown session", http.StatusBadRequest)
		return
	}
	if m.Method == "" { // a response to a request the server sent
		f.repliesOf(r.Header.Get("Mcp-Session-Id")) <- body
		w.WriteHeader(http.StatusAccepted)
		return
	}
	if m.ID == nil { // a notification
		w.WriteHeader(http.StatusAccepted)
		return
	}
	if m.Method == "initialize" && f.sessions {
		f.mu.Lock()
		f.nSession++
		id := fmt.Sprintf("session-%d-%d", f.nSession, time.Now().UnixNano())
		f.issued[id] = true
		f.mu.Unlock()
		w.Header().Set("Mcp-Session-Id", id)
	}
	answer := f.answers[m.Method]
	if answer == nil {
		answer = answerJSON
	}
	answer(w, r, f, m)
}

// response is the JSON-RPC answer the fixture gives to m.
func (f *mcpFixture) response(m fixtureMessage) []byte {
	var result string
	switch m.Method {
	case "initialize":
		result = `{"protocolVersion":"` + f.version + `","capabilities":{"tools":{},"resources":{},"prompts":{}},"serverInfo":{"name":"fixture","version":"1.0.0"}}`
	case "tools/list":
		result = string(f.tools)
	case "resources/list":
		result = `{"resources":[]}`
	case "resources/templates/list":
		result = `{"resourceTemplates":[]}`
	case "prompts/list":
		result = `{"prompts":[]}`
	case "ping":
		result = `{}`
	default:
		return []byte(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"error":{"code":-32601,"message":"Method not found"}}`)
	}
	return []byte(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":` + result + `}`)
}

func answerJSON(w http.ResponseWriter, _ *http.Request, f *mcpFixture, m fixtureMessage) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	_, _ = w.Write(f.response(m))
}

// sseWriter writes event-stream text and flushes it at once.
type sseWriter struct {
	w http.ResponseWriter
}

func startSSE(w http.ResponseWriter) sseWriter {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	w.(http.Flusher).Flush()
	return sseWriter{w: w}
}

func (s sseWriter) send(text string) {
	_, _ = io.WriteString(s.w, text)
	s.w.(http.Flusher).Flush()
}

// answerSSE answers on an event stream: a priming event, a comment, a ping request of its own
// (waiting for the probe's answer to it) and then the response, split over two data lines.
func answerSSE(w http.ResponseWriter, r *http.Request, f *mcpFixture, m fixtureMessage) {
	s := startSSE(w)
	s.send("id: prime-1\r\ndata:\r\n\r\n")
	s.send(": keep-alive\n\n")
	s.send("event: message\nid: ev-2\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"srv-" + string(bytes.Trim(m.ID, `"`)) + "\",\"method\":\"ping\"}\n\n")
	session := r.Header.Get("Mcp-Session-Id")
	if session == "" { // initialize: the session is the one being issued
		session = w.Header().Get("Mcp-Session-Id")
	}
	select {
	case <-f.repliesOf(session):
	case <-r.Context().Done():
		return
	case <-time.After(5 * time.Second):
		f.t.Errorf("fixture: no answer to the server's ping during %s", m.Method)
	}
	resp := f.response(m)
	cut := bytes.IndexByte(resp, ',') + 1
	s.send("event: message\rid: ev-3\rdata: " + string(resp[:cut]) + "\rdata: " + string(resp[cut:]) + "\r\r")
}

// answerStatus answers with an error status and an id-less JSON-RPC error.
func answerStatus(status int) fixtureAnswer {
	return func(w http.ResponseWriter, _ *http.Request, _ *mcpFixture, _ fixtureMessage) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"internal error"}}`)
	}
}

// answerText answers 200 with a plain-text body.
func answerText(w http.ResponseWriter, _ *http.Request, _ *mcpFixture, _ fixtureMessage) {
	w.Header().Set("Content-Type", "text/plain")
	_, _ = io.WriteString(w, "hello, this is not JSON")
}

// answerSSEBroken opens a stream and ends it halfway through the response event.
func answerSSEBroken(w http.ResponseWriter, _ *http.Request, f *mcpFixture, m fixtureMessage) {
	s := startSSE(w)
	s.send("id: prime-1\ndata: \n\n")
	resp := f.response(m)
	s.send("data: " + string(resp[:len(resp)/2]))
}

// answerSSEHang opens a stream, primes it and then sends nothing until the client goes.
func answerSSEHang(w http.ResponseWriter, r *http.Request, _ *mcpFixture, _ fixtureMessage) {
	s := startSSE(w)
	s.send("id: prime-1\ndata: \n\n")
	<-r.Context().Done()
}

// answerHuge answers with a JSON body of n bytes (one long string in the result).
func answerHuge(n int) fixtureAnswer {
	return func(w http.ResponseWriter, r *http.Request, _ *mcpFixture, m fixtureMessage) {
		w.Header().Set("Content-Type", "application/json")
		head := `{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{"tools":[],"pad":"`
		_, _ = io.WriteString(w, head)
		chunk := strings.Repeat("x", 32<<10)
		for written := len(head); written < n; written += len(chunk) {
			if _, err := io.WriteString(w, chunk); err != nil || r.Context().Err() != nil {
				return
			}
		}
		_, _ = io.WriteString(w, `"}}`)
	}
}

// answerTrickle sends the head of a JSON answer and then one byte every 20ms, for ever.
func answerTrickle(w http.ResponseWriter, r *http.Request, _ *mcpFixture, m fixtureMessage) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	body := []byte(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{"tools":[]}}`)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for i := 0; ; i++ {
		select {
		case <-r.Context().Done():
			return
		case <-tick.C:
		}
		_, _ = w.Write([]byte{body[i%len(body)]})
		w.(http.Flusher).Flush()
	}
}

// answerSSEFlood sends notifications on the stream as fast as it can, for ever.
func answerSSEFlood(w http.ResponseWriter, r *http.Request, _ *mcpFixture, _ fixtureMessage) {
	s := startSSE(w)
	event := "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"" +
		strings.Repeat("n", 200) + "\"}}\n\n"
	for r.Context().Err() == nil {
		s.send(event)
	}
}

// answerRedirect sends the client elsewhere with the given status.
func answerRedirect(status int, to string) fixtureAnswer {
	return func(w http.ResponseWriter, r *http.Request, _ *mcpFixture, _ fixtureMessage) {
		http.Redirect(w, r, to, status)
	}
}
