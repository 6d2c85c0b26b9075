package probe

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/mcpwatch/mcpwatch/jsondoc"
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

// answeredRevision is the protocolVersion an initialize result names ("" when none), read
// as json.Unmarshal into a struct with that one string field reads it: the name matched
// without regard to case, the last string of a repeated name winning (a null or a value of
// another type leaves the one before), nothing from a result that is no valid object. Not
// with encoding/json itself: every rule connection reads its initialize on a goroutine of
// its own, whose small stack encoding/json's recursion made the runtime copy several times
// over, 7% of the instructions of a probe.
func answeredRevision(result json.RawMessage) string {
	if !jsondoc.Valid(result) {
		return ""
	}
	var v string
	jsondoc.EachMember(result, func(name, value []byte) {
		if value[0] == '"' && bytes.EqualFold(jsondoc.Unquote(name), []byte("protocolVersion")) {
			v, _ = jsondoc.Str(value)
		}
	})
	return v
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
