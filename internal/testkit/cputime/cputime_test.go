//go:build unix

package cputime

import "testing"

// Work done by the process shows in its CPU time.
func TestProcessGrowsWithWork(t *testing.T) {
	before := Process()
	if before <= 0 {
		t.Fatalf("Process() = %v before any work", before)
	}
	x := 0
	for i := range 50_000_000 {
		x ^= i * i
	}
	if after := Process(); after <= before {
		t.Errorf("Process() went from %v to %v over a busy loop (%d)", before, after, x)
	}
}
