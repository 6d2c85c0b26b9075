//go:build unix

package probe

import (
	"context"
	"net/http/httptest"
	"syscall"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/internal/testkit/fixture"
	"github.com/mcpwatch/mcpwatch/protocol"
)

// BenchmarkRuleProbesOverHTTP is the cost of the rule probes: one probe of the conformant
// fixture over loopback HTTP with and without them. cpu-ns/op is the CPU of the whole test
// process (probe and server), which on a busy machine says more than the wall time.
func BenchmarkRuleProbesOverHTTP(b *testing.B) {
	srv, err := fixture.New(fixture.Config{})
	if err != nil {
		b.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	for _, skip := range []bool{true, false} {
		name := "with-rules"
		if skip {
			name = "main-and-negotiation-only"
		}
		b.Run(name, func(b *testing.B) {
			o := Options{ProtocolVersion: protocol.LatestSessionRevision, skipRules: skip}
			cpu0 := processCPU()
			for b.Loop() {
				res, err := Run(context.Background(), Target{URL: ts.URL + "/mcp"}, o)
				if err != nil || res.Err != "" {
					b.Fatalf("probe: %v %s", err, res.Err)
				}
			}
			b.ReportMetric(float64((processCPU()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
		})
	}
}

// processCPU is the user and system time of this process so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
