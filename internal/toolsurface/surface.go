package toolsurface

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strings"

	"github.com/mcpwatch/mcpwatch/internal/textclip"
	"github.com/mcpwatch/mcpwatch/jsondoc"
)

// Surface is what drift remembers of a server's tool list from one run to the next: each
// tool by name, with hashes of what may change. Alert memories store it as JSON.
type Surface struct {
	Tools []Entry `json:"tools"`
}

// Entry is one tool of a Surface.
type Entry struct {
	Name string `json:"name"`
	// Description is the tool's description (kept to MaxDescriptionBytes, for the message).
	Description string `json:"description"`
	// DescriptionHash is the hex SHA-256 of the whole description; NewSurface fills it.
	DescriptionHash string `json:"descriptionHash"`
	// SchemaHash is any stable hash of the tool's inputSchema and outputSchema: equal
	// schemas must hash equal, whatever their member order or spacing (SchemaHash does that).
	SchemaHash string `json:"schemaHash"`
}

// Bounds on what a Surface keeps: a hostile server can list thousands of tools with megabyte
// descriptions, and the memory of every server is written to the database.
const (
	MaxDescriptionBytes = 2000
	maxToolNameBytes    = 256
)

// NewSurface makes a surface of tools given with Name, Description and SchemaHash: it hashes
// and clips the descriptions, sorts by name and keeps the first tool of a name listed twice,
// and at most MaxTools.
func NewSurface(tools []Entry) *Surface {
	out := make([]Entry, 0, min(len(tools), MaxTools))
	seen := map[string]bool{}
	for _, t := range tools {
		t.Name = textclip.Storable(t.Name, maxToolNameBytes)
		if seen[t.Name] || len(out) == MaxTools {
			continue
		}
		seen[t.Name] = true
		if t.DescriptionHash == "" {
			sum := sha256.Sum256([]byte(t.Description))
			t.DescriptionHash = hex.EncodeToString(sum[:])
		}
		t.Description = textclip.Storable(t.Description, MaxDescriptionBytes)
		out = append(out, t)
	}
	slices.SortFunc(out, func(a, b Entry) int { return strings.Compare(a.Name, b.Name) })
	return &Surface{Tools: out}
}

// SchemaHash hashes a tool's input and output schemas (either may be nil) in a canonical form:
// member order and spacing do not change it, any change of content does. Text that is not
// JSON is hashed as it is.
func SchemaHash(input, output json.RawMessage) string {
	var c Encoder
	c.goEscapes = true
	h := sha256.New()
	h.Write([]byte("in:"))
	h.Write(c.appendRaw(nil, input))
	h.Write([]byte("\nout:"))
	h.Write(c.appendRaw(nil, output))
	return hex.EncodeToString(h.Sum(nil))
}

// appendRaw appends the canonical form of a JSON text, or the text itself when it is not one
// JSON value (nothing for an empty text).
func (c *Encoder) appendRaw(b []byte, raw json.RawMessage) []byte {
	if len(raw) == 0 {
		return b
	}
	doc, err := jsondoc.Parse(raw)
	if err != nil {
		return append(b, raw...)
	}
	return c.Append(b, doc.Root())
}

// ChangedEntry is a tool listed before and now, with what changed.
type ChangedEntry struct {
	Name                string
	Before, After       Entry
	Description, Schema bool
}

// SurfaceDiff is what changed between two surfaces.
type SurfaceDiff struct {
	Added, Removed []Entry
	Changed        []ChangedEntry
}

// Empty reports whether nothing changed.
func (d SurfaceDiff) Empty() bool {
	return len(d.Added) == 0 && len(d.Removed) == 0 && len(d.Changed) == 0
}

// DiffSurfaces compares two surfaces sorted by name (as NewSurface makes them).
func DiffSurfaces(before, after *Surface) SurfaceDiff {
	var d SurfaceDiff
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
			c := ChangedEntry{Name: a.Name, Before: b, After: a,
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
