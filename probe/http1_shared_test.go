package probe

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/internal/testkit/fixture"
)

// TestShortConnectionsShareSocketsAndSaySo probes the conformant fixture over plain http and
// counts the sockets the server accepted: the rule, negotiation and era connections share
// keep-alive sockets (HTTP/1.1 lets any request reuse a persistent connection, RFC 9112
// §9.3; 2025-11-25 basic/transports: every client message "MUST be a new HTTP POST
// request", so the socket carries no session), the main connection keeps its own, and the
// transcript says which connection dialled each socket an exchange borrowed.
func TestShortConnectionsShareSocketsAndSaySo(t *testing.T) {
	srv, err := fixture.New(fixture.Config{})
	if err != nil {
		t.Fatal(err)
	}
	var accepted atomic.Int64
	ts := httptest.NewUnstartedServer(srv.Handler())
	ts.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			accepted.Add(1)
		}
	}
	ts.Start()
	defer ts.Close()
	res, err := Run(context.Background(), Target{URL: ts.URL + "/mcp"}, Options{
		Timeout: 10 * time.Second, InitTimeout: 2 * time.Second, RequestTimeout: time.Second, ShutdownGrace: time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	type exchangeKey struct{ conn, exchange int }
	timed := map[exchangeKey]HTTPTiming{}
	conns := map[int]bool{}
	for _, f := range res.Frames {
		if f.HTTP == nil || f.HTTP.Timing == nil {
			continue
		}
		conns[f.Conn] = true
		timed[exchangeKey{f.Conn, f.Exchange}] = *f.HTTP.Timing
	}
	dialled := map[int]int{} // connection → sockets it dialled
	fresh, borrowed := 0, 0
	for k, tm := range timed {
		if !tm.Reused {
			fresh++
			dialled[k.conn]++
		}
		if tm.OpenedBy != 0 {
			borrowed++
		}
	}
	for k, tm := range timed {
		switch {
		case tm.OpenedBy == 0:
		case !tm.Reused:
			t.Errorf("conn %d exchange %d: a fresh socket recorded as opened by conn %d", k.conn, k.exchange, tm.OpenedBy)
		case tm.OpenedBy == k.conn:
			t.Errorf("conn %d exchange %d: openedBy names the frame's own connection", k.conn, k.exchange)
		case k.conn == ConnMain || tm.OpenedBy == ConnMain:
			t.Errorf("conn %d exchange %d: opened by %d: the main connection shares no socket", k.conn, k.exchange, tm.OpenedBy)
		case dialled[tm.OpenedBy] == 0:
			t.Errorf("conn %d exchange %d: opened by conn %d, which dialled no socket", k.conn, k.exchange, tm.OpenedBy)
		}
	}
	// Every socket the server accepted is one exchange that did not reuse a socket.
	if got := accepted.Load(); got != int64(fresh) {
		t.Errorf("the server accepted %d sockets, the transcript shows %d exchanges on a fresh one", got, fresh)
	}
	if borrowed == 0 || fresh >= len(conns) {
		t.Errorf("%d connections dialled %d sockets, %d exchanges borrowed one: nothing was shared", len(conns), fresh, borrowed)
	}
	if dialled[ConnMain] == 0 {
		t.Error("the main connection dialled no socket of its own")
	}
}

// TestRuleLaneWaitsBoundedly: a rule probe waits for one of the lanes, but no longer than
// http1LaneWait, so that a server that holds every lane cannot serialise the probes' timeouts.
func TestRuleLaneWaitsBoundedly(t *testing.T) {
	s := &http1Shared{lanes: make(chan struct{}, http1Lanes)}
	ctx := context.Background()
	var held []func()
	for range http1Lanes {
		held = append(held, s.lane(ctx))
	}
	start := time.Now()
	release := s.lane(ctx)
	if waited := time.Since(start); waited < http1LaneWait || waited > http1LaneWait+time.Second {
		t.Errorf("with every lane held the probe waited %s, want about %s", waited, http1LaneWait)
	}
	release() // no lane was taken: giving nothing back must not free one
	if len(s.lanes) != http1Lanes {
		t.Fatalf("%d lanes held, want %d", len(s.lanes), http1Lanes)
	}
	go func() {
		time.Sleep(20 * time.Millisecond)
		held[0]()
	}()
	start = time.Now()
	release = s.lane(ctx)
	if waited := time.Since(start); waited >= http1LaneWait {
		t.Errorf("a lane given back after 20ms was taken after %s", waited)
	}
	release()
	held[1]()
	if len(s.lanes) != 0 {
		t.Errorf("%d lanes still held", len(s.lanes))
	}
	var none *http1Shared
	none.lane(ctx)() // no sharing (stdio, https): no wait, nothing to give back
}
