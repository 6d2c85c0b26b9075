package jsondoc

import (
	"encoding/json"
	"fmt"
	"math"
	"unicode/utf16"
	"unicode/utf8"
)

// MaxDepth is encoding/json's nesting limit; deeper documents are errors.
const MaxDepth = 10000

// Parse reads raw as exactly one JSON value (surrounding whitespace allowed). The document
// keeps a copy of raw.
func Parse(raw []byte) (*Doc, error) { return ParseString(string(raw)) }

// ParseString is Parse for text already held as a string, which the document then shares.
func ParseString(text string) (*Doc, error) {
	if len(text) >= math.MaxInt32 {
		return nil, fmt.Errorf("%w: %d bytes is too large", ErrSyntax, len(text))
	}
	p := parser{text: text}
	// About one node per ten bytes of typical JSON; append grows it when there are more.
	p.nodes = make([]node, 0, len(text)/8+1)
	p.ws()
	if !p.value(0) {
		return nil, fmt.Errorf("%w: invalid syntax at byte %d", ErrSyntax, p.i)
	}
	p.ws()
	if p.i != len(p.text) {
		return nil, fmt.Errorf("%w: data after the value at byte %d", ErrSyntax, p.i)
	}
	return &Doc{text: p.text, nodes: p.nodes}, nil
}

type parser struct {
	text  string
	i     int
	nodes []node
	// seen finds repeated member names in large objects (small ones are compared pair by
	// pair); reused from object to object.
	seen map[string]int32
}

func (p *parser) ws() { p.i = skipSpace(p.text, p.i) }

func (p *parser) add(k Kind, start int) int32 {
	p.nodes = append(p.nodes, node{kind: k, start: int32(start)})
	return int32(len(p.nodes) - 1)
}

// leaf adds a value without contents ending at the current position.
func (p *parser) leaf(k Kind, start int) {
	i := p.add(k, start)
	p.nodes[i].end = int32(p.i)
	p.nodes[i].next = i + 1
}

func (p *parser) value(depth int) bool {
	if p.i >= len(p.text) {
		return false
	}
	start := p.i
	switch c := p.text[p.i]; {
	case c == '{':
		return p.object(depth + 1)
	case c == '[':
		return p.array(depth + 1)
	case c == '"':
		return p.str()
	case c == 't':
		if !p.word("true") {
			return false
		}
		p.leaf(True, start)
	case c == 'f':
		if !p.word("false") {
			return false
		}
		p.leaf(False, start)
	case c == 'n':
		if !p.word("null") {
			return false
		}
		p.leaf(Null, start)
	case c == '-' || (c >= '0' && c <= '9'):
		if !p.number() {
			return false
		}
		p.leaf(Number, start)
	default:
		return false
	}
	return true
}

func (p *parser) word(w string) bool {
	end := scanLiteral(p.text, p.i, w)
	if end < 0 {
		return false
	}
	p.i = end
	return true
}

func (p *parser) object(depth int) bool {
	if depth > MaxDepth {
		return false
	}
	obj := p.add(Object, p.i)
	p.i++ // {
	p.ws()
	members := int32(0)
	if p.i < len(p.text) && p.text[p.i] == '}' {
		p.i++
	} else {
		for {
			p.ws()
			if p.i >= len(p.text) || p.text[p.i] != '"' || !p.str() {
				return false
			}
			p.ws()
			if p.i >= len(p.text) || p.text[p.i] != ':' {
				return false
			}
			p.i++
			p.ws()
			if !p.value(depth) {
				return false
			}
			members++
			more, ok := p.next('}')
			if !ok {
				return false
			}
			if !more {
				break
			}
		}
	}
	n := &p.nodes[obj]
	n.end, n.next = int32(p.i), int32(len(p.nodes))
	n.count = members - p.shadowRepeats(obj, members)
	return true
}

