package mcpschema

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// Violation is why a document does not match a schema: the most specific constraint it
// breaks. It is the error Validate returns for a document that does not match.
type Violation struct {
	// Pointer is the JSON pointer of the offending value ("" is the whole document).
	Pointer string
	// Keyword is the schema keyword that failed: required, type, const, enum, format, ...
	Keyword string
	// Message says what the keyword expected and what it found.
	Message string
	// More counts the other violations found in the same document.
	More int
}

func (v *Violation) Error() string {
	at := v.Pointer
	if at == "" {
		at = "(root)"
	}
	s := fmt.Sprintf("%s: %s: %s", at, v.Keyword, v.Message)
	if v.More > 0 {
		s += fmt.Sprintf(" (and %d more)", v.More)
	}
	return s
}

// violationOf picks the deepest failing leaf of a jsonschema error tree: the constraint
// nearest to the offending value is the one a person can act on (an anyOf over the envelope
// kinds says little; "/id: type: expected string or integer, but got null" says it all).
func violationOf(ve *jsonschema.ValidationError) *Violation {
	var leaves []*jsonschema.ValidationError
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			leaves = append(leaves, e)
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	best := leaves[0]
	seen := map[string]bool{}
	for _, l := range leaves {
		seen[l.InstanceLocation+"\x00"+l.KeywordLocation] = true
		if depth(l.InstanceLocation) > depth(best.InstanceLocation) {
			best = l
		}
	}
	return &Violation{
		Pointer: plainPointer(best.InstanceLocation),
		Keyword: lastKeyword(best.KeywordLocation),
		Message: best.Message,
		More:    len(seen) - 1,
	}
}

// plainPointer undoes the percent-encoding the library applies to pointer tokens (it writes
// them as URI fragments), so that a member named "a b" reads as /a b, as JSON Pointer has it.
func plainPointer(p string) string {
	if u, err := url.PathUnescape(p); err == nil {
		return u
	}
	return p
}

func depth(pointer string) int { return strings.Count(pointer, "/") }

// lastKeyword is the keyword a keyword location ends in ("/$ref/properties/id/type" -> type).
func lastKeyword(loc string) string {
	i := strings.LastIndexByte(loc, '/')
	if i < 0 || i == len(loc)-1 {
		return "schema"
	}
	return loc[i+1:]
}
