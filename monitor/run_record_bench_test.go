package monitor

import (
	"context"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/internal/testkit/fixture"
	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/report"
	"github.com/mcpwatch/mcpwatch/store"
)

// BenchmarkRunRecord is the worker's making of the run to store from a probe of the
// conformant fixture and its findings, at the steady state of a healthy server (the previous
// run up: no transcript kept), apart from the probe and the checks.
func BenchmarkRunRecord(b *testing.B) {
	res, err := probe.Run(context.Background(), probe.Target{URL: fixtureURL(b, fixture.Conformant)}, probe.Options{Timeout: 10 * time.Second, ClientName: "mcpwatch"})
	if err != nil {
		b.Fatal(err)
	}
	findings, err := report.Findings(res, report.JudgeOptions{Checks: testChecks(b)})
	if err != nil {
		b.Fatal(err)
	}
	meta := RunMeta{ServerID: 7, Region: "bench", Worker: "bench", Transcripts: TranscriptsChanges, Previous: store.OutcomeUp, Due: time.Now()}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if rec := RunRecordOf(res, findings, meta); rec.Outcome != store.OutcomeUp || rec.Transcript != nil {
			b.Fatalf("run %s (%s), transcript %d bytes; want up and none", rec.Outcome, rec.Error, len(rec.Transcript))
		}
	}
}
