package probe

import (
	"context"
	"encoding/json"
)

// initialize sends a connection's initialize with the revision of o (or finishes the one
// era detection already sent, started) and, when the POST was refused and the target's
// transport is to be detected, tries legacy HTTP+SSE and sends it again there.
func (s *session) initialize(ctx context.Context, name string, o Options, started *Step) Step {
	var st Step
	if started != nil {
		st = *started
	} else {
		st = s.call(ctx, name, "initialize", initializeParams(o), s.o.InitTimeout, 0)
	}
	if st.Outcome == OutcomeOK {
		return st
	}
	switched, err := s.fallBackToSSE(ctx, st)
	if err != nil {
		// The server speaks legacy HTTP+SSE but named no usable endpoint: initialize could
		// not even be sent.
		st = Step{Name: name, Method: "initialize", Conn: s.conn, Request: -1, Response: -1,
			Outcome: OutcomeTransport, Err: err.Error()}
		s.steps = append(s.steps, st)
		return st
	}
	if !switched {
		return st
	}
	return s.call(ctx, name, "initialize", initializeParams(o), s.o.InitTimeout, 0)
}

// answeredRevision is the protocolVersion an initialize result names ("" when none).
func answeredRevision(result json.RawMessage) string {
	var ir struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	_ = json.Unmarshal(result, &ir)
	return ir.ProtocolVersion
}

// initializeParams are the params of initialize: no client capabilities, members in the
// order json.Marshal gives a map (written out, since every connection sends one).
func initializeParams(o Options) json.RawMessage {
	b := make([]byte, 0, 128)
	b = append(b, `{"capabilities":{},"clientInfo":{"name":`...)
	b = appendJSONString(b, o.ClientName)
	b = append(b, `,"version":`...)
	b = appendJSONString(b, o.ClientVersion)
	b = append(b, `},"protocolVersion":`...)
	b = appendJSONString(b, o.ProtocolVersion)
	return append(b, '}')
}
