package jsondoc

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
// compiler reads them in one load.
func word[T text](s T, i int) uint64 {
	_ = s[i+7]
	return uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
		uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
}

// hasByte reports whether any byte of w is c: a byte of w^c is zero exactly where w holds c,
// and subtracting one from each byte borrows into the top bit of a zero byte only (or of one
// above a zero byte, which changes nothing about whether there is one).
func hasByte(w uint64, c byte) bool {
	x := w ^ (lowBits * uint64(c))
	return (x-lowBits)&^x&highBits != 0
}

// plainWord reports whether every byte of w is plain (see plainByte): none is a control
// character (below 0x20), non-ASCII, a quote or a backslash; with html none is <, > or &
// either, the bytes encoding/json escapes by default.
func plainWord(w uint64, html bool) bool {
	// A byte below 0x20 borrows when 0x20 is subtracted from it; a byte of 0x80 or more has
	// its top bit set already.
	if (w-lowBits*0x20)&^w&highBits != 0 || w&highBits != 0 || hasByte(w, '"') || hasByte(w, '\\') {
		return false
	}
	return !html || !hasByte(w, '<') && !hasByte(w, '>') && !hasByte(w, '&')
}

// PlainRun returns the index of the first byte at or after i that a JSON string cannot hold
// as it is (a quote, a backslash, a control character or a byte of 0x80 or more; with html
// also <, > and &), or len(s) when there is none.
func PlainRun[T ~string | ~[]byte](s T, i int, html bool) int {
	for i+8 <= len(s) && plainWord(word(s, i), html) {
		i += 8
	}
	for i < len(s) && plainByte(s[i]) && (!html || s[i] != '<' && s[i] != '>' && s[i] != '&') {
		i++
	}
	return i
}
