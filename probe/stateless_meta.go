package probe

import (
	"bytes"
	"encoding/json"

	"github.com/mcpwatch/mcpwatch/protocol"
)

// methodDiscover is the first request of the stateless revision (2026-07-28 server/discover).
const methodDiscover = "server/discover"

// requestMeta is the _meta every stateless request carries: the revision, the client's
// capabilities (none: the probe answers no server request but ping) and who the client is.
func requestMeta(version string, o Options) map[string]any {
	return map[string]any{
		protocol.MetaProtocolVersion:    version,
		protocol.MetaClientCapabilities: map[string]any{},
		protocol.MetaClientInfo:         map[string]string{"name": o.ClientName, "version": o.ClientVersion},
	}
}

// withMeta returns params (a JSON object, or nil for none) with meta merged into its _meta
// member (keys already there are kept).
func withMeta(params json.RawMessage, meta map[string]any) json.RawMessage {
	members := map[string]json.RawMessage{}
	if len(bytes.TrimSpace(params)) > 0 && json.Unmarshal(params, &members) != nil {
		return params // not an object: sent as it is, the probe's own doing
	}
	merged := map[string]any{}
	if old, ok := members["_meta"]; ok {
		var m map[string]any
		if json.Unmarshal(old, &m) == nil {
			for k, v := range m {
				merged[k] = v
			}
		}
	}
	for k, v := range meta {
		if _, ok := merged[k]; !ok {
			merged[k] = v
		}
	}
	raw, err := json.Marshal(merged)
	if err != nil {
		return params
	}
	members["_meta"] = raw
	out, err := json.Marshal(members)
	if err != nil {
		return params
	}
	return out
}
