package bench

import (
	"bufio"
	"context"
	"io"
	"net/http/httptest"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/checks"
	"github.com/mcpwatch/mcpwatch/internal/testkit/fixture"
	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/protocol"
	"github.com/mcpwatch/mcpwatch/report"
)

// newDualFixture serves the conformant fixture speaking both eras (2024-11-05 to 2025-11-25
// and the stateless 2026-07-28), so that every revision of an all-revisions probe is accepted.
func newDualFixture(b *testing.B) *httptest.Server {
	b.Helper()
	srv, err := fixture.New(fixture.Config{Stateless: true})
	if err != nil {
		b.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	b.Cleanup(ts.Close)
	return ts
}

// checkAllRevisions is `prober check --protocol-version all` in process: every revision
// probed at once, every probe judged, the report of the newest accepted revision with the
// table of all, written as text.
func checkAllRevisions(b *testing.B, reg *checks.Registry, target probe.Target) {
	results, err := probe.RunRevisions(context.Background(), target, probe.Options{}, protocol.Revisions())
	if err != nil {
		b.Fatal(err)
	}
	main := probe.NewestAccepted(results)
	runs := make([]report.RevisionRun, len(results))
	var wg sync.WaitGroup
	for i, res := range results {
		runs[i].Result = res
		wg.Go(func() { runs[i].Findings = reg.Evaluate(res) })
	}
	wg.Wait()
	opts := report.BuildOptions{Catalog: reg}
	rep := report.Build(results[main], runs[main].Findings, opts)
	report.AddRevisions(rep, runs, main, opts)
	if rep.Failed() {
		b.Fatalf("the conformant fixture failed: %+v", rep.Summary)
	}
	for _, rev := range rep.Revisions {
		if !rev.Accepted {
			b.Fatalf("revision %s not accepted", rev.Revision)
		}
	}
	if err := report.WriteText(io.Discard, rep, report.TextOptions{}); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkCheckAllRevisions measures `prober check --protocol-version all` against a
// loopback HTTP fixture: in process (probes, checks, report), and as the real binary (its
// start-up included). Target: under 50 ms in all.
func BenchmarkCheckAllRevisions(b *testing.B) {
	ts := newDualFixture(b)
	target := probe.Target{URL: ts.URL + "/mcp"}
	reg, err := checks.Default()
	if err != nil {
		b.Fatal(err)
	}
	b.Run("in-process", func(b *testing.B) {
		for b.Loop() {
			checkAllRevisions(b, reg, target)
		}
	})
	b.Run("prober-binary", func(b *testing.B) {
		if built.prober == "" {
			b.Skip("binaries are built only when benchmarks run")
		}
		for b.Loop() {
			cmd := exec.Command(built.prober, "check", "--protocol-version", "all", "--format", "json", target.URL)
			if out, err := cmd.Output(); err != nil {
				b.Fatalf("prober check: %v\n%s", err, out)
			}
		}
	})
}

// BenchmarkCheckAllRevisionsExternalServer is the in-process run against the fixture in a
// process of its own, so that a profile (-cpuprofile) shows the prober alone.
func BenchmarkCheckAllRevisionsExternalServer(b *testing.B) {
	if built.fixture == "" {
		b.Skip("binaries are built only when benchmarks run")
	}
	cmd := exec.Command(built.fixture, "-http", "127.0.0.1:0", "-stateless")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		b.Fatal(err)
	}
	reg, err := checks.Default()
	if err != nil {
		b.Fatal(err)
	}
	target := probe.Target{URL: strings.TrimSpace(line)}
	before := processCPU()
	for b.Loop() {
		checkAllRevisions(b, reg, target)
	}
	// The prober's own CPU: on an idle machine the run takes about this much over its cores,
	// or its critical path of round trips, whichever is longer.
	reportCPU(b, before)
}

// reportCPU reports the CPU time the process spent since before, per iteration.
func reportCPU(b *testing.B, before time.Duration) {
	reportCPUTime(b, processCPU()-before)
}

// reportCPUTime reports cpu, spent over the whole benchmark, per iteration.
func reportCPUTime(b *testing.B, cpu time.Duration) {
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
}

// processCPU is the user and system CPU time of this process so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return cpuOf(&ru)
}

// cpuOf is the user and system CPU time a Rusage counts.
func cpuOf(ru *syscall.Rusage) time.Duration {
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
