package checks

import (
	"os"
	"testing"

	"github.com/mcpwatch/mcpwatch/probe"
)

// fixtureRecording is a probe of the conformant fixture (internal/testkit/fixture, default
// configuration) over Streamable HTTP on loopback with the options of a monitor's worker,
// rule probes included, written with probe.WriteRecording: the transcript a worker judges
// every minute (35 steps, 81 frames, three 5 KB tools/list answers), which the scripted
// sessions of the other benchmarks only approximate. A recording rather than a live probe,
// so that instruction counts of two builds compare the same bytes.
const fixtureRecording = "testdata/fixture-http.recording.json"

func readRecording(t testing.TB, path string) *probe.Result {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res, err := probe.ReadRecording(f)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// BenchmarkEvaluateFixture is the checks' share of a worker's probe: every check judging the
// fixture's transcript, warm (the registry has seen the transcript's tool schemas before, as
// it has after a monitor's first minute).
func BenchmarkEvaluateFixture(b *testing.B) {
	reg, err := Default()
	if err != nil {
		b.Fatal(err)
	}
	res := readRecording(b, fixtureRecording)
	reg.Evaluate(res)
	b.ReportAllocs()
	for b.Loop() {
		reg.Evaluate(res)
	}
}
