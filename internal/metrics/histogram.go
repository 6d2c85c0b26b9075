package metrics

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"sync/atomic"
)

var (
	_ Collector = (*Histogram)(nil)
	_ Collector = (*HistogramVec)(nil)
)

// HistogramOpts name and describe a histogram and give its buckets.
type HistogramOpts struct {
	Name string
	Help string
	// Buckets are the upper bounds of the buckets, strictly increasing; the +Inf bucket is
	// always there and need not be given.
	Buckets []float64
}

// Histogram counts observations into cumulative buckets and keeps their sum. Safe for
// concurrent use; an observation is one atomic increment and one atomic add.
type Histogram struct {
	desc
	bounds []float64 // shared with the other children of a vector; never written
	// counts[i] counts the observations of bucket i alone (counts[len(bounds)] those above
	// the last bound); the exposition makes them cumulative. The total count is their sum,
	// so _count always equals the +Inf bucket.
	counts []atomic.Uint64
	sum    atomicFloat
}

// NewHistogram makes a histogram; it panics if o.Name is not a valid metric name or the
// buckets are not strictly increasing.
func NewHistogram(o HistogramOpts) *Histogram {
	d := newDesc(Opts{Name: o.Name, Help: o.Help})
	return newHistogram(d, histogramBounds(d.name, o.Buckets))
}

func newHistogram(d desc, bounds []float64) *Histogram {
	return &Histogram{desc: d, bounds: bounds, counts: make([]atomic.Uint64, len(bounds)+1)}
}

// histogramBounds is a copy of buckets without a trailing +Inf.
func histogramBounds(metric string, buckets []float64) []float64 {
	bounds := slices.Clone(buckets)
	if n := len(bounds); n > 0 && math.IsInf(bounds[n-1], 1) {
		bounds = bounds[:n-1]
	}
	for i, b := range bounds {
		if math.IsNaN(b) || i > 0 && !(b > bounds[i-1]) {
			panic(fmt.Sprintf("metrics: %s: buckets must be strictly increasing, got %v", metric, buckets))
		}
	}
	return bounds
}

// Observe counts v into the first bucket whose upper bound is at least v (NaN: only +Inf).
func (h *Histogram) Observe(v float64) {
	h.counts[sort.SearchFloat64s(h.bounds, v)].Add(1)
	h.sum.add(v)
}

func (h *Histogram) snapshot() series {
	s := series{bounds: h.bounds, counts: make([]uint64, len(h.counts))}
	var total uint64
	for i := range h.counts {
		total += h.counts[i].Load()
		s.counts[i] = total
	}
	s.sum = h.sum.load()
	return s
}

func (h *Histogram) collect(dst []family) []family {
	return append(dst, h.single(kindHistogram, h.snapshot()))
}

// HistogramVec is a histogram per combination of label values. Safe for concurrent use.
type HistogramVec struct {
	v *vec[Histogram]
}

// NewHistogramVec makes a histogram with the label names labelNames; it panics if a name is
// invalid (le is the buckets') or the buckets are not strictly increasing.
func NewHistogramVec(o HistogramOpts, labelNames []string) *HistogramVec {
	d := newDesc(Opts{Name: o.Name, Help: o.Help})
	checkLabelNames(d.name, labelNames, "le")
	bounds := histogramBounds(d.name, o.Buckets)
	return &HistogramVec{v: newVec(d, labelNames, func() *Histogram { return newHistogram(d, bounds) })}
}

// WithLabelValues is the histogram of values, given in the order of the constructor's label
// names; it panics if their number differs from the number of label names.
func (h *HistogramVec) WithLabelValues(values ...string) *Histogram { return h.v.with(values) }

func (h *HistogramVec) names() []string { return h.v.names() }

func (h *HistogramVec) collect(dst []family) []family {
	return h.v.collectAs(dst, kindHistogram, (*Histogram).snapshot)
}

// ExponentialBucketsRange is count bucket bounds from minBound to maxBound, each the previous
// one times the same factor; as client_golang's function of the same name, to the bit. It
// panics if count is below 1 or minBound is not above 0.
func ExponentialBucketsRange(minBound, maxBound float64, count int) []float64 {
	if count < 1 {
		panic(fmt.Sprintf("metrics: ExponentialBucketsRange: count %d is below 1", count))
	}
	if minBound <= 0 {
		panic(fmt.Sprintf("metrics: ExponentialBucketsRange: minimum %v is not above 0", minBound))
	}
	if count == 1 {
		return []float64{minBound}
	}
	// minBound·factor^(count-1) = maxBound. Each bound is computed from minBound, not from
	// the previous one, so that rounding errors do not accumulate (and the bounds equal
	// client_golang's, whose le values existing dashboards and recording rules name).
	factor := math.Pow(maxBound/minBound, 1/float64(count-1))
	buckets := make([]float64, count)
	for i := range buckets {
		buckets[i] = minBound * math.Pow(factor, float64(i))
	}
	return buckets
}
