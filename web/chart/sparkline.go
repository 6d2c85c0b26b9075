package chart

// Sparkline is a small line without axes: the shape of recent values at a glance.
type Sparkline struct {
	Width, Height float64
	// Values are evenly spaced, oldest first; NaN is a gap (no data).
	Values []float64
	// ZeroBased scales from 0 rather than from the smallest value, so that noise on a flat
	// series does not look like a swing.
	ZeroBased bool
	Class     string
	// Label describes the line for screen readers and on hover.
	Label string
}

// sparkPad keeps the stroke inside the box at the extremes.
const sparkPad = 2

// SVG draws the line, a dot on the newest value, and nothing when no value is finite.
func (c Sparkline) SVG() string {
	var s svg
	s.open(c.Width, c.Height, c.Class, "img", c.Label, "")
	s.title(c.Label)
	lo, hi, ok := extent(c.Values)
	if ok {
		if c.ZeroBased && lo > 0 {
			lo = 0
		}
		n := len(c.Values)
		x := func(i int) float64 {
			if n == 1 {
				return c.Width / 2
			}
			return sparkPad + float64(i)*(c.Width-2*sparkPad)/float64(n-1)
		}
		y := func(v float64) float64 {
			if hi == lo {
				return c.Height / 2
			}
			return sparkPad + (hi-v)/(hi-lo)*(c.Height-2*sparkPad)
		}
		d, lone := pathOf(c.Values, x, y)
		if d != "" {
			s.b.WriteString(`<path class="line" d="` + d + `"/>`)
		}
		for _, i := range lone {
			s.b.WriteString(`<circle class="dot" cx="` + num(x(i)) + `" cy="` + num(y(c.Values[i])) + `" r="1.5"/>`)
		}
		if last := n - 1; finite(c.Values[last]) {
			s.b.WriteString(`<circle class="last" cx="` + num(x(last)) + `" cy="` + num(y(c.Values[last])) + `" r="2"/>`)
		}
	}
	return s.close()
}
