package report

import (
	"strings"
	"unicode/utf8"
)

// Spellings of a byte that is no UTF-8 (see escapeInvalid): in a string, and inside the text
// of a JSON string literal, where the backslash itself must be escaped.
const (
	escapeInText = `\x`
	escapeInJSON = `\\x`
)

// escapeInvalid returns s with every byte that is not part of valid UTF-8 spelled prefix
// followed by its two hex digits. A server controls much of what a report carries, and one
// such byte makes a JSON or SARIF document unreadable to the programs it is written for;
// spelling the byte out keeps it visible where U+FFFD would hide which byte it was.
func escapeInvalid(s, prefix string) string {
	if utf8.ValidString(s) {
		return s
	}
	const hex = "0123456789abcdef"
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteString(prefix)
			b.WriteByte(hex[s[i]>>4])
			b.WriteByte(hex[s[i]&0xf])
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// escapeInvalidIn returns v with escapeInvalid applied to every string it holds (the
// measurements of a finding: maps, lists and strings as the checks build them).
func escapeInvalidIn(v any) any {
	switch v := v.(type) {
	case string:
		return escapeInvalid(v, escapeInText)
	case []string:
		out := make([]string, len(v))
		for i, s := range v {
			out[i] = escapeInvalid(s, escapeInText)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = escapeInvalidIn(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[escapeInvalid(k, escapeInText)] = escapeInvalidIn(e)
		}
		return out
	}
	return v
}
