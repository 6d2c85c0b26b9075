package metrics

import (
	"runtime"
	"testing"
	"time"
)

// collected is the value of each single-series family of c, by name.
func collected(c Collector) map[string]float64 {
	values := make(map[string]float64)
	for _, f := range c.collect(nil) {
		if len(f.series) == 1 {
			values[f.name] = f.series[0].value
		}
	}
	return values
}

func TestRuntimeCollectorReportsEveryFamilyFromTheRuntime(t *testing.T) {
	t.Parallel()
	c := NewRuntimeCollector()
	runtime.GC() // at least one cycle
	got := collected(c)
	tests := []struct {
		name string
		ok   func(float64) bool
	}{
		{"go_info", func(v float64) bool { return v == 1 }},
		{"go_goroutines", func(v float64) bool { return v >= 2 }}, // this test and the testing main
		{"go_threads", func(v float64) bool { return v >= 1 }},
		{"go_sched_gomaxprocs_threads", func(v float64) bool { return v == float64(runtime.GOMAXPROCS(0)) }},
		{"go_memstats_alloc_bytes", func(v float64) bool { return v > 0 }},
		{"go_memstats_alloc_bytes_total", func(v float64) bool { return v >= got["go_memstats_alloc_bytes"] }},
		{"go_memstats_last_gc_time_seconds", func(v float64) bool { return v > float64(time.Now().Add(-time.Hour).Unix()) }},
		{"go_memstats_heap_inuse_bytes", func(v float64) bool { return v >= got["go_memstats_alloc_bytes"] }},
		{"go_memstats_heap_objects", func(v float64) bool { return v > 0 }},
		{"go_memstats_next_gc_bytes", func(v float64) bool { return v > 0 }},
		{"go_memstats_sys_bytes", func(v float64) bool { return v >= got["go_memstats_heap_inuse_bytes"] }},
		{"go_gc_cycles_total", func(v float64) bool { return v >= 1 }},
		{"go_gc_gomemlimit_bytes", func(v float64) bool { return v > 0 }},
	}
	if len(got) != len(tests) || len(c.names()) != len(tests) {
		t.Errorf("%d families collected, %d named, want %d: %v", len(got), len(c.names()), len(tests), got)
	}
	for _, tt := range tests {
		if v, ok := got[tt.name]; !ok || !tt.ok(v) {
			t.Errorf("%s = %v (collected %v)", tt.name, v, ok)
		}
	}
}
