// Package toolsurface is the one model of a server's tool surface, the tools its tools/list
// pages list:
//
//   - Tool is a listed tool as sent and Compare says what changed between two lists: what
//     the API and the dashboard show.
//   - Encoder writes JSON in the one canonical form; ToolDigest and Fingerprint hash a
//     surface with it: the tools.fingerprint check publishes a Fingerprint, runs store it.
//   - Surface is what drift alerts remember of a surface (names, descriptions and hashes),
//     DiffSurfaces compares two.
//
// The package knows nothing of probes, so that the alert engine can use it: package probed
// reads Tools and a Surface out of a probe recording.
//
// Fingerprints and surfaces are stored and compared from run to run: how they are computed
// never changes.
package toolsurface

import "encoding/json"

// MaxTools bounds the tools read from one recording.
const MaxTools = 2000

// Tool is one tool as the server listed it; schemas and annotations are kept as sent.
type Tool struct {
	Name         string          `json:"name"`
	Title        string          `json:"title,omitempty"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"inputSchema,omitempty"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	Annotations  json.RawMessage `json:"annotations,omitempty"`
}
