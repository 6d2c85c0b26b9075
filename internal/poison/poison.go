// Package poison finds the marks of tool poisoning in text a server gives a model to read:
// tool, argument, prompt and resource descriptions and the server's instructions. A client
// puts that text into the model's context as soon as it lists the server's tools, before any
// tool is called and usually without showing it to the user, so a server can use it to
// instruct the model behind the user's back.
//
// The patterns come in named families, each after a kind of attack the published write-ups
// describe (see the comment of each family): characters a reader does not see, text
// addressed to the model that overrides its instructions, requests to hide what happens from
// the user, requests to read credentials or client configuration and pass them on, text that
// changes how other tools behave, and long encoded blobs.
//
// Scan is a heuristic: a match is a reason to read the text, not proof of an attack. Ordinary
// imperative descriptions ("Use this tool to read a file", "Do not use for binary files")
// must never match, and the table tests hold both sides.
//
// Every scan is linear in the text: phrases are matched over words with bounded gaps, the
// rest is one pass over the runes, and excerpts are bounded.
package poison

import (
	"strings"
	"unicode/utf8"

	"github.com/mcpwatch/mcpwatch/internal/textclip"
)

// Family is one kind of poisoning pattern.
type Family uint8

// The families, in the order Scan reports them.
const (
	// Hidden is text a reader does not see but a model reads: Unicode tag characters (which
	// spell ASCII invisibly), zero-width and bidirectional controls between Latin text,
	// variation selectors in a run, terminal escape sequences, HTML comments.
	Hidden Family = iota + 1
	// ToModel is text addressed to the model that overrides what it was told: "ignore
	// previous instructions", "if you are an AI", <IMPORTANT> blocks, "regardless of what
	// the user asks", requests for the system prompt.
	ToModel
	// Concealment asks the model to keep something from the user: "do not tell the user",
	// "without informing the user", "this could upset the user", "secretly".
	Concealment
	// Exfiltration asks the model to read credentials or client configuration (~/.ssh,
	// id_rsa, mcp.json, .env, cloud credentials) or conversation history and pass them on.
	Exfiltration
	// Shadowing changes how other tools behave: "when this tool is available", "all emails
	// must be sent to", "change the recipient to", "always bcc".
	Shadowing
	// Blob is a long base64 run that decodes to text: instructions a reviewer cannot read.
	Blob
)

// String names the family as messages and alerts show it.
func (f Family) String() string {
	switch f {
	case Hidden:
		return "hidden characters"
	case ToModel:
		return "addressed to the model"
	case Concealment:
		return "concealment from the user"
	case Exfiltration:
		return "credential or file exfiltration"
	case Shadowing:
		return "cross-tool shadowing"
	case Blob:
		return "encoded blob"
	}
	return "unknown"
}

// Match is the first match of one family in a text.
type Match struct {
	Family Family
	// Pattern says what matched, briefly: "ignore previous instructions", "12 invisible tag
	// characters (U+E0000–U+E007F)", "~/.ssh/id_rsa with \"read\"".
	Pattern string
	// Excerpt is the text around the match, at most about excerptBytes, with every
	// invisible or control character spelled out as U+XXXX.
	Excerpt string
}

// Bounds of what a match carries.
const (
	excerptContext = 60  // bytes of context on each side of a phrase
	excerptBytes   = 200 // the longest excerpt, before the ellipses
	patternBytes   = 120 // the longest Pattern
)

// Scan reports the first match of each family in text, in family order; nil when nothing
// matches.
func Scan(text string) []Match {
	if text == "" {
		return nil
	}
	var found [Blob + 1]*Match
	keep := func(m Match) {
		if found[m.Family] == nil {
			m.Pattern = textclip.Bytes(m.Pattern, patternBytes)
			found[m.Family] = &m
		}
	}
	if m, ok := scanHidden(text); ok {
		keep(m)
	}
	if m, ok := scanTags(text); ok {
		keep(m)
	}
	// The phrases are matched in the text as the model reads it: tag characters spelled out,
	// invisible characters dropped, so that hiding a phrase does not hide it from the scan.
	// Excerpts come from the text as sent when the shown text has the same offsets.
	shown, same := reveal(text)
	src := shown
	if same {
		src = text
	}
	ts := words(shown)
	for _, m := range scanPhrases(shown, src, ts) {
		keep(m)
	}
	if m, ok := scanPaths(shown, src, ts); ok {
		keep(m)
	}
	if m, ok := scanBlobs(text); ok {
		keep(m)
	}
	var out []Match
	for _, m := range found {
		if m != nil {
			out = append(out, *m)
		}
	}
	return out
}

// Families is the set of families that match text, in family order.
func Families(text string) []Family {
	ms := Scan(text)
	out := make([]Family, len(ms))
	for i, m := range ms {
		out[i] = m.Family
	}
	return out
}

// excerpt is text[start:end] with context on both sides, cut at characters, invisible and
// control characters spelled out and whitespace runs shown as one space.
func excerpt(text string, start, end int) string {
	from, to := max(start-excerptContext, 0), min(end+excerptContext, len(text))
	for from > 0 && !utf8.RuneStart(text[from]) {
		from--
	}
	for to < len(text) && !utf8.RuneStart(text[to]) {
		to++
	}
	var b strings.Builder
	if from > 0 {
		b.WriteString(textclip.Ellipsis)
	}
	b.WriteString(textclip.Bytes(visible(text[from:to]), excerptBytes))
	if to < len(text) && !strings.HasSuffix(b.String(), textclip.Ellipsis) {
		b.WriteString(textclip.Ellipsis)
	}
	return b.String()
}

// visible spells out every character a reader would not see (U+200B), collapses whitespace
// runs into one space, and keeps the rest.
func visible(s string) string {
	var b strings.Builder
	space := false
	for _, r := range s {
		switch {
		case r == ' ' || r == '\t' || r == '\n' || r == '\r':
			if !space {
				b.WriteByte(' ')
			}
			space = true
			continue
		case unseen(r):
			b.WriteString(codePoint(r))
		default:
			b.WriteRune(r)
		}
		space = false
	}
	return b.String()
}

// codePoint is "U+XXXX".
func codePoint(r rune) string {
	const hex = "0123456789ABCDEF"
	digits := 4
	if r > 0xFFFF {
		digits = 5
	}
	if r > 0xFFFFF {
		digits = 6
	}
	out := []byte("U+")
	for i := digits - 1; i >= 0; i-- {
		out = append(out, hex[(r>>(4*i))&0xF])
	}
	return string(out)
}
