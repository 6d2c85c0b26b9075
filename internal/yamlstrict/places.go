package yamlstrict

import (
	"strings"

	"go.yaml.in/yaml/v3"
)

// Pos is a place in the file: line and column, from 1.
type Pos struct{ Line, Column int }

func pos(n *yaml.Node) Pos { return Pos{n.Line, n.Column} }

// Place is where a field was read: its key, its value, and its path as the file spells it.
// (A list item's key is the item.)
type Place struct {
	Key, Value Pos
	Written    string
}

// Places maps the canonical path of every field read (servers[0].headers.X-Key.from-env) to
// its place.
type Places map[string]Place

// Of is the place of the field at path or, for a field the file left out, of the nearest
// enclosing field it has, with the path of the field as the file would spell it.
func (p Places) Of(path string) Place {
	for at := path; ; {
		if place, ok := p[at]; ok {
			if place.Written == "" {
				place.Written = path // the document: the path is the whole of it
			} else {
				place.Written += path[len(at):]
			}
			return place
		}
		if at == "" {
			return Place{Written: path}
		}
		at = at[:max(strings.LastIndexAny(at, ".["), 0)]
	}
}
