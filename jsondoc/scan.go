package jsondoc

// The scanners below validate JSON text without building a tree: every message of a probe
// goes through one once, tools/list results of many kilobytes among them. They accept
// exactly what encoding/json's json.Valid accepts (the fuzz tests hold them to it), nesting
// limit included, and need no allocation for documents nested less than 32 deep.

// Valid reports whether raw is exactly one JSON value, with whitespace around it allowed.
func Valid(raw []byte) bool {
	s := scanner{b: raw, i: skipSpace(raw, 0)}
	return s.value(0) && skipSpace(raw, s.i) == len(raw)
}

// ScanObject validates raw as exactly one JSON value (whitespace around it allowed) and,
// when it is an object, calls visit with each member's name token (quotes included,
// escapes undecoded: see Unquote) and value, in order. Values are sub-slices of raw whose
// capacity ends with them, so that no append to one can write into raw. ok is false when
// raw is not JSON; kind is then Missing. visit may run before a later byte turns out to be
// invalid: callers use what it saw only when ok. A name given twice is visited twice; a
// caller that keeps the last value reads as encoding/json does.
func ScanObject(raw []byte, visit func(name, value []byte)) (kind Kind, ok bool) {
	return ScanObjectKnowing(raw, nil, visit)
}

// ScanObjectKnowing is ScanObject for a caller that has seen some member values before:
// before it reads a member value of the object that opens with '{' or '[', it asks known
// (when not nil) for the length of a value the caller knows to start there, and steps over
// that many bytes instead of reading them (0: read them). A value known must be one that
// ScanObject passed to visit before (so valid, at the same depth), for the answer to be
// ScanObject's: a server answers the same list in several messages whose ids differ, and
// its kilobytes need reading once.
func ScanObjectKnowing(raw []byte, known func(rest []byte) int, visit func(name, value []byte)) (kind Kind, ok bool) {
	s := scanner{b: raw, i: skipSpace(raw, 0)}
	if !s.at('{') {
		start := s.i
		if !s.value(0) || skipSpace(raw, s.i) != len(raw) {
			return Missing, false
		}
		return KindOf(raw[start:]), true
	}
	s.i = skipSpace(raw, s.i+1)
	if s.at('}') {
		return Object, skipSpace(raw, s.i+1) == len(raw)
	}
	for {
		s.i = skipSpace(raw, s.i)
		nameStart := s.i
		if !s.memberName() {
			return Missing, false
		}
		name := raw[nameStart:s.nameEnd]
		s.i = skipSpace(raw, s.i)
		valueStart := s.i
		if n := s.knownAt(known); n > 0 {
			s.i += n
		} else if !s.value(1) {
			return Missing, false
		}
		visit(name, raw[valueStart:s.i:s.i])
		s.i = skipSpace(raw, s.i)
		switch {
		case s.at(','):
			s.i++
		case s.at('}'):
			if skipSpace(raw, s.i+1) != len(raw) {
				return Missing, false
			}
			return Object, true
		default:
			return Missing, false
		}
	}
}

// scanner walks a byte slice; each method advances i past what it accepts and reports false
// (leaving i anywhere) on the first byte JSON does not allow there.
type scanner struct {
	b []byte
	i int
	// nameEnd is where the last member name scanned ends (before the colon).
	nameEnd int
}

func (s *scanner) at(c byte) bool { return s.i < len(s.b) && s.b[s.i] == c }

// knownAt is the length of the object or array that known says starts at i (0 for none).
// Only containers are asked about: their end is where their bytes say, whatever follows,
// where a number known as 1 could be the start of 12.
func (s *scanner) knownAt(known func(rest []byte) int) int {
	if known == nil || !s.at('{') && !s.at('[') {
		return 0
	}
	if n := known(s.b[s.i:]); n > 0 && n <= len(s.b)-s.i {
		return n
	}
	return 0
}

// value scans one value inside containers already depth deep. Containers are tracked on an
// explicit stack rather than by recursion: how deep a hostile server nests is bounded by
// MaxDepth, not by the goroutine stack.
func (s *scanner) value(depth int) bool {
	// Containers entered and not yet closed: '{' or '['. Messages rarely nest deeper than
	// the array on the stack holds; deeper ones grow it on the heap.
	var stack [32]byte
	open := stack[:0]
	for {
		s.i = skipSpace(s.b, s.i)
		if s.i >= len(s.b) {
			return false
		}
		end := -1
		switch c := s.b[s.i]; {
		case c == '{' || c == '[':
			if depth+len(open)+1 > MaxDepth {
				return false
			}
			s.i = skipSpace(s.b, s.i+1)
			if s.at(closing(c)) {
				end = s.i + 1 // an empty container is a whole value
				break
			}
			open = append(open, c)
			if c == '{' && !s.memberName() {
				return false
			}
			continue // on to the first member's or element's value
		case c == '"':
			end, _ = scanString(s.b, s.i)
		case c == 't':
			end = scanLiteral(s.b, s.i, "true")
		case c == 'f':
			end = scanLiteral(s.b, s.i, "false")
		case c == 'n':
			end = scanLiteral(s.b, s.i, "null")
		default:
			end = scanNumber(s.b, s.i)
		}
		if end < 0 {
			return false
		}
		s.i = end
		// A value ended: close the containers that end here, or go on to the next member or
		// element of the innermost one.
		for {
			if len(open) == 0 {
				return true
			}
			s.i = skipSpace(s.b, s.i)
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
			if top == '{' && !s.memberName() {
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

// memberName scans `"name" :` with the whitespace before it and around the colon.
func (s *scanner) memberName() bool {
	s.i = skipSpace(s.b, s.i)
	end, _ := scanString(s.b, s.i)
	if end < 0 {
		return false
	}
	s.nameEnd = end
	s.i = skipSpace(s.b, end)
	if !s.at(':') {
		return false
	}
	s.i++
	return true
}
