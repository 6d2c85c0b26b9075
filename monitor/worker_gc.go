package monitor

import "runtime/debug"

// Collector settings of a monitor process (see TuneWorkerGC).
const (
	// workerGCPercent lets the heap grow to five times what is live between collections. A
	// probe allocates most of a megabyte, nearly all of it garbage once its run is recorded,
	// while what stays live (the checks, the schedule, the pools) is small: at the default
	// of 100 the collector ran every few probes, and a probe cost about 14% more CPU
	// (BenchmarkProbeCPU).
	workerGCPercent = 400
	// workerHeapHeadroom is what the process holds beyond its probes' memory budget (the
	// database pool, the pages, the alert engine, the spool).
	workerHeapHeadroom = 256 << 20
)

// TuneWorkerGC sets the garbage collector of a monitor process from its memory budget
// (ServiceOptions.MemoryBudget; 0 is DefaultMemoryBudget): collections five times rarer
// than Go's default, and a soft memory limit of the budget plus headroom, so that the rarer
// collections never let the heap grow past what the operator sized the process for. GOGC or
// GOMEMLIMIT in the environment means the operator chose: nothing changes. It returns the
// limit set (0 when it set nothing).
//
// It changes process-wide settings, so only a program's start-up calls it (`prober run`),
// and the benchmark that measures a worker's CPU per probe (BenchmarkProbeCPU).
func TuneWorkerGC(budget int64, lookupEnv func(string) (string, bool)) int64 {
	for _, name := range []string{"GOGC", "GOMEMLIMIT"} {
		if _, set := lookupEnv(name); set {
			return 0
		}
	}
	if budget <= 0 {
		budget = DefaultMemoryBudget
	}
	limit := budget + workerHeapHeadroom
	debug.SetGCPercent(workerGCPercent)
	debug.SetMemoryLimit(limit)
	return limit
}
