package jsondoc

// text is what the token scanners read: a document held as a string (the tree of Parse) or
// the bytes of a message (the scanners that build no tree). Each token's grammar is written
// once, here, for both.
type text interface{ ~string | ~[]byte }

// skipSpace returns the index of the first byte at or after i that is not JSON whitespace.
func skipSpace[T text](s T, i int) int {
	for i < len(s) {
		switch s[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// isSpace reports whether c is JSON whitespace.
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// trimSpace cuts JSON whitespace (and only that: a no-break space is not JSON's) from both
// ends of s.
func trimSpace[T text](s T) T {
	i, j := 0, len(s)
	for i < j && isSpace(s[i]) {
		i++
	}
	for j > i && isSpace(s[j-1]) {
		j--
	}
	return s[i:j]
}

// scanLiteral returns the index after the literal w (true, false, null) at i, or -1.
func scanLiteral[T text](s T, i int, w string) int {
	if len(s)-i < len(w) {
		return -1
	}
	for k := 0; k < len(w); k++ {
		if s[i+k] != w[k] {
			return -1
		}
	}
	return i + len(w)
}

// scanNumber returns the index after the number token at i, or -1 when there is none:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func scanNumber[T text](s T, i int) int {
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && s[i] >= '1' && s[i] <= '9':
		i = skipDigits(s, i)
	default:
		return -1
	}
	if i < len(s) && s[i] == '.' {
		from := i + 1
		if i = skipDigits(s, from); i == from {
			return -1
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		from := i
		if i = skipDigits(s, from); i == from {
			return -1
		}
	}
	return i
}

func skipDigits[T text](s T, i int) int {
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}

// stringToken says what scanString found between a string token's quotes.
type stringToken uint8

const (
	// hasEscape: a backslash escape.
	hasEscape stringToken = 1 << iota
	// hasNonASCII: a byte of 0x80 or more, which may or may not be valid UTF-8.
	hasNonASCII
)

// scanString returns the index after the string token whose opening quote is at i (-1 when
// it is not a string token) and what it holds. UTF-8 is not checked: JSON text with invalid
// UTF-8 in a string is valid to encoding/json, which reads it as U+FFFD.
func scanString[T text](s T, i int) (end int, holds stringToken) {
	if i >= len(s) || s[i] != '"' {
		return -1, 0
	}
	i++
	for i < len(s) {
		// Most bytes of most strings need no thought: skip them in a tight loop.
		i = PlainRun(s, i, false)
		if i >= len(s) {
			break
		}
		switch c := s[i]; {
		case c == '"':
			return i + 1, holds
		case c == '\\':
			if i+1 >= len(s) {
				return -1, 0
			}
			switch s[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if _, ok := hex4(s, i+2); !ok {
					return -1, 0
				}
				i += 6
			default:
				return -1, 0
			}
			holds |= hasEscape
		case c < 0x20:
			return -1, 0
		default:
			holds |= hasNonASCII
			i++
		}
	}
	return -1, 0
}

// plainByte reports whether a string token holds the byte as it is: ASCII other than the
// quote, the backslash and control characters.
func plainByte(c byte) bool { return c >= 0x20 && c < 0x80 && c != '"' && c != '\\' }

// hex4 reads the four hex digits of a \u escape at s[i:].
func hex4[T text](s T, i int) (rune, bool) {
	if i+4 > len(s) {
		return 0, false
	}
	var r rune
	for k := i; k < i+4; k++ {
		c := s[k]
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
