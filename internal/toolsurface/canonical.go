package toolsurface

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/mcpwatch/mcpwatch/jsondoc"
)

// Encoder writes JSON values in one fixed form: object members sorted by name (a member
// given twice keeps its last value), no whitespace, numbers exactly as sent, strings with
// only the escapes JSON requires. Two documents that differ only in member order or spacing
// come out byte-identical, which is what a fingerprint and a verdict cache need. Its scratch
// space is reused from value to value; it is not safe for concurrent use. The zero Encoder
// is ready to use.
type Encoder struct {
	members []canonicalMember // a stack: each object being written holds a slice of it
	// goEscapes writes strings as encoding/json does (\n, \t, \u2028, ...) instead of with
	// \u00XX for every control character: the schema hashes drift keeps were first computed
	// that way and are stored, so they keep that form.
	goEscapes bool
}

type canonicalMember struct {
	name  string
	token string // the name's JSON token when it is already canonical ("" otherwise)
	value jsondoc.Value
}

// Append appends the canonical form of v to b.
func (c *Encoder) Append(b []byte, v jsondoc.Value) []byte {
	switch v.Kind() {
	case jsondoc.Null, jsondoc.Missing:
		return append(b, "null"...)
	case jsondoc.True:
		return append(b, "true"...)
	case jsondoc.False:
		return append(b, "false"...)
	case jsondoc.Number:
		return append(b, v.Text()...)
	case jsondoc.String:
		if c.goEscapes {
			return appendGoString(b, v.Str())
		}
		if v.Plain() {
			// Nothing to escape or replace: the token is its canonical form.
			return append(b, v.Text()...)
		}
		return AppendString(b, v.Str())
	case jsondoc.Array:
		b = append(b, '[')
		for i, e := range v.Elements() {
			if i > 0 {
				b = append(b, ',')
			}
			b = c.Append(b, e)
		}
		return append(b, ']')
	}
	base := len(c.members)
	for name, m := range v.MemberNames() {
		cm := canonicalMember{name: name.Str(), value: m}
		if name.Plain() {
			cm.token = name.Text()
		}
		c.members = append(c.members, cm)
	}
	slices.SortFunc(c.members[base:], func(x, y canonicalMember) int { return strings.Compare(x.name, y.name) })
	b = append(b, '{')
	for i := base; i < len(c.members); i++ {
		if i > base {
			b = append(b, ',')
		}
		// Read the member afresh: writing the one before may have grown the stack.
		m := c.members[i]
		switch {
		case c.goEscapes:
			b = appendGoString(b, m.name)
		case m.token != "":
			b = append(b, m.token...)
		default:
			b = AppendString(b, m.name)
		}
		b = append(b, ':')
		b = c.Append(b, m.value) // pushes and pops above this object's members
	}
	clear(c.members[base:])
	c.members = c.members[:base]
	return append(b, '}')
}

// AppendString appends s as a JSON string in canonical form: only '"', '\\' and control
// characters escaped, the latter as \u00XX; invalid UTF-8 as \ufffd.
func AppendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
			i++
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			i++
		case c < utf8.RuneSelf:
			b = append(b, c)
			i++
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				b = append(b, `\ufffd`...)
			} else {
				b = append(b, s[i:i+size]...)
			}
			i += size
		}
	}
	return append(b, '"')
}

// appendGoString appends s as a JSON string the way encoding/json writes it with HTML
// escaping off: \b \f \n \r \t for those control characters, \u00XX for the others,
// U+2028 and U+2029 escaped, invalid UTF-8 as \ufffd.
func appendGoString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\b':
				b = append(b, '\\', 'b')
			case c == '\f':
				b = append(b, '\\', 'f')
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c < 0x20:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			default:
				b = append(b, c)
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
		default:
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}
