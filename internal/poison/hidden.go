package poison

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/mcpwatch/mcpwatch/internal/textclip"
)

// Tag characters (U+E0000–U+E007F) mirror ASCII one for one and render as nothing: text
// spelled in them is read by a model and seen by nobody ("ASCII smuggling"). Their one
// ordinary use is an emoji subdivision flag: U+1F3F4, two to six tag letters or digits, then
// CANCEL TAG.
const (
	tagFirst      = 0xE0000
	tagLast       = 0xE007F
	tagCancel     = 0xE007F
	blackFlag     = 0x1F3F4
	hiddenPreview = 80 // bytes of decoded tag text shown
)

// unseen reports a character a reader does not see: controls (other than tab and line
// ends), zero-width and bidirectional controls, tag characters, variation selectors, fillers.
func unseen(r rune) bool {
	switch {
	case r < 0x20:
		return r != '\t' && r != '\n' && r != '\r'
	case r == 0x7F || r >= 0x80 && r <= 0x9F:
		return true
	case r == 0xAD || r == 0x34F || r == 0x61C || r == 0x115F || r == 0x1160 || r == 0x180E:
		return true
	case r >= 0x200B && r <= 0x200F, r >= 0x202A && r <= 0x202E, r >= 0x2060 && r <= 0x2064,
		r >= 0x2066 && r <= 0x2069:
		return true
	case r == 0x3164 || r == 0xFEFF || r == 0xFFA0:
		return true
	case r >= 0xFE00 && r <= 0xFE0F, r >= tagFirst && r <= tagLast, r >= 0xE0100 && r <= 0xE01EF:
		return true
	}
	return false
}

// zeroWidth are the invisible characters with ordinary uses in some scripts (joiners in
// Persian and Indic text and in emoji sequences, word breaks in Thai): suspect only next to
// ASCII, where nothing needs them.
func zeroWidth(r rune) bool {
	switch r {
	case 0x200B, 0x200C, 0x200D, 0x2060, 0x2061, 0x2062, 0x2063, 0x2064, 0xFEFF, 0x180E,
		0x115F, 0x1160, 0x3164, 0xFFA0:
		return true
	}
	return false
}

func bidiControl(r rune) bool {
	return r >= 0x202A && r <= 0x202E || r >= 0x2066 && r <= 0x2069
}

func variationSelector(r rune) bool {
	return r >= 0xFE00 && r <= 0xFE0F || r >= 0xE0100 && r <= 0xE01EF
}

// cjkIdeograph reports a character an ideographic variation selector may follow.
func cjkIdeograph(r rune) bool {
	return r >= 0x3400 && r <= 0x4DBF || r >= 0x4E00 && r <= 0x9FFF || r >= 0xF900 && r <= 0xFAFF ||
		r >= 0x20000 && r <= 0x3FFFF
}

// scanHidden finds the first invisible character that has no business where it is (tag
// characters are scanTags's), or an HTML comment, which a rendered description hides.
func scanHidden(text string) (Match, bool) {
	prev, prevVS := rune(-1), false
	for i, r := range text {
		size := utf8.RuneLen(r)
		if size < 0 {
			size = 1
		}
		var why string
		switch {
		case r == 0x1B || r == 0x9B:
			why = "terminal escape sequence"
		case r < 0x20 && r != '\t' && r != '\n' && r != '\r', r == 0x7F, r >= 0x80 && r <= 0x9F:
			why = "control character"
		case bidiControl(r):
			why = "bidirectional control"
		case zeroWidth(r):
			next, _ := utf8.DecodeRuneInString(text[i+size:])
			if prev >= 0 && prev < 0x80 || i+size < len(text) && next < 0x80 {
				why = "zero-width character next to Latin text"
			}
		case variationSelector(r):
			ideographic := r >= 0xE0100 && !cjkIdeograph(prev) && !prevVS
			if prevVS || ideographic {
				why = "variation selectors that carry no glyph"
			}
		}
		if why != "" {
			return Match{Family: Hidden, Pattern: codePoint(r) + " (" + why + ")", Excerpt: excerpt(text, i, i+size)}, true
		}
		prevVS = variationSelector(r)
		prev = r
	}
	if i := strings.Index(text, "<!--"); i >= 0 {
		end := strings.Index(text[i:], "-->")
		if end < 0 {
			end = len(text) - i
		} else {
			end += 3
		}
		return Match{Family: Hidden, Pattern: "HTML comment (hidden when the description is rendered)", Excerpt: excerpt(text, i, i+end)}, true
	}
	return Match{}, false
}

