package report

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mcpwatch/mcpwatch/internal/textclip"
)

// palette colours text with ANSI escapes when on, and leaves it alone otherwise.
type palette struct{ on bool }

func (p palette) wrap(code, s string) string {
	if !p.on || s == "" {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

func (p palette) bold(s string) string   { return p.wrap("1", s) }
func (p palette) dim(s string) string    { return p.wrap("2", s) }
func (p palette) red(s string) string    { return p.wrap("1;31", s) }
func (p palette) yellow(s string) string { return p.wrap("33", s) }
func (p palette) green(s string) string  { return p.wrap("32", s) }
func (p palette) cyan(s string) string   { return p.wrap("36", s) }

// glueWords joins the words that must share a line: a label of up to 16 runes that ends in a
// colon with the word after it, and the parts of a bracketed frame reference.
func glueWords(words []string) []string {
	var out []string
	for i := 0; i < len(words); i++ {
		w := words[i]
		switch {
		case strings.HasPrefix(w, "[frame"):
			for !strings.HasSuffix(w, "]") && i+1 < len(words) {
				i++
				w += " " + words[i]
			}
		case strings.HasSuffix(w, ":") && utf8.RuneCountInString(w) <= 16 && i+1 < len(words):
			i++
			w += " " + words[i]
		}
		out = append(out, w)
	}
	return out
}

// plain leaves text as it is, where a style is expected.
func plain(s string) string { return s }

// status renders a status word of fixed width in its colour.
func (p palette) status(status string) string {
	word := fmt.Sprintf("%-4s", strings.ToUpper(status))
	switch status {
	case "fail":
		return p.red(word)
	case "warn":
		return p.yellow(word)
	case "pass":
		return p.green(word)
	}
	return p.dim(word)
}

// printable makes text safe for a terminal or a CI log: a server controls much of what a
// report shows, and raw control bytes could rewrite the screen, forge log lines (a newline
// followed by "PASS") or hide text (bidirectional overrides). Such characters are shown
// escaped; invalid UTF-8 becomes U+FFFD.
func printable(s string) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || unsafeRune(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteRune(unicode.ReplacementChar)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x80 && unsafeRune(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case unsafeRune(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func unsafeRune(r rune) bool {
	switch {
	case unicode.IsControl(r):
		return true
	case r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069, r == 0x200E, r == 0x200F, r == 0x061C:
		return true
	}
	return false
}

// clip makes s printable and cuts it to width runes, marking the cut.
func clip(s string, width int) string {
	return textclip.Runes(printable(s), width)
}

// pad fills s with spaces to width visible runes (s holds no escapes yet).
func pad(s string, width int) string {
	if n := utf8.RuneCountInString(s); n < width {
		return s + strings.Repeat(" ", width-n)
	}
	return s
}

// padLeft right-aligns s in width visible runes.
func padLeft(s string, width int) string {
	if n := utf8.RuneCountInString(s); n < width {
		return strings.Repeat(" ", width-n) + s
	}
	return s
}

// humanMillis renders milliseconds the way people read latencies.
func humanMillis(ms float64) string {
	switch {
	case ms < 10:
		return fmt.Sprintf("%.2fms", ms)
	case ms < 100:
		return fmt.Sprintf("%.1fms", ms)
	case ms < 1000:
		return fmt.Sprintf("%.0fms", ms)
	case ms < 60_000:
		return fmt.Sprintf("%.2fs", ms/1000)
	}
	return fmt.Sprintf("%dm%02ds", int(ms/60_000), int(ms/1000)%60)
}

// plural picks the word for a count.
func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}

// wrapWords breaks s into lines of at most width runes at spaces, never inside a word: a word
// longer than the width (a URL, a JSON value) gets a line of its own and overflows it rather
// than be cut, so that it can still be copied whole. A short label ending in a colon ("spec:",
// "Origin:") stays with the word after it, and a frame reference ("[frames #3 #4]") stays
// whole. Runs of spaces between words collapse.
func wrapWords(s string, width int) []string {
	words := glueWords(strings.Fields(s))
	if len(words) == 0 {
		return []string{""}
	}
	var lines []string
	line, n := words[0], utf8.RuneCountInString(words[0])
	for _, w := range words[1:] {
		wn := utf8.RuneCountInString(w)
		if n+1+wn > width {
			lines = append(lines, line)
			line, n = w, wn
			continue
		}
		line += " " + w
		n += 1 + wn
	}
	return append(lines, line)
}
