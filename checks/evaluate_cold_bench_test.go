package checks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/internal/testkit/cputime"
	"github.com/mcpwatch/mcpwatch/probe"
)

// everythingRecording is a probe of the npm reference server (@modelcontextprotocol/
// server-everything 2026.8.31 over stdio, 13 tools), recorded once with probe.WriteRecording.
const everythingRecording = "testdata/everything-stdio.recording.json"

func readEverything(t testing.TB) *probe.Result {
	t.Helper()
	return readRecording(t, everythingRecording)
}

// schemaMarker is where every tool schema of the recording starts; variants insert a member
// after it so that each schema's bytes (and so the page's) are new.
var schemaMarker = []byte(`Schema":{`)

// variantOf copies res with the tools/list answer changed. With everySchema, every
// inputSchema and outputSchema gains a "$comment" naming the variant, so that no tool schema
// verdict is cached either; otherwise only the first tool's description changes.
func variantOf(t testing.TB, res *probe.Result, n int, everySchema bool) *probe.Result {
	t.Helper()
	out := *res
	out.Frames = append([]probe.Frame(nil), res.Frames...)
	out.Steps = append([]probe.Step(nil), res.Steps...)
	vary := func(raw []byte) []byte {
		if everySchema {
			return bytes.ReplaceAll(raw, schemaMarker, fmt.Appendf(nil, `Schema":{"$comment":"variant %d",`, n))
		}
		return bytes.Replace(raw, []byte(`"description":"`), fmt.Appendf(nil, `"description":"variant %d: `, n), 1)
	}
	changed := 0
	for i := range out.Steps {
		st := &out.Steps[i]
		if st.Name != probe.StepToolsList || st.Outcome != probe.OutcomeOK {
			continue
		}
		st.Result = vary(st.Result)
		if st.Response >= 0 {
			out.Frames[st.Response].Raw = vary(out.Frames[st.Response].Raw)
		}
		if !json.Valid(st.Result) || !json.Valid(out.Frames[st.Response].Raw) {
			t.Fatalf("variant %d is not JSON", n)
		}
		changed++
	}
	if changed == 0 {
		t.Fatal("the recording has no tools/list answer")
	}
	return &out
}

// BenchmarkEvaluateCold is the cost of judging a probe the registry has never seen, the case
// of `prober check`: the registry is built once, and every iteration evaluates a transcript
// whose tools/list answer has new bytes. "schemas" changes every tool schema (no verdict
// cache helps); "description" changes one tool description (tool schema verdicts are
// cached, the page is not). "warm" evaluates the same transcript again and again.
//
// cpu-ns/op is the process CPU time per evaluation, GC included: on a loaded machine it is
// steadier than wall time.
func BenchmarkEvaluateCold(b *testing.B) {
	reg, err := Default()
	if err != nil {
		b.Fatal(err)
	}
	base := readEverything(b)
	// Variants are numbered across the rounds of each sub-benchmark (b.N grows round by
	// round, and a number used twice would find a warm cache).
	variants := 0
	// Warm the process up first (its heap grown, the revision's schemas compiled), so that
	// whichever case runs first does not pay for that.
	for range 300 {
		variants++
		reg.Evaluate(variantOf(b, base, variants, true))
	}
	for _, bc := range []struct {
		name        string
		fresh       bool
		everySchema bool
	}{
		{"schemas", true, true},
		{"description", true, false},
		{"warm", false, false},
	} {
		b.Run(bc.name, func(b *testing.B) {
			reg.Evaluate(base)
			b.ReportAllocs()
			b.ResetTimer()
			var cpu time.Duration
			// Variants are made in small batches with the clock stopped, so that the heap
			// holds few of them at a time (a large heap would make every collection dearer
			// than a probe's own).
			batch := make([]*probe.Result, 0, 32)
			for done := 0; done < b.N; done += len(batch) {
				b.StopTimer()
				batch = batch[:0]
				for i := 0; i < min(cap(batch), b.N-done); i++ {
					res := base
					if bc.fresh {
						variants++
						res = variantOf(b, base, variants, bc.everySchema)
					}
					batch = append(batch, res)
				}
				b.StartTimer()
				cpu0 := cputime.Process()
				for _, res := range batch {
					reg.Evaluate(res)
				}
				cpu += cputime.Process() - cpu0
			}
			b.StopTimer()
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
		})
	}
}

// BenchmarkDefaultRegistry is the start-up cost of `prober check`: building every check.
func BenchmarkDefaultRegistry(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Default(); err != nil {
			b.Fatal(err)
		}
	}
}

func TestEverythingRecordingPassesTheToolChecks(t *testing.T) {
	reg, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	base := readEverything(t)
	for _, res := range []*probe.Result{base, variantOf(t, base, 1, true), variantOf(t, base, 2, false)} {
		got := map[string]Status{}
		for _, f := range reg.Evaluate(res) {
			got[f.ID] = f.Status
			// The recording predates the rule probes: their checks find no evidence in it, and
			// are untested (they apply, but nothing in the recording judges them).
			ruleProbe := f.ID == "tools.unknown-tool" || f.ID == "tools.invalid-cursor"
			// Rules of one revision (x-mcp-header from 2026-07-28, execution in 2025-11-25)
			// skip on the others, and on a surface that does not use them.
			revisionBound := f.ID == "tools.x-mcp-header" || f.ID == "tools.execution"
			// The opt-in tool calls skip without a calls file, as the recording has none.
			optIn := f.Status == StatusSkip && f.Message == noCallsFile
			if f.Area == "tools" && f.Status != StatusPass && f.Status != StatusInfo && !(ruleProbe && f.Status == StatusUntested) && !(revisionBound && f.Status == StatusSkip) && !optIn {
				t.Errorf("%s: %s %s", f.ID, f.Status, f.Message)
			}
		}
		if got["tools.input-schema"] != StatusPass || got["tools.output-schema"] != StatusPass {
			t.Errorf("schema checks: %v", got)
		}
	}
}

// BenchmarkFirstEvaluation is what `prober check` pays for judging after the probe: building
// the registry and evaluating one transcript with nothing compiled or cached yet (the
// revision's schemas are compiled on this first use).
func BenchmarkFirstEvaluation(b *testing.B) {
	res := readEverything(b)
	b.ReportAllocs()
	for b.Loop() {
		reg, err := Default()
		if err != nil {
			b.Fatal(err)
		}
		reg.Evaluate(res)
	}
}
