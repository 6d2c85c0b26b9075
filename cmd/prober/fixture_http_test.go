package main

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"sync"
	"testing"
)

// httpFixture is a Streamable HTTP MCP server (JSON answers, sessions) built on fixtureMCP.
type httpFixture struct {
	mcp fixtureMCP
	// initStatus, when set, answers initialize with that status and a text body.
	initStatus int
	// echoHeader names a request header whose value the server reflects: in serverInfo, in
	// a response header and in error messages, the way a careless server leaks a token.
	echoHeader string

	mu       sync.Mutex
	sessions map[string]bool
	received []string // values of echoHeader as received
}

func newHTTPFixture(t *testing.T, f *httpFixture) *httptest.Server {
	t.Helper()
	f.sessions = map[string]bool{}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return srv
}

func (f *httpFixture) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if origin := r.Header.Get("Origin"); origin != "" {
		u, err := url.Parse(origin)
		if err != nil || (u.Hostname() != "127.0.0.1" && u.Hostname() != "localhost") {
			http.Error(w, "forbidden origin", http.StatusForbidden)
			return
		}
	}
	echoed := ""
	if f.echoHeader != "" {
		echoed = r.Header.Get(f.echoHeader)
		f.mu.Lock()
		f.received = append(f.received, echoed)
		f.mu.Unlock()
		w.Header().Set("X-Echo", echoed)
	}
	session := r.Header.Get("Mcp-Session-Id")
	switch r.Method {
	case http.MethodPost:
	case http.MethodDelete:
		switch {
		case session == "":
			http.Error(w, "missing session", http.StatusBadRequest)
		case !f.endSession(session):
			http.Error(w, "unknown session", http.StatusNotFound)
		}
		return
	default:
		w.Header().Set("Allow", "POST, DELETE")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	if v := r.Header.Get("Mcp-Protocol-Version"); v != "" && !slices.Contains([]string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"}, v) {
		http.Error(w, "unsupported MCP-Protocol-Version", http.StatusBadRequest)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		http.Error(w, "read error", http.StatusBadRequest)
		return
	}
	var m struct {
		Method string          `json:"method"`
		ID     json.RawMessage `json:"id"`
	}
	if json.Unmarshal(body, &m) != nil {
		writeJSON(w, http.StatusBadRequest, rpcError(nil, -32700, "parse error"))
		return
	}
	if m.Method == "initialize" {
		if f.initStatus != 0 {
			http.Error(w, "initialize refused: "+echoed, f.initStatus)
			return
		}
		reply := f.mcp.answer(body)
		if echoed != "" {
			reply = bytes.Replace(reply, []byte(`"name":"`), []byte(`"name":"`+jsonText(echoed)+` `), 1)
		}
		w.Header().Set("Mcp-Session-Id", f.newSession())
		writeJSON(w, http.StatusOK, reply)
		return
	}
	switch {
	case session == "":
		writeJSON(w, http.StatusBadRequest, rpcError(nil, -32600, "missing Mcp-Session-Id"))
		return
	case !f.knownSession(session):
		writeJSON(w, http.StatusNotFound, rpcError(nil, -32600, "unknown session"))
		return
	}
	reply := f.mcp.answer(body)
	if reply == nil {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	if echoed != "" && bytes.Contains(reply, []byte(`"error"`)) {
		reply = bytes.Replace(reply, []byte(`"message":"`), []byte(`"message":"token `+jsonText(echoed)+` says: `), 1)
	}
	writeJSON(w, http.StatusOK, reply)
}

func writeJSON(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(body)
}

// jsonText is s escaped for the inside of a JSON string.
func jsonText(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}

func (f *httpFixture) newSession() string {
	b := make([]byte, 16)
	rand.Read(b)
	id := hex.EncodeToString(b)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sessions[id] = true
	return id
}

func (f *httpFixture) knownSession(id string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.sessions[id]
}

func (f *httpFixture) endSession(id string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	ok := f.sessions[id]
	delete(f.sessions, id)
	return ok
}

func (f *httpFixture) receivedValues() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.received)
}
