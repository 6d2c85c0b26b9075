package metrics

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// panicMessage is what f panics with, "" if it does not.
func panicMessage(f func()) (msg string) {
	defer func() {
		if r := recover(); r != nil {
			msg = fmt.Sprint(r)
		}
	}()
	f()
	return ""
}

func TestWithLabelValuesPanicsNamingTheMetricOnAWrongCount(t *testing.T) {
	t.Parallel()
	counters := NewCounterVec(Opts{Name: "probes_total"}, []string{"region", "outcome"})
	gauges := NewGaugeVec(Opts{Name: "buffer_runs"}, []string{"where"})
	histograms := NewHistogramVec(HistogramOpts{Name: "latency_seconds", Buckets: []float64{1}}, []string{"step", "outcome"})
	tests := []struct {
		name string
		call func()
		want string
	}{
		{"counter, too few", func() { counters.WithLabelValues("eu") }, "probes_total takes 2 label values (region, outcome), got 1"},
		{"counter, too many", func() { counters.WithLabelValues("eu", "up", "x") }, "probes_total takes 2 label values (region, outcome), got 3"},
		{"gauge, none", func() { gauges.WithLabelValues() }, "buffer_runs takes 1 label values (where), got 0"},
		{"histogram, too few", func() { histograms.WithLabelValues("initialize") }, "latency_seconds takes 2 label values (step, outcome), got 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if msg := panicMessage(tt.call); !strings.Contains(msg, tt.want) {
				t.Errorf("panic %q, want one that says %q", msg, tt.want)
			}
		})
	}
}

func TestConstructorsPanicOnInvalidDefinitions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		call func()
		want string // "" when the definition is valid
	}{
		{"valid", func() { NewCounterVec(Opts{Name: "ns:a_total"}, []string{"_x", "code2"}) }, ""},
		{"empty name", func() { NewCounter(Opts{}) }, `"" is not a valid metric name`},
		{"name starting with a digit", func() { NewGauge(Opts{Name: "1a"}) }, `"1a" is not a valid metric name`},
		{"name with a dash", func() { NewGaugeFunc(Opts{Name: "a-b"}, func() float64 { return 0 }) }, `"a-b" is not a valid metric name`},
		{"label with a colon", func() { NewGaugeVec(Opts{Name: "g"}, []string{"a:b"}) }, `g: "a:b" is not a valid label name`},
		{"reserved label", func() { NewCounterVec(Opts{Name: "c"}, []string{"__name__"}) }, `c: "__name__" is not a valid label name`},
		{"label twice", func() { NewCounterVec(Opts{Name: "c"}, []string{"a", "a"}) }, `c: label "a" given twice`},
		{"le on a histogram", func() { NewHistogramVec(HistogramOpts{Name: "h"}, []string{"le"}) }, `h: "le" is not a valid label name`},
		{"le on a counter", func() { NewCounterVec(Opts{Name: "c"}, []string{"le"}) }, ""},
		{"buckets not increasing", func() { NewHistogram(HistogramOpts{Name: "h", Buckets: []float64{1, 1}}) }, "h: buckets must be strictly increasing"},
		{"NaN bucket", func() { NewHistogram(HistogramOpts{Name: "h", Buckets: []float64{math.NaN()}}) }, "h: buckets must be strictly increasing"},
		{"+Inf bucket given", func() { NewHistogram(HistogramOpts{Name: "h", Buckets: []float64{1, math.Inf(1)}}) }, ""},
		{"no buckets", func() { NewHistogram(HistogramOpts{Name: "h"}) }, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			msg := panicMessage(tt.call)
			if tt.want == "" && msg != "" || !strings.Contains(msg, tt.want) {
				t.Errorf("panic %q, want %q", msg, tt.want)
			}
		})
	}
}

func TestWithLabelValuesGivesOneMetricPerDistinctValues(t *testing.T) {
	t.Parallel()
	v := NewCounterVec(Opts{Name: "c_total"}, []string{"a", "b"})
	tests := []struct {
		name   string
		x, y   []string
		shared bool
	}{
		{"same values", []string{"p", "q"}, []string{"p", "q"}, true},
		{"swapped values", []string{"p", "q"}, []string{"q", "p"}, false},
		{"a separator moved between values", []string{"a,b", "c"}, []string{"a", "b,c"}, false},
		{"a NUL moved between values", []string{"a\x00", "b"}, []string{"a", "\x00b"}, false},
		{"empty values", []string{"", ""}, []string{"", ""}, true},
		{"long values", []string{strings.Repeat("x", 300), "y"}, []string{strings.Repeat("x", 300), "y"}, true},
	}
	for _, tt := range tests {
		if shared := v.WithLabelValues(tt.x...) == v.WithLabelValues(tt.y...); shared != tt.shared {
			t.Errorf("%s: same metric %v, want %v", tt.name, shared, tt.shared)
		}
	}
}

func TestWithLabelValuesRepairsInvalidUTF8(t *testing.T) {
	t.Parallel()
	r := NewRegistry()
	v := NewCounterVec(Opts{Name: "c_total"}, []string{"m"})
	mustRegister(t, r, v)
	v.WithLabelValues("a\xffb").Inc()
	v.WithLabelValues("a\uFFFDb").Inc() // the repaired value: the same series
	if got, want := scrape(t, r), "# HELP c_total \n# TYPE c_total counter\nc_total{m=\"a\uFFFDb\"} 2\n"; got != want {
		t.Errorf("exposition %q, want %q", got, want)
	}
}

func TestCounterPanicsOnANegativeAdd(t *testing.T) {
	t.Parallel()
	c := NewCounter(Opts{Name: "c_total"})
	if msg := panicMessage(func() { c.Add(-1) }); !strings.Contains(msg, "counter c_total cannot decrease") {
		t.Errorf("panic %q", msg)
	}
	if c.Value() != 0 {
		t.Errorf("value %v after the refused add", c.Value())
	}
}

func TestWithLabelValuesOfAnExistingMetricDoesNotAllocate(t *testing.T) {
	counters := NewCounterVec(Opts{Name: "c_total"}, []string{"route", "method", "code"})
	hists := NewHistogramVec(HistogramOpts{Name: "h", Buckets: []float64{1}}, []string{"route"})
	route, method, code := "GET /api/v1/servers", "GET", "200"
	counters.WithLabelValues(route, method, code).Inc()
	hists.WithLabelValues(route).Observe(1)
	if n := testing.AllocsPerRun(100, func() {
		counters.WithLabelValues(route, method, code).Inc()
		hists.WithLabelValues(route).Observe(0.5)
	}); n != 0 {
		t.Errorf("%v allocations a call", n)
	}
}
