package chart

import "strings"

// pathOf joins the drawable points into a path that is broken at gaps: a NaN value ends a
// run of segments and the next value starts a new one. Points standing alone between gaps
// are returned separately, since a path of one point draws nothing.
func pathOf(values []float64, x func(i int) float64, y func(v float64) float64) (d string, lone []int) {
	var b strings.Builder
	runStart := -1
	for i := 0; i <= len(values); i++ {
		if i < len(values) && finite(values[i]) {
			if runStart < 0 {
				runStart = i
			}
			continue
		}
		if runStart < 0 {
			continue
		}
		if i-runStart == 1 {
			lone = append(lone, runStart)
		} else {
			for j := runStart; j < i; j++ {
				if j == runStart {
					b.WriteString("M")
				} else {
					b.WriteString("L")
				}
				b.WriteString(num(x(j)))
				b.WriteByte(' ')
				b.WriteString(num(y(values[j])))
			}
		}
		runStart = -1
	}
	return b.String(), lone
}