// shadowRepeats marks the members of object obj whose name a later member repeats, and
// returns how many it marked.
func (p *parser) shadowRepeats(obj, members int32) int32 {
	if members < 2 {
		return 0
	}
	d := Doc{text: p.text, nodes: p.nodes}
	end := p.nodes[obj].next
	marked := int32(0)
	if members <= 16 {
		for j := obj + 1; j < end; j = p.nodes[j+1].next {
			for k := p.nodes[j+1].next; k < end; k = p.nodes[k+1].next {
				if sameName(&d, j, k) {
					p.nodes[j].flags |= shadowed
					marked++
					break
				}
			}
		}
		return marked
	}
	if p.seen == nil {
		p.seen = map[string]int32{}
	}
	clear(p.seen)
	for j := obj + 1; j < end; j = p.nodes[j+1].next {
		name := d.str(j)
		if prev, ok := p.seen[name]; ok {
			p.nodes[prev].flags |= shadowed
			marked++
		}
		p.seen[name] = j
	}
	return marked
}

func sameName(d *Doc, a, b int32) bool {
	na, nb := &d.nodes[a], &d.nodes[b]
	if na.flags&escaped == 0 && nb.flags&escaped == 0 {
		return d.text[na.start:na.end] == d.text[nb.start:nb.end]
	}
	return d.str(a) == d.str(b)
}

func (p *parser) array(depth int) bool {
	if depth > MaxDepth {
		return false
	}
	arr := p.add(Array, p.i)
	p.i++ // [
	p.ws()
	elements := int32(0)
	if p.i < len(p.text) && p.text[p.i] == ']' {
		p.i++
	} else {
		for {
			p.ws()
			if !p.value(depth) {
				return false
			}
			elements++
			more, ok := p.next(']')
			if !ok {
				return false
			}
			if !more {
				break
			}
		}
	}
	n := &p.nodes[arr]
	n.end, n.next, n.count = int32(p.i), int32(len(p.nodes)), elements
	return true
}

func (p *parser) number() bool {
	end := scanNumber(p.text, p.i)
	if end < 0 {
		return false
	}
	p.i = end
	return true
}

// str scans a string token and adds its node, flagged escaped when its content is not the
// text between its quotes: escapes, or invalid UTF-8 to replace.
func (p *parser) str() bool {
	start := p.i
	end, holds := scanString(p.text, p.i)
	if end < 0 {
		return false
	}
	p.i = end
	flags := uint8(0)
	if holds&hasEscape != 0 || (holds&hasNonASCII != 0 && !utf8.ValidString(p.text[start+1:end-1])) {
		flags = escaped
	}
	n := p.add(String, start)
	p.nodes[n].end, p.nodes[n].next, p.nodes[n].flags = int32(end), n+1, flags
	return true
}

// unquote decodes the content of a string token already scanned, the way encoding/json
// does: invalid UTF-8 becomes U+FFFD byte by byte, and a \u surrogate that does not pair
// with the escape after it becomes U+FFFD.
func unquote(s string) string {
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\\':
			switch e := s[i+1]; e {
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				r, _ := hex4(s, i+2)
				i += 6
				if utf16.IsSurrogate(r) {
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
				continue
			default: // " \ /
				b = append(b, e)
			}
			i += 2
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
	return string(b)
}

// escapedRune reads a \uXXXX escape at s[i:].
func escapedRune(s string, i int) (rune, bool) {
	if i+1 >= len(s) || s[i] != '\\' || s[i+1] != 'u' {
		return 0, false
	}
	return hex4(s, i+2)
}

func numberOf(text string) json.Number { return json.Number(text) }

// next reads what follows a member or an element: a comma (more follow) or the closing
// bracket of the container (none do). ok is false for anything else.
func (p *parser) next(closing byte) (more, ok bool) {
	p.ws()
	if p.i >= len(p.text) {
		return false, false
	}
	switch p.text[p.i] {
	case ',':
		p.i++
		return true, true
	case closing:
		p.i++
		return false, true
	}
	return false, false
}
