package metrics

import (
	"runtime"
	"runtime/debug"
)

var _ Collector = (*RuntimeCollector)(nil)

// RuntimeCollector exposes the Go runtime's state under the names client_golang's Go
// collector gives it (go_goroutines, go_memstats_*...).
//
// It reads runtime.ReadMemStats, which stops the world for some microseconds at each scrape,
// rather than runtime/metrics, which does not: the package runtime/metrics builds a table in
// its init, which every start of the prober binary, `prober check` included, would pay.
type RuntimeCollector struct{}

// NewRuntimeCollector makes a collector of the Go runtime's metrics.
func NewRuntimeCollector() *RuntimeCollector { return &RuntimeCollector{} }

// runtimeValue is a family of one series without labels.
type runtimeValue struct {
	desc
	kind  kind
	value float64
}

// values are the families other than go_info, from ms and the runtime's other figures.
func (c *RuntimeCollector) values(ms *runtime.MemStats) []runtimeValue {
	threads, _ := runtime.ThreadCreateProfile(nil)
	return []runtimeValue{
		{desc{"go_goroutines", "Goroutines that exist now."}, kindGauge, float64(runtime.NumGoroutine())},
		{desc{"go_threads", "Operating system threads the Go runtime created."}, kindGauge, float64(threads)},
		{desc{"go_sched_gomaxprocs_threads", "GOMAXPROCS: the threads that may run Go code at the same time."}, kindGauge, float64(runtime.GOMAXPROCS(0))},
		{desc{"go_memstats_alloc_bytes", "Bytes of heap objects, live or not yet freed by the collector."}, kindGauge, float64(ms.Alloc)},
		{desc{"go_memstats_alloc_bytes_total", "Bytes allocated on the heap since the process started."}, kindCounter, float64(ms.TotalAlloc)},
		{desc{"go_memstats_heap_inuse_bytes", "Bytes of heap spans in use."}, kindGauge, float64(ms.HeapInuse)},
		{desc{"go_memstats_heap_objects", "Heap objects, live or not yet freed by the collector."}, kindGauge, float64(ms.HeapObjects)},
		{desc{"go_memstats_next_gc_bytes", "Heap size at which the next garbage collection is to end."}, kindGauge, float64(ms.NextGC)},
		{desc{"go_memstats_sys_bytes", "Bytes of memory the Go runtime obtained from the operating system."}, kindGauge, float64(ms.Sys)},
		{desc{"go_memstats_last_gc_time_seconds", "End of the last garbage collection since the Unix epoch, in seconds (0: none yet)."}, kindGauge, float64(ms.LastGC) / 1e9},
		{desc{"go_gc_cycles_total", "Garbage collection cycles completed."}, kindCounter, float64(ms.NumGC)},
		// A negative limit reads the limit without changing it.
		{desc{"go_gc_gomemlimit_bytes", "The GOMEMLIMIT setting."}, kindGauge, float64(debug.SetMemoryLimit(-1))},
	}
}

func (c *RuntimeCollector) names() []string {
	names := []string{"go_info"}
	for _, f := range c.values(new(runtime.MemStats)) {
		names = append(names, f.name)
	}
	return names
}

func (c *RuntimeCollector) collect(dst []family) []family {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	dst = append(dst, family{name: "go_info", help: "The version of Go that built the program.", kind: kindGauge,
		series: []series{{labels: []label{{"version", runtime.Version()}}, value: 1}}})
	for _, f := range c.values(&ms) {
		dst = append(dst, f.single(f.kind, series{value: f.value}))
	}
	return dst
}
