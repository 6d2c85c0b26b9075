// Package probed reads a server's tool surface out of a probe recording: the tools of its
// tools/list pages (Tools, for the API and the dashboard) and, when the listing is complete,
// the Surface drift alerts compare. It is apart from package toolsurface so that the alert
// engine, which uses the model, does not depend on the probe.
package probed

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	"github.com/mcpwatch/mcpwatch/internal/toolsurface"
	"github.com/mcpwatch/mcpwatch/probe"
)

// Tools returns the tools of every tools/list page of a probe, by name; ok is false when
// no page came back (the surface is unknown). Entries that are not objects with a string name
// are left out: the checks report those.
func Tools(res *probe.Result) (tools []toolsurface.Tool, ok bool) {
	seen := map[string]bool{}
	for _, st := range res.StepsNamed(probe.StepToolsList) {
		if st.Outcome != probe.OutcomeOK || len(st.Result) == 0 {
			continue
		}
		var page struct {
			Tools []json.RawMessage `json:"tools"`
		}
		if json.Unmarshal(st.Result, &page) != nil {
			continue
		}
		ok = true
		for _, raw := range page.Tools {
			var t toolsurface.Tool
			if json.Unmarshal(raw, &t) != nil || t.Name == "" || seen[t.Name] {
				continue
			}
			seen[t.Name] = true
			tools = append(tools, t)
			if len(tools) >= toolsurface.MaxTools {
				break
			}
		}
	}
	slices.SortFunc(tools, func(a, b toolsurface.Tool) int { return strings.Compare(a.Name, b.Name) })
	return tools, ok
}

// Surface reads the tool surface from the tools/list pages of a probe's main connection.
// It returns nil when the surface is unknown: the server did not answer initialize (or,
// stateless, server/discover), a page failed or was not valid, or the listing stopped before
// its last page. A server that does not declare tools and refuses tools/list has an empty
// surface.
func Surface(res *probe.Result) *toolsurface.Surface {
	if res == nil {
		return nil
	}
	// A stateless server (2026-07-28) is never initialized: its DiscoverResult declares the
	// capabilities instead, and its tools/list pages are on the main connection as usual.
	if _, handshake := res.Handshake(); handshake == probe.HandshakeNone {
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
		if pages[0].Outcome == probe.OutcomeError && !res.Declares("tools") {
			return toolsurface.NewSurface(nil)
		}
		return nil
	}
	var tools []toolsurface.Entry
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
			tools = append(tools, toolsurface.Entry{Name: *t.Name, Description: t.Description, SchemaHash: toolsurface.SchemaHash(t.InputSchema, t.OutputSchema)})
		}
	}
	return toolsurface.NewSurface(tools)
}
