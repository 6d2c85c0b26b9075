package probe

import (
	"bytes"
	"encoding/json"

	"github.com/mcpwatch/mcpwatch/jsondoc"
)

// envelope is the little the router needs to know of a message, and what a waiting request
// takes from its answer: raw views into the message's own bytes, never copies.
type envelope struct {
	id        json.RawMessage
	hasID     bool
	method    string
	hasMethod bool
	result    json.RawMessage // nil: no result member
	errValue  json.RawMessage // nil: no error member
}

// peekEnvelope reads the top-level members of a message without decoding the rest. It
// agrees with json.Unmarshal into a struct with id, method, result and error fields (member
// names matched without regard to case, the last of a repeated name winning, a top-level
// null read as an empty message, any other non-object refused), at a fraction of the cost:
// routing runs on every frame and was the largest part of what the probe itself spent.
func peekEnvelope(raw []byte) (envelope, bool) {
	var e envelope
	kind, ok := jsondoc.ScanObject(raw, func(token, value []byte) {
		switch name := jsondoc.Unquote(token); {
		case bytes.EqualFold(name, []byte("id")):
			e.id, e.hasID = value, !jsondoc.IsNull(value)
		case bytes.EqualFold(name, []byte("method")):
			e.hasMethod, e.method = true, ""
			if value[0] == '"' {
				e.method, _ = jsondoc.Str(value)
			}
		case bytes.EqualFold(name, []byte("result")):
			e.result = value
		case bytes.EqualFold(name, []byte("error")):
			e.errValue = value
		}
	})
	if !ok || (kind != jsondoc.Object && kind != jsondoc.Null) {
		return envelope{}, false
	}
	return e, true
}
