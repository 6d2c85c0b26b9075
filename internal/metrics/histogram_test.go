package metrics

import (
	"math"
	"slices"
	"testing"
)

func TestHistogramCountsAnObservationIntoTheFirstBucketNotBelowIt(t *testing.T) {
	t.Parallel()
	bounds := []float64{0.1, 1, 10}
	tests := []struct {
		name string
		v    float64
		want []uint64 // cumulative, +Inf last
	}{
		{"below the first bound", 0.05, []uint64{1, 1, 1, 1}},
		{"negative", -3, []uint64{1, 1, 1, 1}},
		{"on a bound", 1, []uint64{0, 1, 1, 1}},
		{"between bounds", 1.5, []uint64{0, 0, 1, 1}},
		{"on the last bound", 10, []uint64{0, 0, 1, 1}},
		{"above the last bound", 11, []uint64{0, 0, 0, 1}},
		{"+Inf", math.Inf(1), []uint64{0, 0, 0, 1}},
		{"NaN", math.NaN(), []uint64{0, 0, 0, 1}},
	}
	for _, tt := range tests {
		h := NewHistogram(HistogramOpts{Name: "h", Buckets: bounds})
		h.Observe(tt.v)
		if s := h.snapshot(); !slices.Equal(s.counts, tt.want) {
			t.Errorf("%s (%v): counts %v, want %v", tt.name, tt.v, s.counts, tt.want)
		}
	}
}

func TestHistogramSumsObservations(t *testing.T) {
	t.Parallel()
	h := NewHistogram(HistogramOpts{Name: "h", Buckets: []float64{1}})
	for _, v := range []float64{0.5, 0.25, 2} {
		h.Observe(v)
	}
	if s := h.snapshot(); s.sum != 2.75 || !slices.Equal(s.counts, []uint64{2, 3}) {
		t.Errorf("sum %v counts %v, want 2.75 [2 3]", s.sum, s.counts)
	}
}

func TestHistogramKeepsItsBucketsWhenTheCallerChangesTheSlice(t *testing.T) {
	t.Parallel()
	buckets := []float64{1, 2}
	h := NewHistogram(HistogramOpts{Name: "h", Buckets: buckets})
	buckets[0] = 5
	h.Observe(1)
	if s := h.snapshot(); !slices.Equal(s.bounds, []float64{1, 2}) || s.counts[0] != 1 {
		t.Errorf("bounds %v counts %v", s.bounds, s.counts)
	}
}

// The expected values are client_golang v1.25.0's, to the bit: the le values of the
// histograms mcpwatch served before it stopped using client_golang.
func TestExponentialBucketsRangeEqualsClientGolangs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		min, max float64
		count    int
		want     []float64
	}{
		{0.005, 600, 16, []float64{0.005, 0.010903905711602171, 0.02377903195350209, 0.05185686446683239, 0.11308847212913467, 0.24662120743304689, 0.5378268784662847, 1.1728827143923375, 2.557800505700414, 5.578003108649133, 12.164403991146788, 26.527902831460338, 57.85155024015756, 126.16156981773878, 275.1307723440676, 599.999999999999}},
		{0.0005, 60, 16, []float64{0.0005, 0.001090390571160217, 0.002377903195350209, 0.005185686446683238, 0.011308847212913467, 0.024662120743304688, 0.05378268784662847, 0.11728827143923376, 0.2557800505700414, 0.5578003108649133, 1.2164403991146788, 2.6527902831460337, 5.785155024015756, 12.616156981773878, 27.513077234406758, 59.9999999999999}},
		{0.001, 30, 12, []float64{0.001, 0.0025527660955237228, 0.006516614738455433, 0.016635393161919223, 0.04246626764945457, 0.1084064482589635, 0.27673630565162877, 0.706443058467968, 1.8033838880751114, 4.6036172466918925, 11.751958024123333, 30.000000000000007}},
		{1, 100, 3, []float64{1, 10, 100}},
		{0.1, 1000, 5, []float64{0.1, 1.0000000000000002, 10.000000000000005, 100.00000000000006, 1000.0000000000009}},
		{1, 1, 1, []float64{1}},
		{2, 2, 3, []float64{2, 2, 2}},
	}
	for _, tt := range tests {
		if got := ExponentialBucketsRange(tt.min, tt.max, tt.count); !slices.Equal(got, tt.want) {
			t.Errorf("ExponentialBucketsRange(%v, %v, %d) = %v, want %v", tt.min, tt.max, tt.count, got, tt.want)
		}
	}
}

func TestExponentialBucketsRangePanicsOnImpossibleArguments(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		min   float64
		count int
	}{{1, 0}, {0, 3}, {-1, 3}} {
		if panicMessage(func() { ExponentialBucketsRange(tt.min, 10, tt.count) }) == "" {
			t.Errorf("ExponentialBucketsRange(%v, 10, %d) did not panic", tt.min, tt.count)
		}
	}
}
