//go:build !unix

package cputime

import "time"

// Process is not measured on this system: benchmarks report 0 CPU time.
func Process() time.Duration { return 0 }
