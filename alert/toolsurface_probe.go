package alert

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"time"

	"github.com/mcpwatch/mcpwatch/probe"
)

// ToolSurfaceOf reads the tool surface from the tools/list pages of a probe's main
// connection. It returns nil when the surface is unknown: the server did not answer
// initialize (or, stateless, server/discover), a page failed or was not valid, or the listing
// stopped before its last page. A server that does not declare tools and refuses tools/list
// has an empty surface.
func ToolSurfaceOf(res *probe.Result) *ToolSurface {
	if res == nil {
		return nil
	}
	// A stateless server (2026-07-28) is never initialized: its DiscoverResult declares the
	// capabilities instead, and its tools/list pages are on the main connection as usual.
	declared := res.Initialize
	if declared == nil {
		declared = res.Discover
	}
	if declared == nil {
		return nil
	}
	var pages []probe.Step
	for _, st := range res.Steps {
		if st.Name == probe.StepToolsList && st.Conn == probe.ConnMain {
			pages = append(pages, st)
		}
	}
	if len(pages) == 0 {
		return nil
	}
	if pages[0].Outcome != probe.OutcomeOK {
		if pages[0].Outcome == probe.OutcomeError && !declaresTools(declared) {
			return NewToolSurface(nil)
		}
		return nil
	}
	var tools []Tool
	for i, st := range pages {
		if st.Outcome != probe.OutcomeOK {
			return nil
		}
		var page struct {
			Tools      []json.RawMessage `json:"tools"`
			NextCursor json.RawMessage   `json:"nextCursor"`
		}
		if json.Unmarshal(st.Result, &page) != nil {
			return nil
		}
		more := len(page.NextCursor) > 0 && !bytes.Equal(page.NextCursor, []byte("null"))
		if more == (i == len(pages)-1) {
			// A cursor on the last page: the listing was cut short (a page limit, a
			// repeated cursor); none before it: pages follow that were never asked for.
			return nil
		}
		for _, raw := range page.Tools {
			var t struct {
				Name         *string         `json:"name"`
				Description  string          `json:"description"`
				InputSchema  json.RawMessage `json:"inputSchema"`
				OutputSchema json.RawMessage `json:"outputSchema"`
			}
			if json.Unmarshal(raw, &t) != nil || t.Name == nil {
				return nil // a tool without a name cannot be followed from run to run
			}
			tools = append(tools, Tool{Name: *t.Name, Description: t.Description, SchemaHash: SchemaHash(t.InputSchema, t.OutputSchema)})
		}
	}
	return NewToolSurface(tools)
}

// declaresTools reads the capabilities of an InitializeResult or a DiscoverResult, which both
// carry them in "capabilities".
func declaresTools(result json.RawMessage) bool {
	var ir struct {
		Capabilities map[string]json.RawMessage `json:"capabilities"`
	}
	if json.Unmarshal(result, &ir) != nil {
		return true // unknown: do not conclude there are no tools
	}
	_, ok := ir.Capabilities["tools"]
	return ok
}

// SchemaHash hashes a tool's input and output schemas (either may be nil) in a canonical form:
// member order and spacing do not change it, any change of content does.
func SchemaHash(input, output json.RawMessage) string {
	h := sha256.New()
	h.Write([]byte("in:"))
	h.Write(canonicalJSON(input))
	h.Write([]byte("\nout:"))
	h.Write(canonicalJSON(output))
	return hex.EncodeToString(h.Sum(nil))
}

// canonicalJSON re-encodes a document with sorted members and no spacing, numbers as sent;
// text that is not JSON is hashed as it is.
func canonicalJSON(raw json.RawMessage) []byte {
	if len(raw) == 0 {
		return nil
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return raw
	}
	var buf bytes.Buffer
	e := json.NewEncoder(&buf)
	e.SetEscapeHTML(false)
	if e.Encode(v) != nil {
		return raw
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// CertificateOf returns the server certificate that expires first among those the probe saw
// (nil when no exchange was over TLS).
func CertificateOf(res *probe.Result) *Certificate {
	if res == nil {
		return nil
	}
	var out *Certificate
	for _, f := range res.Frames {
		if f.HTTP == nil || f.HTTP.TLS == nil || f.HTTP.TLS.NotAfter.IsZero() {
			continue
		}
		if out == nil || f.HTTP.TLS.NotAfter.Before(out.NotAfter) {
			out = &Certificate{Subject: f.HTTP.TLS.Subject, NotAfter: f.HTTP.TLS.NotAfter.UTC().Truncate(time.Second)}
		}
	}
	return out
}
