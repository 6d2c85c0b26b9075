package alerttest

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/mcpwatch/mcpwatch/internal/testkit/fixture"
)

// Monitored is an MCP server on loopback whose behaviour a test switches between probes:
// a fixture server, one that answers every request with an HTTP error, or one that hangs up.
type Monitored struct {
	Server  *httptest.Server
	handler atomic.Pointer[http.Handler]
}

// NewMonitored starts a server, closed when the test ends, serving the conformant fixture.
func NewMonitored(t testing.TB) *Monitored {
	t.Helper()
	m := &Monitored{}
	m.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		(*m.handler.Load()).ServeHTTP(w, r)
	}))
	t.Cleanup(m.Server.Close)
	m.Serve(t, fixture.Config{})
	return m
}

// URL is where the server listens.
func (m *Monitored) URL() string { return m.Server.URL }

// Serve makes the server the fixture cfg describes (a fresh one: sessions do not carry over).
func (m *Monitored) Serve(t testing.TB, cfg fixture.Config) {
	t.Helper()
	s, err := fixture.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	h := s.Handler()
	m.handler.Store(&h)
}

// Fail makes every request get the HTTP status, as a broken upstream behind a proxy does.
func (m *Monitored) Fail(status int) {
	var h http.Handler = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "upstream unavailable", status)
	})
	m.handler.Store(&h)
}

// HangUp makes the server close every connection without answering, as a crashed process
// behind a load balancer can look.
func (m *Monitored) HangUp() {
	var h http.Handler = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		conn, _, err := http.NewResponseController(w).Hijack()
		if err != nil {
			panic(http.ErrAbortHandler) // closes the connection without a response all the same
		}
		_ = conn.Close()
	})
	m.handler.Store(&h)
}
