// Package chart draws the dashboard's charts as SVG on the server: a strip of bars (uptime by
// day), a sparkline and a time chart with axes (latency percentiles). Output is deterministic
// (same input, same bytes), carries no script and no colours: every mark has a CSS class, so
// the page's stylesheet colours it and dark mode needs no second drawing. Every text that ends
// up in the SVG is escaped here, so the caller may embed the result in HTML as it is.
package chart

import (
	"html"
	"math"
	"strconv"
	"strings"
)

// svg accumulates one drawing.
type svg struct {
	b strings.Builder
	// scratch holds a number while it is formatted: writing it through here rather than
	// through num's string spares an allocation per coordinate, and a status page writes some
	// twenty thousand of them.
	scratch [32]byte
}

// num writes v as num formats it.
func (s *svg) num(v float64) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		s.b.WriteByte('0')
		return
	}
	v = math.Round(v*100) / 100
	if v == 0 {
		s.b.WriteByte('0') // also turns -0 into 0
		return
	}
	s.b.Write(strconv.AppendFloat(s.scratch[:0], v, 'f', -1, 64))
}

// open writes the root element. The viewBox lets CSS scale the drawing to its container.
func (s *svg) open(width, height float64, class, role, label string, extra string) {
	s.b.WriteString(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 `)
	s.b.WriteString(num(width))
	s.b.WriteByte(' ')
	s.b.WriteString(num(height))
	s.b.WriteString(`" width="`)
	s.b.WriteString(num(width))
	s.b.WriteString(`" height="`)
	s.b.WriteString(num(height))
	s.b.WriteString(`"`)
	s.attr("class", class)
	s.attr("role", role)
	s.attr("aria-label", label)
	s.b.WriteString(extra)
	s.b.WriteString(`>`)
}

func (s *svg) close() string {
	s.b.WriteString(`</svg>`)
	return s.b.String()
}

// attr writes name="value" with the value escaped; empty values are left out.
// box writes the x, y, width and height attributes of a rectangle.
func (s *svg) box(x, y, w, h float64) {
	s.b.WriteString(` x="`)
	s.num(x)
	s.b.WriteString(`" y="`)
	s.num(y)
	s.b.WriteString(`" width="`)
	s.num(w)
	s.b.WriteString(`" height="`)
	s.num(h)
	s.b.WriteByte('"')
}

func (s *svg) attr(name, value string) {
	if value == "" {
		return
	}
	s.b.WriteByte(' ')
	s.b.WriteString(name)
	s.b.WriteString(`="`)
	s.b.WriteString(html.EscapeString(value))
	s.b.WriteByte('"')
}

// title writes a <title> child: browsers show it on hover and screen readers read it.
func (s *svg) title(text string) {
	if text == "" {
		return
	}
	s.b.WriteString(`<title>`)
	s.b.WriteString(html.EscapeString(text))
	s.b.WriteString(`</title>`)
}

// text writes a <text> element.
func (s *svg) text(x, y float64, anchor, class, content string) {
	s.b.WriteString(`<text x="`)
	s.b.WriteString(num(x))
	s.b.WriteString(`" y="`)
	s.b.WriteString(num(y))
	s.b.WriteString(`"`)
	s.attr("text-anchor", anchor)
	s.attr("class", class)
	s.b.WriteString(`>`)
	s.b.WriteString(html.EscapeString(content))
	s.b.WriteString(`</text>`)
}

// line writes a straight <line>.
func (s *svg) line(x1, y1, x2, y2 float64, class string) {
	s.b.WriteString(`<line x1="` + num(x1) + `" y1="` + num(y1) + `" x2="` + num(x2) + `" y2="` + num(y2) + `"`)
	s.attr("class", class)
	s.b.WriteString(`/>`)
}

// num formats a coordinate with at most two decimals and no trailing zeros, so that output
// is short and the same on every platform.
func num(v float64) string {
	var s svg
	s.num(v)
	return s.b.String()
}

// finite reports whether v is a value to draw (NaN marks a gap).
func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// extent returns the smallest and largest finite values, and false when there is none.
func extent(values []float64) (lo, hi float64, ok bool) {
	for _, v := range values {
		if !finite(v) {
			continue
		}
		if !ok {
			lo, hi, ok = v, v, true
			continue
		}
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	return lo, hi, ok
}
