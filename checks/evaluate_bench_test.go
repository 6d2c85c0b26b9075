package checks

import (
	"testing"

	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/protocol"
)

// thirteenTools is a whole conformant session of a server with 13 tools, the size of the
// reference "everything" server.
func thirteenTools(b *testing.B, transport string) *probe.Result {
	tools := tools13(b)
	return scriptedSession(transport, func(p *sessionPlan) { p.toolsResult = tools })
}

// BenchmarkEvaluateAll is the cost of judging one probe with every check the project has:
// decoding the transcript once (NewRun) and running each check on it.
func BenchmarkEvaluateAll(b *testing.B) {
	reg, err := Default()
	if err != nil {
		b.Fatal(err)
	}
	for _, transport := range []string{protocol.TransportStdio, protocol.TransportHTTP} {
		res := thirteenTools(b, transport)
		b.Run(transport, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				reg.Evaluate(res)
			}
		})
	}
}

// BenchmarkEvaluateEnvelopeLifecycleTransport is the share of the envelope, lifecycle,
// stdio and http checks, decoding included.
func BenchmarkEvaluateEnvelopeLifecycleTransport(b *testing.B) {
	schemas := mustSchemas(b)
	var cs []Check
	cs = append(cs, envelopeChecks()...)
	cs = append(cs, lifecycleChecks(schemas)...)
	cs = append(cs, stdioChecks()...)
	cs = append(cs, httpChecks()...)
	reg, err := NewRegistry(cs...)
	if err != nil {
		b.Fatal(err)
	}
	for _, transport := range []string{protocol.TransportStdio, protocol.TransportHTTP} {
		res := thirteenTools(b, transport)
		b.Run(transport, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				reg.Evaluate(res)
			}
		})
	}
}
