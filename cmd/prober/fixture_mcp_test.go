package main

import (
	"bytes"
	"encoding/json"
	"slices"
)

// fixtureMCP answers MCP messages the way a small conformant tools-only server does. Each
// field switches on one deviation, so that a test can see the verdict change.
type fixtureMCP struct {
	name, version string
	// noToolDescription leaves the tool's description out (optional in every revision: advice).
	noToolDescription bool
	// pingResult replaces the empty result of ping (an array: a failure).
	pingResult string
}

// answer returns the reply to one message, or nil when none is due (notifications and
// responses).
func (s fixtureMCP) answer(raw []byte) []byte {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method *string         `json:"method"`
		Params json.RawMessage `json:"params"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return rpcError(nil, -32700, "parse error")
	}
	hasID := len(m.ID) > 0 && !bytes.Equal(m.ID, []byte("null"))
	if m.Method == nil {
		if m.Result != nil || m.Error != nil {
			return nil
		}
		return rpcError(m.ID, -32600, "invalid request: no method")
	}
	if !hasID {
		return nil
	}
	var params struct {
		ProtocolVersion string  `json:"protocolVersion"`
		Cursor          *string `json:"cursor"`
		Name            string  `json:"name"`
	}
	_ = json.Unmarshal(m.Params, &params)
	switch *m.Method {
	case "initialize":
		version := params.ProtocolVersion
		if !slices.Contains([]string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"}, version) {
			version = "2025-11-25"
		}
		return rpcResult(m.ID, map[string]any{
			"protocolVersion": version,
			"capabilities":    map[string]any{"tools": map[string]any{}},
			"serverInfo":      map[string]any{"name": s.name, "version": s.version},
		})
	case "ping":
		if s.pingResult != "" {
			return rpcResult(m.ID, json.RawMessage(s.pingResult))
		}
		return rpcResult(m.ID, map[string]any{})
	case "tools/list":
		if params.Cursor != nil {
			return rpcError(m.ID, -32602, "invalid cursor")
		}
		tool := map[string]any{
			"name":        "echo",
			"description": "Returns its text argument",
			"inputSchema": map[string]any{
				"type":       "object",
				"properties": map[string]any{"text": map[string]any{"type": "string"}},
				"required":   []string{"text"},
			},
		}
		if s.noToolDescription {
			delete(tool, "description")
		}
		return rpcResult(m.ID, map[string]any{"tools": []any{tool}})
	case "tools/call":
		if params.Name != "echo" {
			return rpcError(m.ID, -32602, "unknown tool")
		}
		return rpcResult(m.ID, map[string]any{"content": []any{map[string]any{"type": "text", "text": "echo"}}})
	}
	return rpcError(m.ID, -32601, "method not found")
}

func rpcResult(id json.RawMessage, result any) []byte {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
	return b
}

func rpcError(id json.RawMessage, code int, msg string) []byte {
	if id == nil {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": msg}})
	return b
}
