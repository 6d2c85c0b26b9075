package alert

import (
	"strings"

	"github.com/mcpwatch/mcpwatch/internal/textclip"
)

// Bounds of a description diff in a message.
const (
	diffContext = 40  // unchanged characters shown on each side
	diffSpan    = 160 // removed or added characters shown
)

// shortDiff shows how before became after in one line: the unchanged text around the change
// trimmed to diffContext characters, the removed text as [-…-] and the added as {+…+}.
func shortDiff(before, after string) string {
	b, a := []rune(before), []rune(after)
	p := 0
	for p < len(b) && p < len(a) && b[p] == a[p] {
		p++
	}
	s := 0
	for s < len(b)-p && s < len(a)-p && b[len(b)-1-s] == a[len(a)-1-s] {
		s++
	}
	var out strings.Builder
	head := b[:p]
	if len(head) > diffContext {
		out.WriteString("…")
		head = head[len(head)-diffContext:]
	}
	out.WriteString(string(head))
	if del := b[p : len(b)-s]; len(del) > 0 {
		out.WriteString("[-" + textclip.Runes(string(del), diffSpan) + "-]")
	}
	if ins := a[p : len(a)-s]; len(ins) > 0 {
		out.WriteString("{+" + textclip.Runes(string(ins), diffSpan) + "+}")
	}
	tail := b[len(b)-s:]
	if len(tail) > diffContext {
		out.WriteString(string(tail[:diffContext]) + "…")
	} else {
		out.WriteString(string(tail))
	}
	return out.String()
}

// clip cuts s to at most n bytes, valid UTF-8 without NUL: what a probed server says ends up
// in jsonb, which refuses both.
func clip(s string, n int) string { return textclip.Storable(s, n) }
