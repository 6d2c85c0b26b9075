package mcpschema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode/utf16"
	"unicode/utf8"
)

// Decode parses one JSON value the way jsonschema expects it: objects as map[string]any,
// arrays as []any, numbers as json.Number (so that 1.0 and 10000000000000000001 keep their
// exact text), strings, booleans and nil. Trailing data is an error.
//
// The result is what encoding/json's Decoder with UseNumber gives, byte for byte (strings
// with invalid UTF-8 or lone surrogates get U+FFFD the same way, a repeated member keeps
// its last value), but it is built in one pass with a fraction of the allocations: every
// tools/list page and every tool schema of a probe goes through here.
func Decode(raw []byte) (any, error) {
	d := decoder{text: string(raw)}
	d.ws()
	v, ok := d.value(0)
	if ok {
		d.ws()
		if d.i == len(d.text) {
			return v, nil
		}
	}
	// Ask encoding/json why, so that the error says what it always said.
	return nil, decodeError(raw)
}

// decodeError is encoding/json's account of why raw is not one JSON value.
func decodeError(raw []byte) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return fmt.Errorf("%w: %v", ErrNotJSON, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return fmt.Errorf("%w: data after the first value", ErrNotJSON)
	}
	// Only a deeper nesting than maxDecodeDepth gets here.
	return fmt.Errorf("%w: nested too deeply", ErrNotJSON)
}

// maxDecodeDepth is encoding/json's nesting limit: deeper documents are errors there too.
const maxDecodeDepth = 10000

// decoder reads a document held as one string: a member name or string value without
// escapes is a substring of it, so that decoding allocates the maps and slices and little
// else.
type decoder struct {
	text string
	i    int
	// members and elements are scratch stacks shared by every level of nesting: an object's
	// members are gathered there and moved into a map of the exact size at its end.
	members  []member
	elements []any
}

type member struct {
	name  string
	value any
}

