package chart

import (
	"math"
	"strconv"
	"time"
)

// Series is one line of a time chart.
type Series struct {
	Name string
	// Class picks the line's colour (and dash) in the stylesheet.
	Class string
	// Values line up with the chart's X; NaN is a gap (no data in that bucket).
	Values []float64
}

// TimeChart draws series over a regular time grid, with a value axis from zero.
type TimeChart struct {
	Width, Height float64
	// X are the starts of the buckets, evenly spaced by Step, oldest first. A value is drawn
	// at the middle of its bucket.
	X      []time.Time
	Step   time.Duration
	Series []Series
	// Hover holds, per bucket, the text shown when the pointer is over that column (all the
	// series' values at that time); empty entries show nothing.
	Hover []string
	// YFormat labels the value axis (default: the number).
	YFormat func(float64) string
	Class   string
	// Label summarises the chart for screen readers.
	Label string
	// Empty is written in the plot area when no series has a value.
	Empty string
}

// Margins around the plot area, room for the axis labels.
const (
	marginLeft   = 56
	marginRight  = 10
	marginTop    = 10
	marginBottom = 24
)

// SVG draws the chart: horizontal grid lines with value labels, time labels below, one path
// per series (broken at gaps, lone points as dots) and, over everything, transparent columns
// that carry the hover text.
func (c TimeChart) SVG() string {
	var s svg
	s.open(c.Width, c.Height, c.Class, "img", c.Label, "")
	s.title(c.Label)
	plotW := c.Width - marginLeft - marginRight
	plotH := c.Height - marginTop - marginBottom
	format := c.YFormat
	if format == nil {
		format = func(v float64) string { return strconv.FormatFloat(v, 'g', 4, 64) }
	}

	var all []float64
	for _, se := range c.Series {
		all = append(all, se.Values...)
	}
	lo, hi, ok := extent(all)
	if !ok {
		lo, hi = 0, 1
	}
	yTicks := valueTicks(lo, hi, max(int(plotH/40), 2))
	yMin, yMax := yTicks[0], yTicks[len(yTicks)-1]
	y := func(v float64) float64 { return marginTop + (yMax-v)/(yMax-yMin)*plotH }
	for _, v := range yTicks {
		s.line(marginLeft, y(v), marginLeft+plotW, y(v), "grid")
		s.text(marginLeft-6, y(v)+4, "end", "axis", format(v))
	}

	n := len(c.X)
	if n == 0 {
		s.text(marginLeft+plotW/2, marginTop+plotH/2, "middle", "empty", c.Empty)
		return s.close()
	}
	from, to := c.X[0], c.X[n-1].Add(c.Step)
	span := float64(to.Sub(from))
	xAt := func(t time.Time) float64 { return marginLeft + float64(t.Sub(from))/span*plotW }
	x := func(i int) float64 { return xAt(c.X[i].Add(c.Step / 2)) }
	ticks, tickStep := timeTicks(from, to, max(int(plotW/80), 2))
	for _, t := range ticks {
		px := xAt(t)
		s.line(px, marginTop+plotH, px, marginTop+plotH+4, "tick")
		anchor := "middle"
		switch {
		case px-marginLeft < 20:
			anchor = "start"
		case marginLeft+plotW-px < 20:
			anchor = "end"
		}
		s.text(px, c.Height-6, anchor, "axis", timeLabel(t, tickStep))
	}
	s.line(marginLeft, marginTop+plotH, marginLeft+plotW, marginTop+plotH, "baseline")

	for _, se := range c.Series {
		s.b.WriteString(`<g`)
		s.attr("class", "series "+se.Class)
		s.b.WriteString(`>`)
		s.title(se.Name)
		d, lone := pathOf(se.Values[:min(len(se.Values), n)], x, y)
		if d != "" {
			s.b.WriteString(`<path class="line" d="` + d + `"/>`)
		}
		for _, i := range lone {
			s.b.WriteString(`<circle class="dot" cx="` + num(x(i)) + `" cy="` + num(y(se.Values[i])) + `" r="2.5"/>`)
		}
		s.b.WriteString(`</g>`)
	}
	if !ok {
		s.text(marginLeft+plotW/2, marginTop+plotH/2, "middle", "empty", c.Empty)
	}

	colW := plotW / float64(n)
	for i := range c.X {
		if i >= len(c.Hover) || c.Hover[i] == "" {
			continue
		}
		s.b.WriteString(`<rect class="hit"`)
		s.box(marginLeft+float64(i)*colW, marginTop, math.Max(colW, 0.5), plotH)
		s.b.WriteString(`>`)
		s.title(c.Hover[i])
		s.b.WriteString(`</rect>`)
	}
	return s.close()
}
