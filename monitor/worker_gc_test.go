package monitor

import (
	"runtime/debug"
	"testing"
)

// TuneWorkerGC sets the collector from the memory budget, unless the operator set GOGC or
// GOMEMLIMIT, in which case it changes nothing.
func TestTuneWorkerGCFollowsTheBudgetUnlessTheEnvironmentChose(t *testing.T) {
	percent, limit := debug.SetGCPercent(100), debug.SetMemoryLimit(-1)
	debug.SetGCPercent(percent)
	t.Cleanup(func() {
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(limit)
	})
	for _, tc := range []struct {
		name        string
		budget      int64
		env         map[string]string
		wantLimit   int64 // 0: nothing set
		wantPercent int
	}{
		{name: "the default budget", budget: 0, wantLimit: DefaultMemoryBudget + workerHeapHeadroom, wantPercent: workerGCPercent},
		{name: "a budget of 2 GiB", budget: 2 << 30, wantLimit: 2<<30 + workerHeapHeadroom, wantPercent: workerGCPercent},
		{name: "GOGC set", budget: 2 << 30, env: map[string]string{"GOGC": "50"}},
		{name: "GOMEMLIMIT set", budget: 2 << 30, env: map[string]string{"GOMEMLIMIT": "1GiB"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const untouchedPercent, untouchedLimit = 77, 123 << 20
			debug.SetGCPercent(untouchedPercent)
			debug.SetMemoryLimit(untouchedLimit)
			lookup := func(name string) (string, bool) { v, ok := tc.env[name]; return v, ok }
			got := TuneWorkerGC(tc.budget, lookup)
			gotPercent, gotLimit := debug.SetGCPercent(untouchedPercent), debug.SetMemoryLimit(-1)
			wantPercent, wantLimit := tc.wantPercent, tc.wantLimit
			if tc.wantLimit == 0 {
				wantPercent, wantLimit = untouchedPercent, untouchedLimit
			}
			if got != tc.wantLimit || gotPercent != wantPercent || gotLimit != wantLimit {
				t.Errorf("returned %d, GOGC %d, limit %d; want %d, %d, %d", got, gotPercent, gotLimit, tc.wantLimit, wantPercent, wantLimit)
			}
		})
	}
}
