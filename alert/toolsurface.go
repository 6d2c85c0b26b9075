package alert

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
	"unicode/utf8"
)

// ToolSurface is the set of tools a server lists, by name.
type ToolSurface struct {
	Tools []Tool `json:"tools"`
}

// Tool is one listed tool as drift sees it.
type Tool struct {
	Name string `json:"name"`
	// Description is the tool's description (kept to maxDescriptionBytes, for the message).
	Description string `json:"description"`
	// DescriptionHash is the hex SHA-256 of the whole description; NewToolSurface fills it.
	DescriptionHash string `json:"descriptionHash"`
	// SchemaHash is any stable hash of the tool's inputSchema and outputSchema: equal
	// schemas must hash equal, whatever their member order or spacing (SchemaHash does that).
	SchemaHash string `json:"schemaHash"`
}

// Bounds on what drift keeps of a surface: a hostile server can list thousands of tools with
// megabyte descriptions, and the memory of every server is written to the database.
const (
	maxSurfaceTools     = 2000
	maxDescriptionBytes = 2000
	maxToolNameBytes    = 256
)

// NewToolSurface makes a surface of tools given with Name, Description and SchemaHash: it
// hashes and clips the descriptions, sorts by name and keeps the first tool of a name listed
// twice.
func NewToolSurface(tools []Tool) *ToolSurface {
	out := make([]Tool, 0, min(len(tools), maxSurfaceTools))
	seen := map[string]bool{}
	for _, t := range tools {
		t.Name = clip(t.Name, maxToolNameBytes)
		if seen[t.Name] || len(out) == maxSurfaceTools {
			continue
		}
		seen[t.Name] = true
		if t.DescriptionHash == "" {
			sum := sha256.Sum256([]byte(t.Description))
			t.DescriptionHash = hex.EncodeToString(sum[:])
		}
		t.Description = clip(t.Description, maxDescriptionBytes)
		out = append(out, t)
	}
	slices.SortFunc(out, func(a, b Tool) int { return strings.Compare(a.Name, b.Name) })
	return &ToolSurface{Tools: out}
}

// toolChange is a tool listed before and now, with what changed.
type toolChange struct {
	Name                string
	Before, After       Tool
	Description, Schema bool
}

// surfaceDiff is what changed between two surfaces.
type surfaceDiff struct {
	Added, Removed []Tool
	Changed        []toolChange
}

func (d surfaceDiff) empty() bool {
	return len(d.Added) == 0 && len(d.Removed) == 0 && len(d.Changed) == 0
}

// diffSurfaces compares two surfaces sorted by name.
func diffSurfaces(before, after *ToolSurface) surfaceDiff {
	var d surfaceDiff
	i, j := 0, 0
	for i < len(before.Tools) || j < len(after.Tools) {
		switch {
		case j == len(after.Tools) || (i < len(before.Tools) && before.Tools[i].Name < after.Tools[j].Name):
			d.Removed = append(d.Removed, before.Tools[i])
			i++
		case i == len(before.Tools) || after.Tools[j].Name < before.Tools[i].Name:
			d.Added = append(d.Added, after.Tools[j])
			j++
		default:
			b, a := before.Tools[i], after.Tools[j]
			c := toolChange{Name: a.Name, Before: b, After: a,
				Description: b.DescriptionHash != a.DescriptionHash, Schema: b.SchemaHash != a.SchemaHash}
			if c.Description || c.Schema {
				d.Changed = append(d.Changed, c)
			}
			i++
			j++
		}
	}
	return d
}

// Bounds of a description diff in a message.
const (
	diffContext = 40  // unchanged characters shown on each side
	diffSpan    = 160 // removed or added characters shown
)

// shortDiff shows how before became after in one line: the unchanged text around the change
// trimmed to diffContext characters, the removed text as [-…-] and the added as {+…+}.
func shortDiff(before, after string) string {
	b, a := []rune(before), []rune(after)
	p := 0
	for p < len(b) && p < len(a) && b[p] == a[p] {
		p++
	}
	s := 0
	for s < len(b)-p && s < len(a)-p && b[len(b)-1-s] == a[len(a)-1-s] {
		s++
	}
	var out strings.Builder
	head := b[:p]
	if len(head) > diffContext {
		out.WriteString("…")
		head = head[len(head)-diffContext:]
	}
	out.WriteString(string(head))
	if del := b[p : len(b)-s]; len(del) > 0 {
		out.WriteString("[-" + clipRunes(del, diffSpan) + "-]")
	}
	if ins := a[p : len(a)-s]; len(ins) > 0 {
		out.WriteString("{+" + clipRunes(ins, diffSpan) + "+}")
	}
	tail := b[len(b)-s:]
	if len(tail) > diffContext {
		out.WriteString(string(tail[:diffContext]) + "…")
	} else {
		out.WriteString(string(tail))
	}
	return out.String()
}

func clipRunes(r []rune, n int) string {
	if len(r) <= n {
		return string(r)
	}
	return string(r[:n]) + "…"
}

// clip cuts s to at most n bytes at a character boundary, making it valid UTF-8 without NUL:
// what a probed server says ends up in jsonb, which refuses both.
func clip(s string, n int) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	if strings.IndexByte(s, 0) >= 0 {
		s = strings.ReplaceAll(s, "\x00", "\uFFFD")
	}
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}
