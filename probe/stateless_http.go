package probe

import (
	"encoding/json"
	"net/http"

	"github.com/mcpwatch/mcpwatch/internal/paramheader"
	"github.com/mcpwatch/mcpwatch/protocol"
)

// statelessHeaders completes the headers of a POST under a stateless revision: Mcp-Method on
// every message that has a method, Mcp-Name on the methods that address one named thing
// (Base64-encoded when it is not a plain header value),
// and no session id, since there are no sessions. MCP-Protocol-Version is set already
// (requestHeader sends it for every revision from 2025-06-18 on).
func (t *httpTransport) statelessHeaders(h http.Header, body []byte) {
	t.mu.Lock()
	version := t.version
	t.mu.Unlock()
	if !protocol.Stateless(version) || body == nil {
		return
	}
	h.Del(protocol.HeaderSessionID)
	var m struct {
		Method *string         `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if json.Unmarshal(body, &m) != nil || m.Method == nil {
		return
	}
	h.Set(protocol.HeaderMethod, *m.Method)
	if name, ok := addressedName(*m.Method, m.Params); ok {
		// "The same encoding rule applies to the Mcp-Name header value" (Value Encoding).
		h.Set(protocol.HeaderName, paramheader.Encode(name))
	}
}

// addressedName is the value of Mcp-Name for a request: the tool or prompt name of
// tools/call and prompts/get, the URI of resources/read.
func addressedName(method string, params json.RawMessage) (string, bool) {
	member := ""
	switch method {
	case "tools/call", "prompts/get":
		member = "name"
	case "resources/read":
		member = "uri"
	default:
		return "", false
	}
	var p map[string]json.RawMessage
	if json.Unmarshal(params, &p) != nil {
		return "", false
	}
	var v string
	if json.Unmarshal(p[member], &v) != nil {
		return "", false
	}
	return v, true
}
