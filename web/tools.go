package web

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/mcpwatch/mcpwatch/internal/textclip"
	"github.com/mcpwatch/mcpwatch/internal/toolsurface"
)

// toolParam is one property of a tool's input schema, as the tools table lists it.
type toolParam struct {
	Name     string
	Type     string
	Required bool
}

// maxToolsShown bounds the tools a page lists: a server may list thousands.
const maxToolsShown = 500

// maxParamsShown bounds the parameters listed per tool.
const maxParamsShown = 30

// paramsOf lists the properties of an input schema, required ones first.
func paramsOf(schema json.RawMessage) []toolParam {
	var s struct {
		Properties map[string]struct {
			Type any `json:"type"`
		} `json:"properties"`
		Required []any `json:"required"`
	}
	if json.Unmarshal(schema, &s) != nil {
		return nil
	}
	required := map[string]bool{}
	for _, r := range s.Required {
		if name, ok := r.(string); ok {
			required[name] = true
		}
	}
	var out []toolParam
	for name, p := range s.Properties {
		out = append(out, toolParam{Name: textclip.Runes(name, 60), Type: textclip.Runes(typeName(p.Type), 40), Required: required[name]})
	}
	slices.SortFunc(out, func(a, b toolParam) int {
		if a.Required != b.Required {
			return rankFirst(a.Required) - rankFirst(b.Required)
		}
		return strings.Compare(a.Name, b.Name)
	})
	if len(out) > maxParamsShown {
		out = out[:maxParamsShown]
	}
	return out
}

// typeName renders a JSON Schema type: "string", or "string|null" for a list.
func typeName(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case []any:
		var parts []string
		for _, p := range t {
			if s, ok := p.(string); ok {
				parts = append(parts, s)
			}
		}
		return strings.Join(parts, "|")
	}
	return ""
}

// changedParts says what changed about a tool: "description, input schema".
func changedParts(c toolsurface.Change) string {
	var parts []string
	if c.Description != nil {
		parts = append(parts, "description")
	}
	if c.Title {
		parts = append(parts, "title")
	}
	if c.InputSchema {
		parts = append(parts, "input schema")
	}
	if c.OutputSchema {
		parts = append(parts, "output schema")
	}
	if c.Annotations {
		parts = append(parts, "annotations")
	}
	return strings.Join(parts, ", ")
}
