package jsondoc

import "math/bits"

// Runs of bytes that a JSON string holds as they are. Strings are most of the bytes of a
// probe's messages (tool descriptions, schemas, text content): the scanners read each
// message once and the recording writes each once more, so both skip such runs eight bytes
// at a time rather than byte by byte.

// Byte masks of the word-at-a-time tests: a copy of a byte in each of a word's eight bytes.
const (
	lowBits  = 0x0101010101010101
	highBits = 0x8080808080808080
)

// word is the eight bytes of s at i (which must be there) as a little-endian number; the
// compiler reads them in one load, and checks the bounds once on the eight-byte slice.
func word[T text](s T, i int) uint64 {
	b := s[i : i+8]
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

// zeroBytes marks the bytes of x that are zero: the top bit of each, in a word whose lowest
// marked byte is exactly the first zero byte (subtracting one from each byte borrows into
// the top bit of a zero byte, and of none below it: a mark above the first may be false).
func zeroBytes(x uint64) uint64 { return (x - lowBits) &^ x & highBits }

// specialBytes marks the bytes of w a JSON string cannot hold as they are: control
// characters (a byte below 0x20 borrows when 0x20 is subtracted from it), bytes of 0x80 or
// more (their top bit is set already), quotes and backslashes. As in zeroBytes, the lowest
// mark is exact.
func specialBytes(w uint64) uint64 {
	return ((w-lowBits*0x20)&^w|w)&highBits | zeroBytes(w^(lowBits*'"')) | zeroBytes(w^(lowBits*'\\'))
}

// htmlBytes marks the bytes of w that encoding/json escapes by default: <, > and &.
func htmlBytes(w uint64) uint64 {
	return zeroBytes(w^(lowBits*'<')) | zeroBytes(w^(lowBits*'>')) | zeroBytes(w^(lowBits*'&'))
}

// PlainRun returns the index of the first byte at or after i that a JSON string cannot hold
// as it is (a quote, a backslash, a control character or a byte of 0x80 or more; with html
// also <, > and &), or len(s) when there is none.
func PlainRun[T ~string | ~[]byte](s T, i int, html bool) int {
	for ; i+8 <= len(s); i += 8 {
		w := word(s, i)
		m := specialBytes(w)
		if html {
			m |= htmlBytes(w)
		}
		if m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for ; i < len(s); i++ {
		if c := s[i]; !plainByte(c) || html && (c == '<' || c == '>' || c == '&') {
			return i
		}
	}
	return i
}
