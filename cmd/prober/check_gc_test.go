package main

import (
	"math"
	"runtime/debug"
	"testing"
)

func TestCheckGCTuningLeavesTheUsersSettingsAlone(t *testing.T) {
	// The settings are the process's: restore them whatever happens.
	prevPercent := debug.SetGCPercent(100)
	prevLimit := debug.SetMemoryLimit(math.MaxInt64)
	t.Cleanup(func() {
		debug.SetGCPercent(prevPercent)
		debug.SetMemoryLimit(prevLimit)
	})
	for _, tc := range []struct {
		name        string
		env         map[string]string
		wantPercent int
		wantLimit   int64
	}{
		{"nothing set", nil, checkGCPercent, checkMemoryCeil},
		{"GOGC set", map[string]string{"GOGC": "50"}, 100, math.MaxInt64},
		{"GOMEMLIMIT set", map[string]string{"GOMEMLIMIT": "1GiB"}, 100, math.MaxInt64},
		{"GOGC set empty", map[string]string{"GOGC": ""}, 100, math.MaxInt64},
	} {
		t.Run(tc.name, func(t *testing.T) {
			debug.SetGCPercent(100)
			debug.SetMemoryLimit(math.MaxInt64)
			tuneCheckGC(func(k string) (string, bool) { v, ok := tc.env[k]; return v, ok })
			if got := debug.SetGCPercent(100); got != tc.wantPercent {
				t.Errorf("GC percent %d, want %d", got, tc.wantPercent)
			}
			if got := debug.SetMemoryLimit(-1); got != tc.wantLimit {
				t.Errorf("memory limit %d, want %d", got, tc.wantLimit)
			}
		})
	}
}
