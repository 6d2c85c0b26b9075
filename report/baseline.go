package report

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/mcpwatch/mcpwatch/internal/textclip"
)

// A baseline is a YAML list of accepted failures, so that a team adopting the prober on a
// server that already fails some checks can gate on new failures only:
//
//	- check: lifecycle.ping
//	  reason: the SDK answers ping with {"ok":true}; fixed upstream in 1.4
//	- check: tools.name-format
//	  tool: "legacy tool"
//	- jsonrpc.null-id          # a bare id is an entry without tool or reason
//
// An entry without tool accepts every failure of the check; with a tool it accepts only the
// failures about that tool, so a new badly named tool still fails the run.

// maxBaselineBytes bounds the file read: a baseline lists tens of entries.
const maxBaselineBytes = 1 << 20

// Baseline is a parsed baseline file.
type Baseline struct {
	// File is the path the baseline was read from (for messages and the report).
	File    string
	Entries []BaselineEntry
}

// BaselineEntry is one accepted failure.
type BaselineEntry struct {
	Check  string `json:"check"`
	Tool   string `json:"tool,omitempty"`
	Reason string `json:"reason,omitempty"`
	// Line is where the entry starts in the file (0 for entries not read from one).
	Line int `json:"line,omitempty"`
}

// BaselineUse is what the report says about the baseline it was judged with.
type BaselineUse struct {
	File    string `json:"file"`
	Entries int    `json:"entries"`
	// Stale lists the entries whose check ran and no longer fails or warns the way the entry
	// accepts: they can be removed (entries for checks that did not run are never stale).
	Stale []BaselineEntry `json:"stale"`
}

// LoadBaseline reads and parses a baseline file. known reports whether a check id exists: an
// entry naming no check is an error, so a typo cannot accept nothing silently.
func LoadBaseline(path string, known func(id string) bool) (*Baseline, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("baseline: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxBaselineBytes+1))
	if err != nil {
		return nil, fmt.Errorf("baseline %s: %w", path, err)
	}
	if len(data) > maxBaselineBytes {
		return nil, fmt.Errorf("baseline %s: larger than %d bytes", path, maxBaselineBytes)
	}
	return ParseBaseline(path, data, known)
}

// ParseBaseline parses a baseline; name is used in error messages, which name the line.
func ParseBaseline(name string, data []byte, known func(id string) bool) (*Baseline, error) {
	b := &Baseline{File: name}
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return b, nil // an empty file accepts nothing
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s:%d: a second YAML document; a baseline is one list", name, extra.Line)
	}
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return b, nil
	}
	if root.Kind != yaml.SequenceNode {
		return nil, fmt.Errorf("%s:%d: want a list of entries (- check: ID), got %s", name, root.Line, nodeKind(root))
	}
	seen := map[string]int{}
	for i, item := range root.Content {
		e, err := baselineEntry(item, known)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: entry %d: %w", name, item.Line, i+1, err)
		}
		key := e.Check + "\x00" + e.Tool
		if line, dup := seen[key]; dup {
			return nil, fmt.Errorf("%s:%d: entry %d repeats the entry on line %d", name, item.Line, i+1, line)
		}
		seen[key] = e.Line
		b.Entries = append(b.Entries, e)
	}
	return b, nil
}

func baselineEntry(n *yaml.Node, known func(string) bool) (BaselineEntry, error) {
	e := BaselineEntry{Line: n.Line}
	switch n.Kind {
	case yaml.ScalarNode:
		e.Check = n.Value
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Kind != yaml.ScalarNode {
				return e, fmt.Errorf("line %d: a key must be a word (check, tool or reason)", k.Line)
			}
			if v.Kind != yaml.ScalarNode || v.Tag == "!!null" {
				return e, fmt.Errorf("line %d: %s must be a string, got %s", v.Line, k.Value, nodeKind(v))
			}
			switch k.Value {
			case "check":
				e.Check = v.Value
			case "tool":
				e.Tool = v.Value
			case "reason":
				e.Reason = v.Value
			default:
				return e, fmt.Errorf("line %d: unknown key %q (want check, tool or reason)", k.Line, k.Value)
			}
		}
	default:
		return e, fmt.Errorf("want a check id or a mapping with check, tool and reason, got %s", nodeKind(n))
	}
	e.Check = strings.TrimSpace(e.Check)
	switch {
	case e.Check == "":
		return e, errors.New("no check id (want check: ID)")
	case strings.Contains(e.Check, "*"):
		return e, fmt.Errorf("check %q: a baseline accepts the failures of one check; name it exactly", e.Check)
	case known != nil && !known(e.Check):
		return e, fmt.Errorf("no check has the id %q", e.Check)
	}
	return e, nil
}

func nodeKind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a mapping"
	case yaml.AliasNode:
		return "an alias"
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return "nothing"
		}
		return fmt.Sprintf("the value %q", textclip.Bytes(n.Value, 60))
	}
	return "something else"
}
