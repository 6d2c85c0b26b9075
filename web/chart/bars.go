package chart

import "math"

// Bar is one bar of a strip, such as one day of uptime.
type Bar struct {
	// Fill is the bar's height as a fraction of the strip's height (clamped to 0..1). A bar
	// of 0 is drawn as a stub, so that every slot stays visible and can be hovered.
	Fill float64
	// Class picks the bar's colour in the stylesheet.
	Class string
	// Label is what the bar stands for, in words and numbers: shown on hover and read by
	// screen readers.
	Label string
	// Share is the fraction (0..1) of the bar drawn on top of it in ShareClass, such as the
	// failed runs of a day over its good ones: the bar shows a proportion rather than one
	// colour for the whole. A share above 0 is at least minShareHeight tall, so that one
	// failure among a thousand runs can still be seen.
	Share      float64
	ShareClass string
}

// Bars is a strip of equally wide bars, oldest first.
type Bars struct {
	Width, Height float64
	// Gap is the space between two bars.
	Gap   float64
	Bars  []Bar
	Class string
	// Label names the strip for screen readers.
	Label string
	// Stretch lets the strip fill any box, bars widening or narrowing with it (bars have no
	// text to distort).
	Stretch bool
}

// stubHeight is the height of an empty bar.
const stubHeight = 2

// minShareHeight is the least height of a bar's share above 0.
const minShareHeight = 3

// SVG draws the strip: one rectangle per bar, each a list item named by its <title>, which
// browsers show on hover and screen readers read. A status page draws thousands of them, so
// each is kept to one element.
func (c Bars) SVG() string {
	var s svg
	extra := ""
	if c.Stretch {
		extra = ` preserveAspectRatio="none"`
	}
	s.open(c.Width, c.Height, c.Class, "list", c.Label, extra)
	n := len(c.Bars)
	if n > 0 {
		slot := c.Width / float64(n)
		w := math.Max(slot-c.Gap, 1)
		s.b.Grow(n * (100 + len(c.Bars[0].Label)))
		for i, b := range c.Bars {
			x := float64(i)*slot + (slot-w)/2
			h := math.Max(math.Min(math.Max(b.Fill, 0), 1)*c.Height, stubHeight)
			if !finite(b.Fill) {
				h = stubHeight
			}
			s.b.WriteString(`<rect role="listitem"`)
			s.box(x, c.Height-h, w, h)
			s.attr("class", b.Class)
			s.b.WriteString(`>`)
			s.title(b.Label)
			s.b.WriteString(`</rect>`)
			if finite(b.Share) && b.Share > 0 {
				// Not a list item of its own: the bar beneath names the whole day.
				sh := math.Min(math.Max(math.Min(b.Share, 1)*h, minShareHeight), h)
				s.b.WriteString(`<rect`)
				s.box(x, c.Height-h, w, sh)
				s.attr("class", "share "+b.ShareClass)
				s.b.WriteString(`/>`)
			}
		}
	}
	return s.close()
}
