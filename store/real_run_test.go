package store_test

import (
	"encoding/json"
	"flag"
	"net/http/httptest"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/internal/testkit/fixture"
	"github.com/mcpwatch/mcpwatch/monitor"
	"github.com/mcpwatch/mcpwatch/store"
)

var updateRealRun = flag.Bool("update-real-run", false, "probe the fixture server and write testdata/real_run*.json")

// The run BenchmarkWriteRuns writes: a probe of the conformant fixture server over HTTP on
// loopback, by the monitor's prober with its default settings, judged by every check.
const (
	realRunFile        = "testdata/real_run.json"
	realTranscriptFile = "testdata/real_run_transcript.json"
)

func probeFixture(t *testing.T) store.RunRecord {
	t.Helper()
	srv, err := fixture.New(fixture.Config{})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	p, err := monitor.NewProber(monitor.ProberConfig{
		LookupEnv:   func(string) (string, bool) { return "", false },
		Version:     "bench",
		Transcripts: monitor.TranscriptsAll, // the transcript is the point
	})
	if err != nil {
		t.Fatal(err)
	}
	s := store.Server{ID: 1, Name: "fixture", Source: store.SourceConfig, Transport: "http", URL: ts.URL + "/mcp",
		Schedule: "@every 1m", Timeout: 20 * time.Second, Enabled: true}
	rec, _ := p.Probe(t.Context(), s, time.Time{}, "", s.Timeout, "eu", "bench")
	if rec.Outcome != store.OutcomeUp || len(rec.Transcript) == 0 {
		t.Fatalf("the fixture's run is %s with %d transcript bytes, want up with a transcript (%s)", rec.Outcome, len(rec.Transcript), rec.Error)
	}
	return rec
}

// shapeOf is what must not change between the fixture's run on disk and a probe now: the
// steps made and the verdicts, not the timings nor the texts that carry them.
func shapeOf(r store.RunRecord) (steps, verdicts []string) {
	for _, st := range r.Steps {
		steps = append(steps, st.Name+" "+st.Method+" "+st.Outcome)
	}
	slices.Sort(steps) // concurrent rule probes finish in any order
	for _, f := range r.Findings {
		verdicts = append(verdicts, f.CheckID+" "+f.Status+" "+f.Severity)
	}
	return steps, verdicts
}

// TestRealRunFixtureIsARealRun probes the fixture server and compares the run with the one
// in testdata, which `go generate ./store` (this test with -update-real-run) rewrites: when
// the probe or the checks change, the benchmark's run must change with them.
func TestRealRunFixtureIsARealRun(t *testing.T) {
	rec := probeFixture(t)
	if *updateRealRun {
		transcript := rec.Transcript
		rec.Transcript = nil
		body, err := json.MarshalIndent(rec, "", "\t")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(realRunFile, append(body, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(realTranscriptFile, transcript, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	stored, err := store.ReadRealRun(realRunFile, realTranscriptFile)
	if err != nil {
		t.Fatal(err)
	}
	gotSteps, gotVerdicts := shapeOf(rec)
	wantSteps, wantVerdicts := shapeOf(stored)
	if !slices.Equal(gotSteps, wantSteps) || !slices.Equal(gotVerdicts, wantVerdicts) {
		t.Fatalf("a probe of the fixture now makes %d steps and %d findings unlike %s (%d, %d): run `go generate ./store`",
			len(gotSteps), len(gotVerdicts), realRunFile, len(wantSteps), len(wantVerdicts))
	}
}
