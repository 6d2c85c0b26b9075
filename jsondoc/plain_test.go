package jsondoc

import (
	"math/rand/v2"
	"testing"
)

// plainRunByByte is PlainRun one byte at a time: the reference the word-at-a-time one is
// held to.
func plainRunByByte(s []byte, i int, html bool) int {
	for i < len(s) {
		c := s[i]
		if c < 0x20 || c >= 0x80 || c == '"' || c == '\\' || html && (c == '<' || c == '>' || c == '&') {
			return i
		}
		i++
	}
	return i
}

// TestPlainRunStopsWhereAByteByByteReadStops puts every byte value at every position of
// texts around the word size, from every start, and compares with the byte-by-byte read;
// then random texts drawn mostly from the bytes the word test singles out.
func TestPlainRunStopsWhereAByteByByteReadStops(t *testing.T) {
	check := func(s []byte) {
		t.Helper()
		for i := 0; i <= len(s); i++ {
			for _, html := range []bool{false, true} {
				if got, want := PlainRun(s, i, html), plainRunByByte(s, i, html); got != want {
					t.Fatalf("PlainRun(%q, %d, html %v) = %d, want %d", s, i, html, got, want)
				}
				if got, want := PlainRun(string(s), i, html), plainRunByByte(s, i, html); got != want {
					t.Fatalf("PlainRun(string %q, %d, html %v) = %d, want %d", s, i, html, got, want)
				}
			}
		}
	}
	for n := range 18 {
		for pos := range n {
			for c := range 256 {
				s := make([]byte, n)
				for k := range s {
					s[k] = 'a'
				}
				s[pos] = byte(c)
				check(s)
			}
		}
	}
	alphabet := []byte{0x00, 0x1f, 0x20, 0x21, '"', '\\', '<', '>', '&', 0x7f, 0x80, 0xe2, 0xff, 'a', 'z', 'A', '0', ' ', '#', '/'}
	r := rand.New(rand.NewPCG(1, 2))
	for range 3000 {
		s := make([]byte, r.IntN(40))
		for k := range s {
			if r.IntN(4) == 0 {
				s[k] = alphabet[r.IntN(len(alphabet))]
			} else {
				s[k] = byte('a' + r.IntN(26))
			}
		}
		check(s)
	}
}
