package probe

import (
	"bytes"
	"encoding/json"
)

// envelope is the little the router needs to know of a message, and what a waiting request
// takes from its answer: raw views into the message's own bytes, never copies.
type envelope struct {
	id        json.RawMessage
	hasID     bool
	method    string
	hasMethod bool
	result    json.RawMessage // nil: no result member
	errValue  json.RawMessage // nil: no error member
}

// peekEnvelope reads the top-level members of a message without decoding the rest. It
// agrees with json.Unmarshal into a struct with id, method, result and error fields (member
// names matched without regard to case, the last of a repeated name winning, a top-level
// null read as an empty message, any other non-object refused), at a fraction of the cost:
// routing runs on every frame and was the largest part of what the probe itself spent.
func peekEnvelope(raw []byte) (envelope, bool) {
	var e envelope
	if !json.Valid(raw) {
		return e, false
	}
	ok := visitMembers(raw, func(name, value []byte) {
		switch {
		case bytes.EqualFold(name, []byte("id")):
			e.id, e.hasID = value, !isNull(value)
		case bytes.EqualFold(name, []byte("method")):
			e.hasMethod, e.method = true, ""
			if value[0] == '"' {
				e.method = stringValue(value)
			}
		case bytes.EqualFold(name, []byte("result")):
			e.result = value
		case bytes.EqualFold(name, []byte("error")):
			e.errValue = value
		}
	})
	return e, ok
}

// visitMembers calls visit with each member of the object raw (valid JSON) holds, in order,
// its name unescaped and its value as raw text. It reports false when raw is neither an
// object nor null (null has no members): where json.Unmarshal into a struct fails.
func visitMembers(raw []byte, visit func(name, value []byte)) bool {
	i, ok := enterContainer(raw, '{', '}')
	if i < 0 {
		return ok
	}
	for {
		nameEnd := skipString(raw, i)
		name := raw[i+1 : nameEnd-1]
		if bytes.IndexByte(name, '\\') >= 0 {
			var s string
			_ = json.Unmarshal(raw[i:nameEnd], &s)
			name = []byte(s)
		}
		i = skipSpace(raw, nameEnd)
		i = skipSpace(raw, i+1) // the colon
		end := skipValue(raw, i)
		visit(name, raw[i:end:end])
		i = skipSpace(raw, end)
		if raw[i] == '}' {
			return true
		}
		i = skipSpace(raw, i+1) // the comma
	}
}

// visitElements calls visit with each element of the array raw (valid JSON) holds, as raw
// text. It reports false when raw is neither an array nor null.
func visitElements(raw []byte, visit func(value []byte)) bool {
	i, ok := enterContainer(raw, '[', ']')
	if i < 0 {
		return ok
	}
	for {
		end := skipValue(raw, i)
		visit(raw[i:end:end])
		i = skipSpace(raw, end)
		if raw[i] == ']' {
			return true
		}
		i = skipSpace(raw, i+1) // the comma
	}
}

// enterContainer finds where the contents of the container raw (valid JSON) holds begin,
// for a container opened by open and closed by close. It returns -1 when there is nothing to
// visit, with ok saying why: false when raw is neither such a container nor null, true for
// null and for an empty container.
func enterContainer(raw []byte, open, close byte) (i int, ok bool) {
	i = skipSpace(raw, 0)
	switch {
	case i == len(raw):
		return -1, false
	case raw[i] == 'n':
		return -1, true
	case raw[i] != open:
		return -1, false
	}
	i = skipSpace(raw, i+1)
	if raw[i] == close {
		return -1, true
	}
	return i, true
}

// The scanners below run on text json.Valid accepted, so they need not check what they skip.

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index after the string that starts (with its quote) at i.
func skipString(b []byte, i int) int {
	j := i + 1
	for {
		q := bytes.IndexByte(b[j:], '"')
		if q < 0 {
			return len(b)
		}
		j += q
		backslashes := 0
		for k := j - 1; k > i && b[k] == '\\'; k-- {
			backslashes++
		}
		if backslashes%2 == 0 {
			return j + 1
		}
		j++
	}
}

// skipValue returns the index after the value that starts at i.
func skipValue(b []byte, i int) int {
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				j = skipString(b, j) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return len(b)
	}
	j := i
	for j < len(b) {
		switch b[j] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return j
		}
		j++
	}
	return j
}

func isNull(v []byte) bool { return len(v) == 4 && string(v) == "null" }

// stringValue is the value of a JSON string token.
func stringValue(tok []byte) string {
	if inner, ok := plainString(tok); ok {
		return string(inner)
	}
	var s string
	_ = json.Unmarshal(tok, &s)
	return s
}

// plainString returns the contents of the string token tok when decoding it would give them
// back as they are: no escape, no control character, nothing but ASCII (json.Unmarshal
// replaces invalid UTF-8 with U+FFFD). ok is false for anything else, tokens that are no
// string among them.
func plainString(tok []byte) (inner []byte, ok bool) {
	if len(tok) < 2 || tok[0] != '"' || tok[len(tok)-1] != '"' {
		return nil, false
	}
	inner = tok[1 : len(tok)-1]
	for _, c := range inner {
		if c < 0x20 || c >= 0x80 || c == '"' || c == '\\' {
			return nil, false
		}
	}
	return inner, true
}
