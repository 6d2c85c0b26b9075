package checks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"testing"

	"github.com/mcpwatch/mcpwatch/probe"
)

// everythingRecording is a probe of the npm reference server (@modelcontextprotocol/
// server-everything 2026.8.31 over stdio, 13 tools), recorded once with probe.WriteRecording.
const everythingRecording = "testdata/everything-stdio.recording.json"

func readEverything(t testing.TB) *probe.Result {
	t.Helper()
	f, err := os.Open(everythingRecording)
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
			// Variants are made before the clock starts.
			results := make([]*probe.Result, b.N)
			for i := range results {
				results[i] = base
				if bc.fresh {
					variants++
					results[i] = variantOf(b, base, variants, bc.everySchema)
				}
			}
			reg.Evaluate(base)
			runtime.GC()
			b.ReportAllocs()
			b.ResetTimer()
			cpu0 := processCPU()
			for i := 0; i < b.N; i++ {
				reg.Evaluate(results[i])
			}
			cpu := processCPU() - cpu0
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
			if f.Area == "tools" && f.Status != StatusPass && f.Status != StatusInfo {
				t.Errorf("%s: %s %s", f.ID, f.Status, f.Message)
			}
		}
		if got["tools.input-schema"] != StatusPass || got["tools.output-schema"] != StatusPass {
			t.Errorf("schema checks: %v", got)
		}
	}
}
