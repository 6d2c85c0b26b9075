package probe

import (
	"context"
	"errors"
	"net/http"

	"github.com/mcpwatch/mcpwatch/protocol"
)

// refusedPOST reports whether an answer to a POSTed initialize is one the specification
// tells clients to read as "try the legacy HTTP+SSE transport" (basic/transports, Backwards Compatibility: 400, 404 or
// 405; earlier revisions say any 4xx, but those three are what servers send).
func refusedPOST(st Step) bool {
	switch st.HTTPStatus {
	case http.StatusBadRequest, http.StatusNotFound, http.StatusMethodNotAllowed:
		return true
	}
	return false
}

// fallBackToSSE is the back-compatibility rule of basic/transports, Backwards Compatibility: when the target's transport
// is to be detected and its POSTed initialize was refused, GET the URL and, if it opens an
// event stream that names an endpoint, go on over the legacy HTTP+SSE transport on the
// same connection (the refused POST is kept as evidence, renamed StepTransportProbe). It
// reports whether the connection now speaks HTTP+SSE; an error says that the server does
// speak it, but named no endpoint the probe may use.
func (s *session) fallBackToSSE(ctx context.Context, refused Step) (bool, error) {
	if !s.target.detectsTransport() || s.kind != protocol.TransportHTTP || !refusedPOST(refused) {
		return false, nil
	}
	old := s.transport()
	// Nothing of the refused connection is worth keeping open (it holds no session).
	if err := old.Close(ctx); err != nil {
		s.o.Logger.Debug("closing the refused Streamable HTTP connection", "conn", s.conn, "err", err)
	}
	tr, err := openSSE(ctx, s.target, s.conn, s.wire, s.o, s.lastExchange())
	if errors.Is(err, ErrNotEventStream) {
		s.o.Logger.Debug("not a legacy HTTP+SSE endpoint either", "conn", s.conn, "err", err)
		return false, nil
	}
	for i := range s.steps {
		if s.steps[i].Request == refused.Request && s.steps[i].Name == refused.Name {
			s.steps[i].Name = StepTransportProbe
		}
	}
	s.kind = protocol.TransportSSE
	if err != nil {
		return false, err
	}
	s.setTransport(tr)
	return true, nil
}

// lastExchange is the highest exchange number the connection has used so far.
func (s *session) lastExchange() int {
	n := 0
	for _, f := range s.transcript.Frames() {
		if f.Conn == s.conn && f.Exchange > n {
			n = f.Exchange
		}
	}
	return n
}
