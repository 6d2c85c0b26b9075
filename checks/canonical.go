package checks

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/mcpwatch/mcpwatch/checks/jsondoc"
)

// canonicalizer writes JSON values in one fixed form: object members sorted by name, no
// whitespace, numbers exactly as sent, strings with only the escapes JSON requires. Two
// documents that differ only in member order or spacing come out byte-identical, which is
// what a fingerprint and a verdict cache need. Its scratch space is reused from value to
// value; it is not safe for concurrent use.
type canonicalizer struct {
	members []canonicalMember // a stack: each object being written holds a slice of it
}

type canonicalMember struct {
	name  string
	token string // the name's JSON token when it is already canonical ("" otherwise)
	value jsondoc.Value
}

func (c *canonicalizer) append(b []byte, v jsondoc.Value) []byte {
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
		if v.Plain() {
			// Nothing to escape or replace: the token is its canonical form.
			return append(b, v.Text()...)
		}
		return appendJSONString(b, v.Str())
	case jsondoc.Array:
		b = append(b, '[')
		for i, e := range v.Elements() {
			if i > 0 {
				b = append(b, ',')
			}
			b = c.append(b, e)
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
		if m.token != "" {
			b = append(b, m.token...)
		} else {
			b = appendJSONString(b, m.name)
		}
		b = append(b, ':')
		b = c.append(b, m.value) // pushes and pops above this object's members
	}
	clear(c.members[base:])
	c.members = c.members[:base]
	return append(b, '}')
}

func appendJSONString(b []byte, s string) []byte {
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
