package metrics

import (
	"strconv"
	"sync"
	"testing"
)

func TestConcurrentUpdatesAreAllCounted(t *testing.T) {
	t.Parallel()
	const goroutines, perGoroutine = 8, 2000
	r := NewRegistry()
	counter := NewCounter(Opts{Name: "c_total"})
	gauge := NewGauge(Opts{Name: "g"})
	hist := NewHistogram(HistogramOpts{Name: "h", Buckets: []float64{0.5}})
	counters := NewCounterVec(Opts{Name: "cv_total"}, []string{"k"})
	hists := NewHistogramVec(HistogramOpts{Name: "hv", Buckets: []float64{0.5}}, []string{"k"})
	mustRegister(t, r, counter, gauge, hist, counters, hists)
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for i := range perGoroutine {
				counter.Inc()
				gauge.Add(2)
				gauge.Dec()
				hist.Observe(float64(i % 2)) // half in the 0.5 bucket
				counters.WithLabelValues(strconv.Itoa(i % 3)).Add(0.5)
				hists.WithLabelValues(strconv.Itoa(g % 2)).Observe(1)
				if i%500 == 0 {
					_ = scrape(t, r) // collection races with updates
				}
			}
		})
	}
	wg.Wait()
	const n = goroutines * perGoroutine
	tests := []struct {
		name      string
		got, want float64
	}{
		{"counter", counter.Value(), n},
		{"gauge", gauge.Value(), n},
		{"histogram count", float64(hist.snapshot().counts[1]), n},
		{"histogram first bucket", float64(hist.snapshot().counts[0]), n / 2},
		{"histogram sum", hist.snapshot().sum, n / 2},
		{"counter vector", counters.WithLabelValues("0").Value() + counters.WithLabelValues("1").Value() + counters.WithLabelValues("2").Value(), n / 2},
		{"histogram vector", float64(hists.WithLabelValues("0").snapshot().counts[1] + hists.WithLabelValues("1").snapshot().counts[1]), n},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, tt.got, tt.want)
		}
	}
}
