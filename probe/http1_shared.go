package probe

import (
	"context"
	"net/url"
	"time"

	"github.com/mcpwatch/mcpwatch/protocol"
)

// http1Shared is what the short connections of one probe of a plain-http server share: the
// keep-alive sockets, and lanes that keep the rule probes from all dialling at once.
//
// A rule connection is a session of its own (see rules.go): what it bends is a request of
// its session, never the socket under it. A Streamable HTTP message is one POST, answered on
// that request (2025-11-25 basic/transports: "Every JSON-RPC message sent from the client
// MUST be a new HTTP POST request to the MCP endpoint"), so which socket carries it changes
// nothing the server sees of the session; HTTP/1.1 lets any request reuse a persistent
// connection (RFC 9112 §9.3). Without sharing, a default probe opened eleven sockets for
// about fifty requests, and their dial, close and buffers were a tenth of its CPU. The main
// connection keeps sockets of its own, so that its timings (the run's answer time) are
// measured as before.
//
// Each exchange over a socket another connection dialled says so in its timing
// (HTTPTiming.OpenedBy).
type http1Shared struct {
	idle  http1Idle
	lanes chan struct{}
}

// Bounds of the rule probes' lanes.
const (
	// http1Lanes rule probes run at once on shared sockets: the others wait for a lane.
	http1Lanes = 2
	// http1LaneWait is the longest a rule probe waits for a lane before it goes ahead on a
	// socket of its own: a slow or silent server must not make the probes wait out each
	// other's timeouts in turn, so the wait adds at most this much to a probe.
	http1LaneWait = 250 * time.Millisecond
)

// newHTTP1Shared is the sharing of a probe of t with o, or nil where there is none: over
// stdio, over https (each connection keeps http.Transport, with its own TLS sessions), or
// when the user gave the HTTP client.
func newHTTP1Shared(t Target, o Options) *http1Shared {
	if t.Kind() != protocol.TransportHTTP || o.HTTPClient != nil {
		return nil
	}
	if u, err := url.Parse(t.URL); err != nil || u.Scheme != "http" {
		return nil
	}
	return &http1Shared{lanes: make(chan struct{}, http1Lanes)}
}

// lane waits for a lane, at most http1LaneWait, and returns what gives it back. Past the
// wait the probe runs anyway, without one.
func (s *http1Shared) lane(ctx context.Context) (release func()) {
	if s == nil {
		return func() {}
	}
	select {
	case s.lanes <- struct{}{}:
		return func() { <-s.lanes }
	default:
	}
	wait := time.NewTimer(http1LaneWait)
	defer wait.Stop()
	select {
	case s.lanes <- struct{}{}:
		return func() { <-s.lanes }
	case <-wait.C:
	case <-ctx.Done():
	}
	return func() {}
}

// close closes the sockets left idle once every connection of the probe is done.
func (s *http1Shared) close() {
	if s != nil {
		s.idle.close()
	}
}
