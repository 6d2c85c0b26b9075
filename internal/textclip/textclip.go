// Package textclip cuts text that a probed server or a user supplied to a bound, without
// breaking a character: one place for the four ways the project shortens text.
//
//   - [Prefix] keeps at most n bytes and says nothing of the cut: a name used as a key.
//   - [Bytes] keeps at most n bytes and marks the cut with "…": a message bounded in bytes.
//   - [Runes] keeps at most n characters, the last one "…" when cut: text bounded in width.
//   - [Storable] is [Prefix] of a string made valid UTF-8 without NUL: Postgres text and
//     jsonb refuse both, and one hostile value must not fail the write it travels with.
//
// Byte bounds cut at the start of a character (a byte that is not a UTF-8 continuation
// byte); they do not repair invalid UTF-8 unless they say so.
package textclip

import (
	"strings"
	"unicode/utf8"
)

// Ellipsis marks a cut.
const Ellipsis = "…"

// Prefix is s cut to at most n bytes, at the start of a character.
func Prefix(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := max(n, 0)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}

// Bytes is s cut to at most n bytes at the start of a character, followed by [Ellipsis]
// when it was cut (so a cut result holds up to n+3 bytes).
func Bytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return Prefix(s, n) + Ellipsis
}

// Runes is s cut to at most n characters, the last of them [Ellipsis] when it was cut; it
// is empty when n is not positive.
func Runes(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	count := 0
	for i := range s {
		if count == n-1 {
			return s[:i] + Ellipsis
		}
		count++
	}
	return s
}

// Storable is s made valid UTF-8 (each invalid byte sequence becomes U+FFFD) with every NUL
// replaced by U+FFFD, then cut to at most n bytes at the start of a character.
func Storable(s string, n int) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	if strings.IndexByte(s, 0) >= 0 {
		s = strings.ReplaceAll(s, "\x00", "\uFFFD")
	}
	return Prefix(s, n)
}
