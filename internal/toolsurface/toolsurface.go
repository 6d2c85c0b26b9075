// Package toolsurface reads the tool list out of a probe recording and compares two lists:
// what the API and the dashboard show as a server's tool surface and its drift.
package toolsurface

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	"github.com/mcpwatch/mcpwatch/probe"
)

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

// FromResult returns the tools of every tools/list page of a probe, by name; ok is false when
// no page came back (the surface is unknown). Entries that are not objects with a string name
// are left out: the checks report those.
func FromResult(res *probe.Result) (tools []Tool, ok bool) {
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
			var t Tool
			if json.Unmarshal(raw, &t) != nil || t.Name == "" || seen[t.Name] {
				continue
			}
			seen[t.Name] = true
			tools = append(tools, t)
			if len(tools) >= MaxTools {
				break
			}
		}
	}
	slices.SortFunc(tools, func(a, b Tool) int { return strings.Compare(a.Name, b.Name) })
	return tools, ok
}

// Change is a tool listed before and after whose definition differs.
type Change struct {
	Name string `json:"name"`
	// Description is set when the description changed: a changed description of a tool
	// already in use is how tool poisoning arrives.
	Description  *DescriptionChange `json:"description,omitempty"`
	InputSchema  bool               `json:"inputSchema,omitempty"`
	OutputSchema bool               `json:"outputSchema,omitempty"`
	Title        bool               `json:"title,omitempty"`
	Annotations  bool               `json:"annotations,omitempty"`
}

// DescriptionChange holds both descriptions.
type DescriptionChange struct {
	Before string `json:"before"`
	After  string `json:"after"`
}

// Diff is what changed from one tool list to the next.
type Diff struct {
	Added   []string `json:"added"`
	Removed []string `json:"removed"`
	Changed []Change `json:"changed"`
}

// Compare returns what changed from before to after, by tool name.
func Compare(before, after []Tool) Diff {
	d := Diff{Added: []string{}, Removed: []string{}, Changed: []Change{}}
	old := make(map[string]Tool, len(before))
	for _, t := range before {
		old[t.Name] = t
	}
	now := make(map[string]bool, len(after))
	for _, t := range after {
		now[t.Name] = true
		o, had := old[t.Name]
		if !had {
			d.Added = append(d.Added, t.Name)
			continue
		}
		c := Change{Name: t.Name, InputSchema: !sameJSON(o.InputSchema, t.InputSchema),
			OutputSchema: !sameJSON(o.OutputSchema, t.OutputSchema), Title: o.Title != t.Title,
			Annotations: !sameJSON(o.Annotations, t.Annotations)}
		if o.Description != t.Description {
			c.Description = &DescriptionChange{Before: o.Description, After: t.Description}
		}
		if c.Description != nil || c.InputSchema || c.OutputSchema || c.Title || c.Annotations {
			d.Changed = append(d.Changed, c)
		}
	}
	for _, t := range before {
		if !now[t.Name] {
			d.Removed = append(d.Removed, t.Name)
		}
	}
	slices.Sort(d.Added)
	slices.Sort(d.Removed)
	return d
}

// sameJSON compares two JSON values ignoring member order and whitespace.
func sameJSON(a, b json.RawMessage) bool {
	if bytes.Equal(a, b) {
		return true
	}
	ca, okA := canonical(a)
	cb, okB := canonical(b)
	return okA && okB && bytes.Equal(ca, cb)
}

func canonical(raw json.RawMessage) ([]byte, bool) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, true
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return nil, false
	}
	out, err := json.Marshal(v) // map keys come out sorted
	return out, err == nil
}