func (d *decoder) ws() {
	for d.i < len(d.text) {
		switch d.text[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

func (d *decoder) value(depth int) (any, bool) {
	if d.i >= len(d.text) {
		return nil, false
	}
	switch c := d.text[d.i]; {
	case c == '{':
		return d.object(depth + 1)
	case c == '[':
		return d.array(depth + 1)
	case c == '"':
		s, ok := d.str()
		return s, ok
	case c == 't':
		return true, d.word("true")
	case c == 'f':
		return false, d.word("false")
	case c == 'n':
		return nil, d.word("null")
	case c == '-' || (c >= '0' && c <= '9'):
		return d.number()
	}
	return nil, false
}

func (d *decoder) word(w string) bool {
	if len(d.text)-d.i < len(w) || d.text[d.i:d.i+len(w)] != w {
		return false
	}
	d.i += len(w)
	return true
}

func (d *decoder) object(depth int) (any, bool) {
	if depth > maxDecodeDepth {
		return nil, false
	}
	d.i++ // {
	base := len(d.members)
	d.ws()
	if d.i < len(d.text) && d.text[d.i] == '}' {
		d.i++
		return map[string]any{}, true
	}
	for {
		d.ws()
		if d.i >= len(d.text) || d.text[d.i] != '"' {
			return nil, false
		}
		name, ok := d.str()
		if !ok {
			return nil, false
		}
		d.ws()
		if d.i >= len(d.text) || d.text[d.i] != ':' {
			return nil, false
		}
		d.i++
		d.ws()
		v, ok := d.value(depth)
		if !ok {
			return nil, false
		}
		d.members = append(d.members, member{name: name, value: v})
		d.ws()
		if d.i >= len(d.text) {
			return nil, false
		}
		switch d.text[d.i] {
		case ',':
			d.i++
			continue
		case '}':
			d.i++
		default:
			return nil, false
		}
		break
	}
	ms := d.members[base:]
	m := make(map[string]any, len(ms))
	for _, kv := range ms {
		m[kv.name] = kv.value // a repeated name keeps its last value, as encoding/json does
	}
	clear(ms) // let the scratch stack drop its references
	d.members = d.members[:base]
	return m, true
}

func (d *decoder) array(depth int) (any, bool) {
	if depth > maxDecodeDepth {
		return nil, false
	}
	d.i++ // [
	base := len(d.elements)
	d.ws()
	if d.i < len(d.text) && d.text[d.i] == ']' {
		d.i++
		return []any{}, true
	}
	for {
		d.ws()
		v, ok := d.value(depth)
		if !ok {
			return nil, false
		}
		d.elements = append(d.elements, v)
		d.ws()
		if d.i >= len(d.text) {
			return nil, false
		}
		switch d.text[d.i] {
		case ',':
			d.i++
			continue
		case ']':
			d.i++
		default:
			return nil, false
		}
		break
	}
	es := d.elements[base:]
	a := make([]any, len(es))
	copy(a, es)
	clear(es)
	d.elements = d.elements[:base]
	return a, true
}

// number scans -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? and keeps its text.
func (d *decoder) number() (any, bool) {
	s, i := d.text, d.i
	start := i
	if s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && s[i] >= '1' && s[i] <= '9':
		for i < len(s) && isDigit(s[i]) {
			i++
		}
	default:
		return nil, false
	}
	if i < len(s) && s[i] == '.' {
		i++
		from := i
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		if i == from {
			return nil, false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		from := i
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		if i == from {
			return nil, false
		}
	}
	d.i = i
	return json.Number(s[start:i]), true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// str reads a string token. One without escapes or bytes that need replacing is a
// substring of the document.
func (d *decoder) str() (string, bool) {
	s := d.text
	i := d.i + 1
	for i < len(s) {
		c := s[i]
		switch {
		case c == '"':
			v := s[d.i+1 : i]
			d.i = i + 1
			return v, true
		case c == '\\' || c >= utf8.RuneSelf:
			return d.strSlow()
		case c < 0x20:
			return "", false
		}
		i++
	}
	return "", false
}

// strSlow decodes a string with escapes or non-ASCII bytes the way encoding/json does:
// invalid UTF-8 becomes U+FFFD byte by byte, and a \u surrogate that does not pair becomes
// U+FFFD.
func (d *decoder) strSlow() (string, bool) {
	s := d.text
	i := d.i + 1
	var b []byte
	for i < len(s) {
		c := s[i]
		switch {
		case c == '"':
			d.i = i + 1
			return string(b), true
		case c == '\\':
			if i+1 >= len(s) {
				return "", false
			}
			switch e := s[i+1]; e {
			case '"', '\\', '/':
				b = append(b, e)
				i += 2
			case 'b':
				b = append(b, '\b')
				i += 2
			case 'f':
				b = append(b, '\f')
				i += 2
			case 'n':
				b = append(b, '\n')
				i += 2
			case 'r':
				b = append(b, '\r')
				i += 2
			case 't':
				b = append(b, '\t')
				i += 2
			case 'u':
				r, ok := hex4(s, i+2)
				if !ok {
					return "", false
				}
				i += 6
				if utf16.IsSurrogate(r) {
					// A following \u escape completes the pair only when it decodes to a
					// rune; otherwise it is left to be read on its own.
					if r2, ok := escapedRune(s, i); ok {
						if pair := utf16.DecodeRune(r, r2); pair != utf8.RuneError {
							b = utf8.AppendRune(b, pair)
							i += 6
							continue
						}
					}
					r = utf8.RuneError
				}
				b = utf8.AppendRune(b, r)
			default:
				return "", false
			}
		case c < 0x20:
			return "", false
		case c < utf8.RuneSelf:
			b = append(b, c)
			i++
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				b = utf8.AppendRune(b, utf8.RuneError)
			} else {
				b = append(b, s[i:i+size]...)
			}
			i += size
		}
	}
	return "", false
}

// escapedRune reads a \uXXXX escape at s[i:].
func escapedRune(s string, i int) (rune, bool) {
	if i+1 >= len(s) || s[i] != '\\' || s[i+1] != 'u' {
		return 0, false
	}
	return hex4(s, i+2)
}

func hex4(s string, i int) (rune, bool) {
	if i+4 > len(s) {
		return 0, false
	}
	var r rune
	for _, c := range []byte(s[i : i+4]) {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}
