package toolsurface

import (
	"bytes"
	"encoding/json"
	"slices"

	"github.com/mcpwatch/mcpwatch/jsondoc"
)

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

// canonical is the canonical form of a JSON text; nil for an empty one, false for one that
// is not JSON.
func canonical(raw json.RawMessage) ([]byte, bool) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, true
	}
	doc, err := jsondoc.Parse(raw)
	if err != nil {
		return nil, false
	}
	var c Encoder
	return c.Append(nil, doc.Root()), true
}
