package monitor

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/internal/testkit/cputime"
	"github.com/mcpwatch/mcpwatch/protocol"
	"github.com/mcpwatch/mcpwatch/store"
)

// BenchmarkProbeCPU measures the CPU one probe costs the monitor process with the default
// configuration: the probe of an HTTP server as the worker makes it (probe, checks, run
// record; with alerts, the alert engine's observation), concurrency 8, with the garbage
// collector set as `prober run` sets it (TuneWorkerGC with the default memory budget). The
// server is the fixture run as a separate program, so that the CPU read here (getrusage of
// this process, user plus system, over the timed loop, divided by the probes) is the
// prober's alone; storing the run and the alert engine are not in it.
//
// Each configuration is measured twice: at the steady state of a healthy server (the
// previous run was up, so the default transcripts policy, changes, keeps no transcript and
// none is encoded), and with "-transcript" for a run that keeps its transcript (the first
// run, or the first after a change of outcome).
//
//	go test -run '^$' -bench ProbeCPU -benchtime 400x ./monitor/
//
// MCPWATCH_BENCH_FIXTURE_URL names a fixture already serving (mcpfixture -http), so that
// this process starts none: valgrind's callgrind, which counts the instructions a probe
// costs whatever else the machine runs, loses track of a process whose children exit.
func BenchmarkProbeCPU(b *testing.B) {
	url := os.Getenv("MCPWATCH_BENCH_FIXTURE_URL")
	if url == "" {
		url = startFixtureProgram(b)
	}
	url = strings.TrimSuffix(url, "/mcp")
	p, err := NewProber(ProberConfig{LookupEnv: os.LookupEnv, Version: "bench", Concurrency: DefaultConcurrency})
	if err != nil {
		b.Fatal(err)
	}
	percent, limit := debug.SetGCPercent(100), debug.SetMemoryLimit(-1)
	debug.SetGCPercent(percent)
	b.Cleanup(func() {
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(limit)
	})
	TuneWorkerGC(0, os.LookupEnv)
	// Without alerts (the default configuration) the worker asks for no observation.
	for _, observe := range []bool{false, true} {
		name := "no-alerts"
		if observe {
			name = "alerts"
		}
		b.Run(name, func(b *testing.B) { probeCPU(b, p, url, observe, store.OutcomeUp) })
		b.Run(name+"-transcript", func(b *testing.B) { probeCPU(b, p, url, observe, "") })
	}
}

// probeCPU probes as the worker does a server whose previous run had the outcome previous.
func probeCPU(b *testing.B, p *Prober, url string, observe bool, previous string) {
	const concurrency = 8
	var next atomic.Int64
	var wrong atomic.Value
	kept := keepTranscript(p.transcripts, store.OutcomeUp, previous)
	probeOne := func(i int64) {
		s := store.Server{ID: i, Name: fmt.Sprintf("srv-%05d", i), URL: fmt.Sprintf("%s/srv-%05d", url, i), Transport: protocol.TransportHTTP, Source: store.SourceConfig, Schedule: "@every 1m"}
		rec, obs := p.probe(context.Background(), s, time.Time{}, previous, 10*time.Second, "bench", "bench", observe)
		if rec.Outcome != store.OutcomeUp || (obs.Tools == nil) == observe || (len(rec.Transcript) > 0) != kept {
			wrong.Store(fmt.Sprintf("run %s: %s, tools %v, transcript %d bytes", rec.Outcome, rec.Error, obs.Tools != nil, len(rec.Transcript)))
		}
	}
	probeOne(0) // the first probe compiles what the checks keep
	before := cputime.Process()
	b.ResetTimer()
	var wg sync.WaitGroup
	for range concurrency {
		wg.Go(func() {
			for i := next.Add(1); i <= int64(b.N); i = next.Add(1) {
				probeOne(i)
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	if w := wrong.Load(); w != nil {
		b.Fatal(w)
	}
	cpu := cputime.Process() - before
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/probe")
}

// startFixtureProgram builds and starts the conformant fixture as its own program serving
// Streamable HTTP on loopback, and returns its URL (any path under it is the same server).
func startFixtureProgram(b *testing.B) string {
	b.Helper()
	bin := filepath.Join(b.TempDir(), "mcpfixture")
	build := exec.Command("go", "build", "-o", bin, "github.com/mcpwatch/mcpwatch/internal/testkit/fixture/cmd/mcpfixture")
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("building the fixture: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "-http", "127.0.0.1:0")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		b.Fatalf("reading the fixture's address: %v", err)
	}
	return strings.TrimSpace(line)
}
