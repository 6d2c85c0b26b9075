//go:build unix

package probe

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/mcpwatch/mcpwatch/internal/testkit/cputime"
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
			cpu0 := cputime.Process()
			for b.Loop() {
				res, err := Run(context.Background(), Target{URL: ts.URL + "/mcp"}, o)
				if err != nil || res.Err != "" {
					b.Fatalf("probe: %v %s", err, res.Err)
				}
			}
			b.ReportMetric(float64((cputime.Process()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
		})
	}
}