// scanTags finds the first run of tag characters that is not an emoji subdivision flag, and
// spells out what it says.
func scanTags(text string) (Match, bool) {
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		if r == blackFlag {
			if n := flagSequence(text[i+size:]); n > 0 {
				i += size + n
				continue
			}
		}
		if r < tagFirst || r > tagLast {
			i += size
			continue
		}
		start, end := i, i
		var said strings.Builder
		count := 0
		for end < len(text) {
			r, size := utf8.DecodeRuneInString(text[end:])
			if r < tagFirst || r > tagLast {
				break
			}
			if r >= tagFirst+0x20 && r < tagCancel && said.Len() < hiddenPreview {
				said.WriteByte(byte(r - tagFirst))
			}
			count++
			end += size
		}
		hidden := textclip.Bytes(said.String(), hiddenPreview)
		pattern := fmt.Sprintf("%d invisible tag characters (U+E0000–U+E007F)", count)
		from := max(start-excerptContext, 0)
		for from > 0 && !utf8.RuneStart(text[from]) {
			from--
		}
		var ex strings.Builder
		if from > 0 {
			ex.WriteString(textclip.Ellipsis)
		}
		ex.WriteString(visible(text[from:start]))
		fmt.Fprintf(&ex, "[tag characters spelling %q]", hidden)
		ex.WriteString(visible(textclip.Bytes(text[end:], excerptContext)))
		return Match{Family: Hidden, Pattern: pattern, Excerpt: ex.String()}, true
	}
	return Match{}, false
}

// flagSequence is the length in bytes of an emoji subdivision flag's tag part (two to six
// tag letters or digits, then CANCEL TAG) at the start of s; 0 when there is none.
func flagSequence(s string) int {
	n, count := 0, 0
	for n < len(s) {
		r, size := utf8.DecodeRuneInString(s[n:])
		switch {
		case r == tagCancel:
			if count >= 2 && count <= 6 {
				return n + size
			}
			return 0
		case r >= tagFirst+'a' && r <= tagFirst+'z', r >= tagFirst+'0' && r <= tagFirst+'9':
			count++
			n += size
		default:
			return 0
		}
		if count > 6 {
			return 0
		}
	}
	return 0
}

// reveal is text as a model reads it, for the phrase patterns: tag characters as the ASCII
// they spell, other invisible characters dropped, typographic apostrophes and spaces as
// ASCII ones, ASCII letters in lower case.
//
// same is true when only the case of ASCII letters changed, so that offsets into the shown
// text are offsets into text too.
func reveal(text string) (shown string, same bool) {
	plain := true
	lower := false
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c >= 0x80 || c < 0x20 && c != '\t' && c != '\n' && c != '\r' || c == 0x7F {
			plain = false
			break
		}
		lower = lower || 'A' <= c && c <= 'Z'
	}
	switch {
	case plain && !lower:
		return text, true
	case plain:
		b := []byte(text)
		for i, c := range b {
			if 'A' <= c && c <= 'Z' {
				b[i] = c + 'a' - 'A'
			}
		}
		return string(b), true
	}
	b := make([]byte, 0, len(text))
	for i := 0; i < len(text); {
		c := text[i]
		if c < 0x80 {
			switch {
			case 'A' <= c && c <= 'Z':
				b = append(b, c+'a'-'A')
			case c < 0x20 && c != '\t' && c != '\n' && c != '\r', c == 0x7F:
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		i += size
		switch {
		case r >= tagFirst+0x20 && r < tagCancel:
			c := byte(r - tagFirst)
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			b = append(b, c)
		case unseen(r):
		case r == 0x2018 || r == 0x2019 || r == 0x02BC:
			b = append(b, '\'')
		case r == 0xA0 || r >= 0x2000 && r <= 0x200A || r == 0x202F || r == 0x205F || r == 0x3000:
			b = append(b, ' ')
		default:
			b = append(b, text[i-size:i]...)
		}
	}
	return string(b), false
}
