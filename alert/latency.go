package alert

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/mcpwatch/mcpwatch/store"
)

// Bounds of the latency memory.
const (
	maxLatencySamples = 1000 // per step and region in the window
	maxBaselineDays   = 30
	// minP95Samples is the fewest samples whose p95 is not simply the slowest of them
	// (nearest rank: ceil(0.95 n) < n from n = 20 on).
	minP95Samples = 20
)

// latencyMemory is one step's latency, one series per region: each region is judged on its
// own, so that a slow region and a fast one never take turns opening and closing the alert.
//
// Samples and Days are how the memory was kept before regions were told apart (the samples
// of all regions together); the first region observed since adopts their days as its
// baseline, and they are dropped.
type latencyMemory struct {
	Regions map[string]*latencySeries `json:"regions,omitempty"`
	Samples []latencySample           `json:"samples,omitempty"`
	Days    []latencyDay              `json:"days,omitempty"`
}

// latencySeries is one region's latency of one step: the samples of the window, and a
// histogram a day of the samples that left it, for the baseline (the store's fixed buckets,
// so a day costs two dozen numbers whatever the rate). The window's samples are not in the
// days, so the baseline never includes the window it is compared with.
type latencySeries struct {
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
	// From and To are the times of the day's first and last samples (Unix ms), for the span
	// the baseline really covers; 0 in days kept before they were recorded.
	From int64 `json:"from,omitempty"`
	To   int64 `json:"to,omitempty"`
}

// regionLatency is one region's verdict on a step.
type regionLatency struct {
	region string
	state  condState
	since  time.Time // the first sample above the bound, when bad
	text   string    // what the window says
	base   string    // what the baseline says
	worst  time.Duration
}

// latency judges each watched step in each region that has run it lately: bad while some
// region is slow, good when every region judged is fast again.
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
		m.series(obs.Region).add(obs.At, obs.Steps[i].Latency, cfg)

		var bad, good []regionLatency
		for _, region := range slices.Sorted(maps.Keys(m.Regions)) {
			v := e.judgeLatency(step, region, m.Regions[region], obs.At)
			switch v.state {
			case condBad:
				bad = append(bad, v)
			case condGood:
				good = append(good, v)
			}
		}
		c := condition{kind: KindLatency, key: step, regionSet: true}
		switch {
		case len(bad) > 0:
			c.state = condBad
			worst := slices.MaxFunc(bad, func(a, b regionLatency) int { return cmp.Compare(a.worst, b.worst) })
			c.ev.Summary = worst.text
			if len(bad) > 1 {
				c.ev.Summary = fmt.Sprintf("slow in %d regions; in %s: %s", len(bad), worst.region, worst.text)
			}
			for _, v := range bad {
				c.ev.Regions = append(c.ev.Regions, v.region)
				if c.ev.Since.IsZero() || v.since.Before(c.ev.Since) {
					c.ev.Since = v.since
				}
				c.ev.Lines = append(c.ev.Lines, v.region+": "+v.text, v.region+": "+v.base)
			}
			for _, v := range good {
				c.ev.Lines = append(c.ev.Lines, v.region+" is fast: "+v.text)
			}
		case len(good) > 0:
			c.state = condGood
			c.ev.Summary = fmt.Sprintf("%s is fast again in every region judged (%s)", step, strings.Join(regionNames(good), ", "))
			for _, v := range good {
				c.ev.Regions = append(c.ev.Regions, v.region)
				c.ev.Lines = append(c.ev.Lines, v.region+": "+v.text)
			}
		default:
			continue // no region has enough runs to say
		}
		out = append(out, c)
	}
	return out
}

func regionNames(vs []regionLatency) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.region
	}
	return out
}

