package alert

import (
	"fmt"
	"slices"
	"time"

	"github.com/mcpwatch/mcpwatch/store"
)

// Bounds of the latency memory.
const (
	maxLatencySamples = 1000 // per step in the window
	maxBaselineDays   = 30
)

// latencyMemory is one step's latency: the samples of the window and a histogram a day for the
// baseline (the store's fixed buckets, so a day costs two dozen numbers whatever the rate).
type latencyMemory struct {
	Samples []latencySample `json:"samples,omitempty"`
	Days    []latencyDay    `json:"days,omitempty"`
}

type latencySample struct {
	At int64 `json:"t"`  // Unix milliseconds
	US int64 `json:"us"` // microseconds
}

type latencyDay struct {
	Day  int64   `json:"day"` // days since the Unix epoch, UTC
	Hist []int64 `json:"hist"`
	Min  int64   `json:"min"`
	Max  int64   `json:"max"`
}

// latency judges the p95 of each watched step over the window against the bound and the
// baseline.
func (e *evaluator) latency(obs *Observation, mem map[string]*latencyMemory) []condition {
	cfg := e.cfg.Latency
	var out []condition
	for _, step := range cfg.Steps {
		i := slices.IndexFunc(obs.Steps, func(s StepLatency) bool { return s.Name == step })
		if i < 0 || obs.Steps[i].Latency < 0 {
			continue
		}
		m := mem[step]
		if m == nil {
			m = &latencyMemory{}
			mem[step] = m
		}
		m.add(obs.At, obs.Steps[i].Latency, cfg)
		if len(m.Samples) < cfg.MinSamples {
			continue
		}
		p95, worst := m.windowP95()
		base, baseN := m.baseline(obs.At, cfg.BaselineDays)
		c := condition{kind: KindLatency, key: step, state: condGood, ev: Evidence{Regions: []string{obs.Region}}}
		window := fmt.Sprintf("p95 of %s over the last %s is %s (%d runs, slowest %s)", step, durationText(cfg.Window), roundLatency(p95), len(m.Samples), roundLatency(worst))
		baseLine := fmt.Sprintf("baseline: p95 %s over %d day(s), %d runs", roundLatency(base), cfg.BaselineDays, baseN)
		ratio := *cfg.BaselineRatio
		var bound time.Duration
		switch {
		case cfg.P95Above > 0 && p95 > cfg.P95Above:
			bound = cfg.P95Above
			c.ev.Summary = fmt.Sprintf("%s, above the bound of %s", window, cfg.P95Above)
		case ratio > 0 && baseN >= int64(cfg.BaselineMinSamples) && p95 >= cfg.Floor && float64(p95) > ratio*float64(base):
			bound = time.Duration(ratio * float64(base))
			c.ev.Summary = fmt.Sprintf("%s, %.1f× its baseline of %s (bound: %g×)", window, float64(p95)/float64(base), roundLatency(base), ratio)
		default:
			c.ev.Summary = window
		}
		c.ev.Lines = []string{window, baseLine}
		if bound > 0 {
			c.state = condBad
			c.ev.Since = time.UnixMilli(m.firstAbove(bound)).UTC()
		}
		out = append(out, c)
	}
	return out
}

func (m *latencyMemory) add(at time.Time, d time.Duration, cfg LatencyConfig) {
	cut := at.Add(-cfg.Window).UnixMilli()
	m.Samples = slices.DeleteFunc(m.Samples, func(s latencySample) bool { return s.At <= cut })
	m.Samples = append(m.Samples, latencySample{At: at.UnixMilli(), US: d.Microseconds()})
	if n := len(m.Samples); n > maxLatencySamples {
		m.Samples = slices.Delete(m.Samples, 0, n-maxLatencySamples)
	}

	today := at.Unix() / 86400
	m.Days = slices.DeleteFunc(m.Days, func(d latencyDay) bool { return d.Day <= today-int64(cfg.BaselineDays) || d.Day > today+1 })
	i := slices.IndexFunc(m.Days, func(d latencyDay) bool { return d.Day == today })
	if i < 0 {
		m.Days = append(m.Days, latencyDay{Day: today, Hist: make([]int64, store.HistogramBuckets), Min: d.Microseconds(), Max: d.Microseconds()})
		i = len(m.Days) - 1
	}
	day := &m.Days[i]
	if len(day.Hist) != store.HistogramBuckets {
		day.Hist = make([]int64, store.HistogramBuckets)
	}
	bucket, _ := slices.BinarySearch(store.LatencyBucketBounds(), d)
	day.Hist[bucket]++
	day.Min, day.Max = min(day.Min, d.Microseconds()), max(day.Max, d.Microseconds())
}

// windowP95 is the nearest-rank p95 of the window's samples, and the slowest.
func (m *latencyMemory) windowP95() (p95, worst time.Duration) {
	us := make([]int64, len(m.Samples))
	for i, s := range m.Samples {
		us[i] = s.US
	}
	slices.Sort(us)
	rank := (95*len(us) + 99) / 100 // ceil(0.95 n)
	return time.Duration(us[rank-1]) * time.Microsecond, time.Duration(us[len(us)-1]) * time.Microsecond
}

// baseline is the p95 over the days of the baseline and the number of samples it rests on.
func (m *latencyMemory) baseline(at time.Time, days int) (time.Duration, int64) {
	today := at.Unix() / 86400
	sum := make(store.Histogram, store.HistogramBuckets)
	var n, lo, hi int64
	first := true
	for _, d := range m.Days {
		if d.Day <= today-int64(days) || d.Day > today {
			continue
		}
		for i, c := range d.Hist {
			sum[i] += c
			n += c
		}
		if first || d.Min < lo {
			lo = d.Min
		}
		hi = max(hi, d.Max)
		first = false
	}
	if n == 0 {
		return 0, 0
	}
	return sum.Quantile(0.95, time.Duration(lo)*time.Microsecond, time.Duration(hi)*time.Microsecond), n
}

// firstAbove is when the window's samples first went above bound, for "since" (Unix ms).
func (m *latencyMemory) firstAbove(bound time.Duration) int64 {
	for _, s := range m.Samples {
		if time.Duration(s.US)*time.Microsecond > bound {
			return s.At
		}
	}
	return m.Samples[len(m.Samples)-1].At
}

// roundLatency shows a latency to a useful precision.
func roundLatency(d time.Duration) time.Duration {
	switch {
	case d >= 10*time.Second:
		return d.Round(100 * time.Millisecond)
	case d >= time.Millisecond:
		return d.Round(time.Millisecond / 10)
	}
	return d.Round(time.Microsecond)
}
