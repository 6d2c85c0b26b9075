package metrics

import (
	"math"
	"runtime"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// The reference parser of the text format must read every line of a full exposition: every
// metric type, awkward label values and help texts, and the runtime and process collectors.
func TestReferenceParserAcceptsTheWholeExposition(t *testing.T) {
	t.Parallel()
	r := NewRegistry()
	counters := NewCounterVec(Opts{Name: "mcpwatch_probes_total", Help: "Probes \"finished\",\nby C:\\ region."}, []string{"region", "outcome"})
	gauges := NewGaugeVec(Opts{Name: "mcpwatch_buffer_runs", Help: "Runs waiting."}, []string{"where"})
	hists := NewHistogramVec(HistogramOpts{Name: "mcpwatch_probe_duration_seconds", Help: "Durations.",
		Buckets: ExponentialBucketsRange(0.005, 600, 16)}, []string{"region", "outcome"})
	hist := NewHistogram(HistogramOpts{Name: "mcpwatch_scheduling_lag_seconds", Help: "Lag.", Buckets: []float64{0.01, 1, 3600}})
	counter := NewCounter(Opts{Name: "mcpwatch_claimed_total", Help: "Claimed."})
	gauge := NewGauge(Opts{Name: "mcpwatch_probes_in_flight"})
	inf := NewGaugeFunc(Opts{Name: "mcpwatch_inf", Help: "Infinite."}, func() float64 { return math.Inf(1) })
	runtimeCollector, processCollector := NewRuntimeCollector(), NewProcessCollector()
	mustRegister(t, r, counters, gauges, hists, hist, counter, gauge, inf, runtimeCollector, processCollector)
	counters.WithLabelValues("eu", "up").Add(3)
	counters.WithLabelValues("us \"east\"\n\\", "down").Inc()
	gauges.WithLabelValues("memory").Set(-2.5)
	hists.WithLabelValues("eu", "up").Observe(0.3)
	hists.WithLabelValues("eu", "down").Observe(900)
	hist.Observe(2)
	counter.Add(1e6)
	gauge.Set(math.NaN())

	text := scrape(t, r)
	parser := expfmt.NewTextParser(model.LegacyValidation)
	fams, err := parser.TextToMetricFamilies(strings.NewReader(text))
	if err != nil {
		t.Fatalf("reference parser: %v\n%s", err, text)
	}

	samples, lines := 0, 0
	for _, f := range fams {
		for _, m := range f.GetMetric() {
			samples++
			if h := m.GetHistogram(); h != nil {
				samples += len(h.GetBucket()) + 1 // the +Inf bucket is implied in the model
			}
		}
	}
	for line := range strings.SplitSeq(strings.TrimSuffix(text, "\n"), "\n") {
		if !strings.HasPrefix(line, "#") {
			lines++
		}
	}
	if samples != lines {
		t.Errorf("the parser read %d samples of %d lines", samples, lines)
	}

	var want []string
	for _, c := range []Collector{counters, gauges, hists, hist, counter, gauge, inf, runtimeCollector} {
		want = append(want, c.names()...)
	}
	if runtime.GOOS == "linux" {
		want = append(want, processCollector.names()...)
	}
	for _, name := range want {
		if _, ok := fams[name]; !ok {
			t.Errorf("no family %s in\n%s", name, text)
		}
	}
	if len(fams) != len(want) {
		t.Errorf("%d families, want %d", len(fams), len(want))
	}

	tests := []struct {
		family string
		typ    dto.MetricType
		labels map[string]string
		value  func(*dto.Metric) float64
		want   float64
	}{
		{"mcpwatch_probes_total", dto.MetricType_COUNTER, map[string]string{"region": "us \"east\"\n\\", "outcome": "down"},
			counterValue, 1},
		{"mcpwatch_claimed_total", dto.MetricType_COUNTER, nil, counterValue, 1e6},
		{"mcpwatch_buffer_runs", dto.MetricType_GAUGE, map[string]string{"where": "memory"}, gaugeValue, -2.5},
		{"mcpwatch_inf", dto.MetricType_GAUGE, nil, gaugeValue, math.Inf(1)},
		{"mcpwatch_probe_duration_seconds", dto.MetricType_HISTOGRAM, map[string]string{"region": "eu", "outcome": "down"},
			func(m *dto.Metric) float64 { return m.GetHistogram().GetSampleSum() }, 900},
		{"mcpwatch_scheduling_lag_seconds", dto.MetricType_HISTOGRAM, nil,
			func(m *dto.Metric) float64 { return float64(m.GetHistogram().GetBucket()[1].GetCumulativeCount()) }, 0},
		{"mcpwatch_scheduling_lag_seconds", dto.MetricType_HISTOGRAM, nil,
			func(m *dto.Metric) float64 { return float64(m.GetHistogram().GetBucket()[2].GetCumulativeCount()) }, 1},
		{"go_info", dto.MetricType_GAUGE, map[string]string{"version": runtime.Version()}, gaugeValue, 1},
	}
	for _, tt := range tests {
		f := fams[tt.family]
		if f.GetType() != tt.typ {
			t.Errorf("%s: type %v, want %v", tt.family, f.GetType(), tt.typ)
		}
		m := findMetric(f, tt.labels)
		if m == nil {
			t.Errorf("%s: no series %v", tt.family, tt.labels)
			continue
		}
		if got := tt.value(m); got != tt.want {
			t.Errorf("%s%v: %v, want %v", tt.family, tt.labels, got, tt.want)
		}
	}
	if v := gaugeValue(findMetric(fams["mcpwatch_probes_in_flight"], nil)); !math.IsNaN(v) {
		t.Errorf("mcpwatch_probes_in_flight %v, want NaN", v)
	}
}

func counterValue(m *dto.Metric) float64 { return m.GetCounter().GetValue() }

func gaugeValue(m *dto.Metric) float64 { return m.GetGauge().GetValue() }

// findMetric is the series of f whose labels are exactly labels.
func findMetric(f *dto.MetricFamily, labels map[string]string) *dto.Metric {
	for _, m := range f.GetMetric() {
		if len(m.GetLabel()) != len(labels) {
			continue
		}
		match := true
		for _, l := range m.GetLabel() {
			if v, ok := labels[l.GetName()]; !ok || v != l.GetValue() {
				match = false
			}
		}
		if match {
			return m
		}
	}
	return nil
}
