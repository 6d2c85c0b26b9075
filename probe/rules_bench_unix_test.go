//go:build unix

package probe

import (
	"context"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/mcpwatch/mcpwatch/internal/testkit/cputime"
	"github.com/mcpwatch/mcpwatch/internal/testkit/fixture"
	"github.com/mcpwatch/mcpwatch/protocol"
)

// BenchmarkRuleProbesOverHTTP is the cost of the rule probes: one probe of the conformant
// fixture over loopback HTTP with and without them. cpu-ns/op is the CPU of the whole test
// process (probe and server), which on a busy machine says more than the wall time.
//
// MCPWATCH_BENCH_FIXTURE_URL names a fixture serving in another process (mcpfixture -http),
// so that the process holds the probe alone: the instructions callgrind counts, and the
// CPU, are then the probe's own, without the server's and without the checks.
func BenchmarkRuleProbesOverHTTP(b *testing.B) {
	url := os.Getenv("MCPWATCH_BENCH_FIXTURE_URL")
	if url == "" {
		srv, err := fixture.New(fixture.Config{})
		if err != nil {
			b.Fatal(err)
		}
		ts := httptest.NewServer(srv.Handler())
		defer ts.Close()
		url = ts.URL + "/mcp"
	}
	for _, skip := range []bool{true, false} {
		name := "with-rules"
		if skip {
			name = "main-and-negotiation-only"
		}
		b.Run(name, func(b *testing.B) {
			o := Options{ProtocolVersion: protocol.LatestSessionRevision, skipRules: skip}
			cpu0 := cputime.Process()
			for b.Loop() {
				res, err := Run(context.Background(), Target{URL: url}, o)
				if err != nil || res.Err != "" {
					b.Fatalf("probe: %v %s", err, res.Err)
				}
			}
			b.ReportMetric(float64((cputime.Process()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
		})
	}
}