// judgeLatency judges one region's step at now: by the p95 of the window when it holds
// min-samples runs, by "slow-runs of the last recent-runs slower than the bound" when it
// holds fewer, not at all below recent-runs. The bound is p95-above, or baseline-ratio times
// the p95 of the region's own baseline (once it rests on baseline-min-samples runs, and not
// below floor).
func (e *evaluator) judgeLatency(step, region string, s *latencySeries, now time.Time) regionLatency {
	cfg := e.cfg.Latency
	v := regionLatency{region: region}
	window := s.window(now, cfg.Window)
	if len(window) == 0 || (len(window) < cfg.MinSamples && len(window) < cfg.RecentRuns) {
		return v // too few runs to judge: unknown
	}
	base, baseN, span := s.baseline(now, cfg.BaselineDays)
	ratio := *cfg.BaselineRatio
	var bound time.Duration
	var boundText string
	switch {
	case cfg.P95Above > 0:
		bound, boundText = cfg.P95Above, fmt.Sprintf("the bound of %s", cfg.P95Above)
	}
	if ratio > 0 && baseN >= int64(cfg.BaselineMinSamples) {
		if rb := max(time.Duration(ratio*float64(base)), cfg.Floor); bound == 0 || rb < bound {
			bound, boundText = rb, fmt.Sprintf("%g× its baseline of %s", ratio, roundLatency(base))
			if rb == cfg.Floor {
				boundText = fmt.Sprintf("the floor of %s (%g× its baseline of %s is below it)", cfg.Floor, ratio, roundLatency(base))
			}
		}
	}
	switch {
	case baseN == 0:
		v.base = "no baseline yet"
	case baseN < int64(cfg.BaselineMinSamples):
		v.base = fmt.Sprintf("no baseline yet: %d runs over %s, %d needed", baseN, durationText(span), cfg.BaselineMinSamples)
	default:
		v.base = fmt.Sprintf("baseline: p95 %s over %s (%d runs before the window)", roundLatency(base), durationText(span), baseN)
	}

	v.worst = window[len(window)-1].dur()
	for _, x := range window {
		v.worst = max(v.worst, x.dur())
	}
	if len(window) >= cfg.MinSamples {
		p95 := nearestRank95(window)
		v.text = fmt.Sprintf("p95 of %s over the last %s is %s (%d runs, slowest %s)", step, durationText(cfg.Window), roundLatency(p95), len(window), roundLatency(v.worst))
		v.state = condGood
		if bound > 0 && p95 > bound {
			v.state = condBad
			v.text += ", above " + boundText
		}
	} else {
		last := window[len(window)-cfg.RecentRuns:]
		slow := 0
		for _, x := range last {
			if bound > 0 && x.dur() > bound {
				slow++
			}
		}
		v.text = fmt.Sprintf("%d of the last %d runs of %s", slow, len(last), step)
		v.state = condGood
		if bound > 0 {
			v.text += fmt.Sprintf(" slower than %s (slowest %s; too few runs in %s for a p95)", boundText, roundLatency(v.worst), durationText(cfg.Window))
		}
		if slow >= cfg.SlowRuns {
			v.state = condBad
		}
	}
	if v.state == condBad {
		v.since = time.UnixMilli(firstAbove(window, bound)).UTC()
	}
	return v
}

// series returns a region's series, made on first use; the first one made adopts the days of
// a memory kept before regions were told apart.
func (m *latencyMemory) series(region string) *latencySeries {
	if s := m.Regions[region]; s != nil {
		return s
	}
	if m.Regions == nil {
		m.Regions = map[string]*latencySeries{}
	}
	s := &latencySeries{Days: m.Days}
	m.Regions[region] = s
	m.Samples, m.Days = nil, nil
	return s
}

func (x latencySample) dur() time.Duration { return time.Duration(x.US) * time.Microsecond }

