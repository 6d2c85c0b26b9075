package chart

import (
	"math"
	"strconv"
	"time"
)

// valueTicks returns round tick values from 0 (or below, for negative data) up to at least
// hi, about want of them: steps of 1, 2, 2.5 or 5 times a power of ten.
func valueTicks(lo, hi float64, want int) []float64 {
	lo = math.Min(lo, 0)
	if hi <= lo {
		hi = lo + 1
	}
	raw := (hi - lo) / float64(max(want, 1))
	pow := math.Pow(10, math.Floor(math.Log10(raw)))
	step := pow * 10
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*pow >= raw {
			step = m * pow
			break
		}
	}
	first := math.Floor(lo/step) * step
	var out []float64
	for i := 0; ; i++ {
		v := first + float64(i)*step
		// Round away float noise (0.30000000000000004) to what the step can express.
		v, _ = strconv.ParseFloat(strconv.FormatFloat(v, 'g', 10, 64), 64)
		out = append(out, v)
		if v >= hi || i > 100 {
			break
		}
	}
	return out
}

// timeSteps are the spacings a time axis may use, smallest first.
func timeSteps() []time.Duration {
	h := time.Hour
	return []time.Duration{h, 2 * h, 3 * h, 6 * h, 12 * h, 24 * h, 48 * h, 7 * 24 * h, 14 * 24 * h, 28 * 24 * h}
}

// timeTicks returns instants inside [from, to] aligned to a whole step in UTC, with the
// smallest step that keeps them at most max apart in count.
func timeTicks(from, to time.Time, maxTicks int) (ticks []time.Time, step time.Duration) {
	span := to.Sub(from)
	steps := timeSteps()
	step = steps[len(steps)-1]
	for _, s := range steps {
		if span/s <= time.Duration(max(maxTicks, 1)) {
			step = s
			break
		}
	}
	// Multiples of the step since the Unix epoch fall on UTC midnights for whole days.
	t := time.Unix(0, 0).UTC().Add(from.Sub(time.Unix(0, 0)).Truncate(step))
	if t.Before(from) {
		t = t.Add(step)
	}
	for ; !t.After(to); t = t.Add(step) {
		ticks = append(ticks, t)
	}
	return ticks, step
}

// timeLabel names a tick: the hour within a day, the date at midnight or for day steps.
func timeLabel(t time.Time, step time.Duration) string {
	t = t.UTC()
	if step < 24*time.Hour && (t.Hour() != 0 || t.Minute() != 0) {
		return t.Format("15:04")
	}
	return t.Format("Jan 2")
}
