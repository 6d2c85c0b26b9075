package checks

import (
	"bytes"
	"encoding/json"
)

// maxScanDepth is encoding/json's nesting limit: a document is valid here exactly when
// json.Valid says so.
const maxScanDepth = 10000

// scanObject validates raw (valid UTF-8, without surrounding whitespace) as exactly one JSON
// object and returns its members as sub-slices of raw, in one pass and without reflection.
// ok is false for anything json.Valid rejects or that is not an object; the caller asks
// encoding/json why. A name given twice keeps its last value, as encoding/json does.
func scanObject(raw []byte) (members map[string]json.RawMessage, ok bool) {
	members = make(map[string]json.RawMessage, 4)
	ok = scanMembers(raw, func(name []byte, value json.RawMessage) {
		members[memberName(name)] = value
	})
	if !ok {
		return nil, false
	}
	return members, true
}

// scanMembers is scanObject without the map: it calls visit with each member's name token
// (quotes included, escapes undecoded) and value, in order, and reports whether raw is
// exactly one JSON object. Every message of a probe goes through here once, tools/list
// results of many kilobytes among them, and encoding/json would read each of those bytes
// three times (json.Valid, then Unmarshal's own validation, then the decode). visit may run
// before a later byte turns out to be invalid: callers use what it saw only when ok.
func scanMembers(raw []byte, visit func(name []byte, value json.RawMessage)) bool {
	s := jsonScanner{b: raw}
	if len(raw) == 0 || raw[0] != '{' {
		return false
	}
	s.i = 1
	s.ws()
	if s.at('}') {
		s.i++
		return s.i == len(raw)
	}
	for {
		s.ws()
		nameStart := s.i
		if !s.at('"') || !s.str() {
			return false
		}
		name := raw[nameStart:s.i]
		s.ws()
		if !s.at(':') {
			return false
		}
		s.i++
		s.ws()
		valueStart := s.i
		if !s.value(1) {
			return false
		}
		// Capacity-limited, so that no append to a member can write into the frame's bytes.
		visit(name, raw[valueStart:s.i:s.i])
		s.ws()
		switch {
		case s.at(','):
			s.i++
		case s.at('}'):
			s.i++
			s.ws()
			return s.i == len(raw)
		default:
			return false
		}
	}
}

// objectMembers returns the members of a raw JSON object (ok is false for anything else).
func objectMembers(raw []byte) (map[string]json.RawMessage, bool) {
	return scanObject(bytes.Trim(raw, " \t\r\n"))
}

// memberName decodes a member name token (quotes included; escapes are rare).
func memberName(token []byte) string {
	if bytes.IndexByte(token, '\\') < 0 {
		return string(token[1 : len(token)-1])
	}
	var name string
	_ = json.Unmarshal(token, &name)
	return name
}

// jsonScanner walks a byte slice position by position; each method advances i past what it
// accepts and reports false (leaving i anywhere) on the first byte JSON does not allow.
type jsonScanner struct {
	b []byte
	i int
}

func (s *jsonScanner) at(c byte) bool { return s.i < len(s.b) && s.b[s.i] == c }

func (s *jsonScanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// value scans one value inside containers already depth deep. Containers are tracked on an
// explicit stack rather than by recursion: how deep a hostile server nests is bounded by
// maxScanDepth, not by the goroutine stack.
func (s *jsonScanner) value(depth int) bool {
	// Containers entered and not yet closed: '{' or '['. Messages rarely nest deeper than
	// the array on the stack holds; deeper ones grow it on the heap.
	var stack [32]byte
	open := stack[:0]
	for {
		s.ws()
		if s.i >= len(s.b) {
			return false
		}
		switch c := s.b[s.i]; {
		case c == '{' || c == '[':
			if depth+len(open)+1 > maxScanDepth {
				return false
			}
			s.i++
			s.ws()
			if s.at(closing(c)) {
				s.i++ // an empty container is a whole value
				break
			}
			open = append(open, c)
			if c == '{' && !s.memberKey() {
				return false
			}
			continue // on to the first member's or element's value
		case c == '"':
			if !s.str() {
				return false
			}
		case c == 't':
			if !s.word("true") {
				return false
			}
		case c == 'f':
			if !s.word("false") {
				return false
			}
		case c == 'n':
			if !s.word("null") {
				return false
			}
		case c == '-' || (c >= '0' && c <= '9'):
			if !s.number() {
				return false
			}
		default:
			return false
		}
		// A value ended: close the containers that end here, or go on to the next member or
		// element of the innermost one.
		for {
			if len(open) == 0 {
				return true
			}
			s.ws()
			top := open[len(open)-1]
			if s.at(closing(top)) {
				s.i++
				open = open[:len(open)-1]
				continue
			}
			if !s.at(',') {
				return false
			}
			s.i++
			if top == '{' && !s.memberKey() {
				return false
			}
			break
		}
	}
}

func closing(open byte) byte {
	if open == '{' {
		return '}'
	}
	return ']'
}

// memberKey scans `"name" :` (with the whitespace around it).
func (s *jsonScanner) memberKey() bool {
	s.ws()
	if !s.at('"') || !s.str() {
		return false
	}
	s.ws()
	if !s.at(':') {
		return false
	}
	s.i++
	return true
}

// str scans a string token. UTF-8 validity is the caller's (Classify checks the whole frame).
func (s *jsonScanner) str() bool {
	b := s.b
	i := s.i + 1
	for i < len(b) {
		c := b[i]
		switch {
		case c == '"':
			s.i = i + 1
			return true
		case c == '\\':
			if i+1 >= len(b) {
				return false
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) {
					return false
				}
				for _, h := range b[i+2 : i+6] {
					if !isHex(h) {
						return false
					}
				}
				i += 6
			default:
				return false
			}
		case c < 0x20:
			return false
		default:
			i++
		}
	}
	return false
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// number scans -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *jsonScanner) number() bool {
	b, i := s.b, s.i
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	default:
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		start := i
		for i < len(b) && isDigit(b[i]) {
			i++
		}
		if i == start {
			return false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		start := i
		for i < len(b) && isDigit(b[i]) {
			i++
		}
		if i == start {
			return false
		}
	}
	s.i = i
	return true
}

func (s *jsonScanner) word(w string) bool {
	if !bytes.HasPrefix(s.b[s.i:], []byte(w)) {
		return false
	}
	s.i += len(w)
	return true
}