// add records a sample; samples that leave the window go to their day's histogram.
func (s *latencySeries) add(at time.Time, d time.Duration, cfg LatencyConfig) {
	cut := at.Add(-cfg.Window).UnixMilli()
	keep := s.Samples[:0]
	for _, x := range s.Samples {
		if x.At <= cut {
			s.toDay(x)
		} else {
			keep = append(keep, x)
		}
	}
	s.Samples = append(keep, latencySample{At: at.UnixMilli(), US: d.Microseconds()})
	if n := len(s.Samples); n > maxLatencySamples {
		for _, x := range s.Samples[:n-maxLatencySamples] {
			s.toDay(x)
		}
		s.Samples = slices.Delete(s.Samples, 0, n-maxLatencySamples)
	}
	today := at.Unix() / 86400
	s.Days = slices.DeleteFunc(s.Days, func(d latencyDay) bool { return d.Day <= today-int64(cfg.BaselineDays) || d.Day > today+1 })
}

// toDay counts a sample in its day's histogram.
func (s *latencySeries) toDay(x latencySample) {
	day := x.At / 86400000
	i := slices.IndexFunc(s.Days, func(d latencyDay) bool { return d.Day == day })
	if i < 0 {
		s.Days = append(s.Days, latencyDay{Day: day, Hist: make([]int64, store.HistogramBuckets), Min: x.US, Max: x.US, From: x.At, To: x.At})
		i = len(s.Days) - 1
	}
	d := &s.Days[i]
	if len(d.Hist) != store.HistogramBuckets {
		d.Hist = make([]int64, store.HistogramBuckets)
	}
	bucket, _ := slices.BinarySearch(store.LatencyBucketBounds(), x.dur())
	d.Hist[bucket]++
	d.Min, d.Max = min(d.Min, x.US), max(d.Max, x.US)
	if d.From == 0 || x.At < d.From {
		d.From = x.At
	}
	d.To = max(d.To, x.At)
}

// window is the samples within the window ending at now, oldest first.
func (s *latencySeries) window(now time.Time, window time.Duration) []latencySample {
	cut, end := now.Add(-window).UnixMilli(), now.UnixMilli()
	var out []latencySample
	for _, x := range s.Samples {
		if x.At > cut && x.At <= end {
			out = append(out, x)
		}
	}
	return out
}

// nearestRank95 is the nearest-rank p95 of samples.
func nearestRank95(samples []latencySample) time.Duration {
	us := make([]int64, len(samples))
	for i, x := range samples {
		us[i] = x.US
	}
	slices.Sort(us)
	rank := (95*len(us) + 99) / 100 // ceil(0.95 n)
	return time.Duration(us[rank-1]) * time.Microsecond
}

// baseline is the p95 of the days of the baseline, the number of samples it rests on, and the
// span they really cover (from the first sample to the last, not the days configured).
func (s *latencySeries) baseline(now time.Time, days int) (time.Duration, int64, time.Duration) {
	today := now.Unix() / 86400
	sum := make(store.Histogram, store.HistogramBuckets)
	var n, lo, hi, from, to int64
	first := true
	for _, d := range s.Days {
		if d.Day <= today-int64(days) || d.Day > today {
			continue
		}
		for i, c := range d.Hist {
			sum[i] += c
			n += c
		}
		dFrom, dTo := d.From, d.To
		if dFrom == 0 { // a day kept before its span was: all of it, up to now
			dFrom, dTo = d.Day*86400000, min((d.Day+1)*86400000, now.UnixMilli())
		}
		if first || d.Min < lo {
			lo = d.Min
		}
		if first || dFrom < from {
			from = dFrom
		}
		hi, to = max(hi, d.Max), max(to, dTo)
		first = false
	}
	if n == 0 {
		return 0, 0, 0
	}
	span := time.Duration(to-from) * time.Millisecond
	return sum.Quantile(0.95, time.Duration(lo)*time.Microsecond, time.Duration(hi)*time.Microsecond), n, span
}

// firstAbove is when samples first went above bound, for "since" (Unix ms).
func firstAbove(samples []latencySample, bound time.Duration) int64 {
	for _, x := range samples {
		if x.dur() > bound {
			return x.At
		}
	}
	return samples[len(samples)-1].At
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
