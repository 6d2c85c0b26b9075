// Package badge draws the small two-part SVG badges READMEs embed ("mcp | up"): a grey label
// and a coloured message. Text widths are computed from font metrics so that any label fits;
// the SVG also pins each text run to that width (textLength), so a viewer without the font
// squeezes or spreads the glyphs instead of overflowing the box.
package badge

import (
	"fmt"
	"html"
	"math"
	"strings"

	"github.com/mcpwatch/mcpwatch/internal/textclip"
)

// Colours with white text at a contrast ratio of at least 4.5:1.
const (
	ColorGreen  = "#1a7f37"
	ColorYellow = "#9a6700"
	ColorOrange = "#bc4c00"
	ColorRed    = "#cf222e"
	ColorGrey   = "#57606a"
	ColorBlue   = "#0969da"
	labelColor  = "#444d56"
)

// Layout of a badge, in pixels.
const (
	height   = 20
	fontSize = 11
	padding  = 6
	// maxRunes bounds a label or message: a badge is a word or two.
	maxRunes = 64
)

// Badge is a label and a message on a colour.
type Badge struct {
	Label   string
	Message string
	Color   string
}

// TextWidth is the width in pixels of s set in DejaVu Sans at the badge's font size.
func TextWidth(s string) float64 {
	units := 0
	for _, r := range s {
		units += advance(r)
	}
	return float64(units) * fontSize / unitsPerEm
}

// clipText bounds a text and makes it one line of valid UTF-8.
func clipText(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
	return textclip.Runes(s, maxRunes)
}

// SVG draws the badge.
func (b Badge) SVG() []byte {
	label, msg := clipText(b.Label), clipText(b.Message)
	color := b.Color
	if !validColor(color) {
		color = ColorGrey
	}
	lw, mw := math.Ceil(TextWidth(label)), math.Ceil(TextWidth(msg))
	lbox, mbox := lw+2*padding, mw+2*padding
	total := lbox + mbox
	title := html.EscapeString(label + ": " + msg)
	var sb strings.Builder
	fmt.Fprintf(&sb, `<svg xmlns="http://www.w3.org/2000/svg" width="%g" height="%d" role="img" aria-label="%s">`, total, height, title)
	fmt.Fprintf(&sb, `<title>%s</title>`, title)
	sb.WriteString(`<linearGradient id="s" x2="0" y2="100%"><stop offset="0" stop-color="#bbb" stop-opacity=".1"/><stop offset="1" stop-opacity=".1"/></linearGradient>`)
	fmt.Fprintf(&sb, `<clipPath id="r"><rect width="%g" height="%d" rx="3" fill="#fff"/></clipPath>`, total, height)
	fmt.Fprintf(&sb, `<g clip-path="url(#r)"><rect width="%g" height="%d" fill="%s"/><rect x="%g" width="%g" height="%d" fill="%s"/><rect width="%g" height="%d" fill="url(#s)"/></g>`,
		lbox, height, labelColor, lbox, mbox, height, color, total, height)
	sb.WriteString(`<g fill="#fff" text-anchor="middle" font-family="DejaVu Sans,Verdana,Geneva,sans-serif" font-size="11" text-rendering="geometricPrecision">`)
	text := func(x, w float64, s string) {
		if s == "" {
			return
		}
		e := html.EscapeString(s)
		fmt.Fprintf(&sb, `<text x="%g" y="15" fill="#010101" fill-opacity=".3" textLength="%g" lengthAdjust="spacing" aria-hidden="true">%s</text>`, x, w, e)
		fmt.Fprintf(&sb, `<text x="%g" y="14" textLength="%g" lengthAdjust="spacing">%s</text>`, x, w, e)
	}
	text(lbox/2, lw, label)
	text(lbox+mbox/2, mw, msg)
	sb.WriteString(`</g></svg>`)
	return []byte(sb.String())
}

// validColor accepts #rgb and #rrggbb only: the colour lands in an attribute.
func validColor(c string) bool {
	if len(c) != 4 && len(c) != 7 || c[0] != '#' {
		return false
	}
	for _, r := range c[1:] {
		if !strings.ContainsRune("0123456789abcdefABCDEF", r) {
			return false
		}
	}
	return true
}
