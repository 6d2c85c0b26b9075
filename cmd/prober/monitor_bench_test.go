//go:build !checkonly

package main

import (
	"bufio"
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/internal/testkit/fixture"
	"github.com/mcpwatch/mcpwatch/internal/testkit/pgtest"
	"github.com/mcpwatch/mcpwatch/monitor"
	"github.com/mcpwatch/mcpwatch/store"
)

// BenchmarkRunScale runs the real `prober run` binary, one worker, against 10,000 HTTP
// servers on @every 1m (loopback fixtures: a few listeners, one path per server) for a few
// minutes, and reports what the monitor must hold to: every server probed every minute, the
// p99 scheduling lag of the steady state, the worker's peak RSS, and its CPU per probe (its
// user plus system time as wait4 reports it, over the runs it stored). It takes minutes, so it
// runs only when asked for by name:
//
//	go test -run '^$' -bench RunScale -benchtime 1x -timeout 20m ./cmd/prober/
//
// MCPWATCH_BENCH_SERVERS and MCPWATCH_BENCH_DURATION (a Go duration) change the size and
// the length (defaults 10000 and 3m), MCPWATCH_BENCH_RULE_PROBES the monitor's ruleProbes
// (default its default: the rule probes in every probe), MCPWATCH_BENCH_CONCURRENCY the worker's concurrency
// (default 128: a probe spends most of its time waiting). MCPWATCH_BENCH_PROBER names a prober binary to run
// instead of building this one (to compare builds, such as another probe engine's).
func BenchmarkRunScale(b *testing.B) {
	servers := envInt(b, "MCPWATCH_BENCH_SERVERS", 10_000)
	concurrency := envInt(b, "MCPWATCH_BENCH_CONCURRENCY", 128)
	duration := envDuration(b, "MCPWATCH_BENCH_DURATION", 3*time.Minute)
	ruleProbes := envDuration(b, "MCPWATCH_BENCH_RULE_PROBES", monitor.DefaultRuleProbes)
	db := pgtest.New(b)
	dir := b.TempDir()

	bin := os.Getenv("MCPWATCH_BENCH_PROBER")
	if bin == "" {
		bin = filepath.Join(dir, "prober")
		build := exec.Command("go", "build", "-o", bin, ".")
		if out, err := build.CombinedOutput(); err != nil {
			b.Fatalf("go build: %v\n%s", err, out)
		}
	}

	// A fixture keeps at most 10,000 sessions; a probe ends its sessions, so a few
	// listeners carry any number of servers.
	const listeners = 4
	urls := make([]string, listeners)
	for i := range urls {
		srv, err := fixture.New(fixture.Config{})
		if err != nil {
			b.Fatal(err)
		}
		ts := httptest.NewServer(srv.Handler())
		b.Cleanup(ts.Close)
		urls[i] = ts.URL
	}
	var cfg strings.Builder
	fmt.Fprintf(&cfg, "concurrency: %d\nshutdownGrace: 10s\nruleProbes: %s\nspool:\n  dir: %s\ndefaults:\n  schedule: \"@every 1m\"\n  timeout: 10s\nservers:\n", concurrency, ruleProbes, filepath.Join(dir, "spool"))
	names := make([]string, servers)
	for i := range servers {
		names[i] = fmt.Sprintf("srv-%05d", i)
		fmt.Fprintf(&cfg, "  - name: %s\n    url: %s/mcp/%s\n", names[i], urls[i%listeners], names[i])
	}
	config := filepath.Join(dir, "mcpwatch.yaml")
	if err := os.WriteFile(config, []byte(cfg.String()), 0o600); err != nil {
		b.Fatal(err)
	}

	b.ResetTimer()
	for range b.N {
		cmd := exec.Command(bin, "run", "--config", config, "--database-url", db.URL, "--worker", "bench", "--log-level", "warn")
		stderr, err := os.Create(filepath.Join(dir, "worker.log"))
		if err != nil {
			b.Fatal(err)
		}
		cmd.Stderr = stderr
		started := time.Now()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		peak := int64(0)
		var cpu time.Duration
		var samples []cpuSample
		var selfBefore syscall.Rusage
		_ = syscall.Getrusage(syscall.RUSAGE_SELF, &selfBefore)
		deadline := started.Add(duration)
		for time.Now().Before(deadline) {
			time.Sleep(time.Second)
			peak = max(peak, rssKiB(cmd.Process.Pid))
			cpu = max(cpu, cpuTime(cmd.Process.Pid))
			samples = append(samples, cpuSample{at: time.Now(), cpu: cpu})
		}
		var selfAfter syscall.Rusage
		_ = syscall.Getrusage(syscall.RUSAGE_SELF, &selfAfter)
		fixtureCPU := time.Duration(selfAfter.Utime.Nano()+selfAfter.Stime.Nano()-selfBefore.Utime.Nano()-selfBefore.Stime.Nano()) * time.Nanosecond
		if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
			b.Fatal(err)
		}
		if err := cmd.Wait(); err != nil {
			log, _ := os.ReadFile(stderr.Name())
			b.Fatalf("worker exit: %v\n%s", err, log)
		}
		stderr.Close()
		b.StopTimer()
		// The worker's own CPU, from its rusage as wait4 reports it: user plus system over its
		// whole life (start-up and graceful stop included), which every run it stored shares.
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		}
		b.Logf("ruleProbes %v, concurrency %d; CPU: worker %v, fixtures (this process) %v, over %v", ruleProbes, concurrency, cpu.Round(time.Second), fixtureCPU.Round(time.Second), duration)
		runs, starts, firstRound := reportScale(b, db.URL, names, started, peak)
		if runs > 0 {
			b.ReportMetric(float64(cpu.Microseconds())/1000/float64(runs), "worker-cpu-ms/probe")
			b.Logf("worker CPU per probe: %v over %d runs", (cpu / time.Duration(runs)).Round(10*time.Microsecond), runs)
		}
		if steadyCPU, steadyRuns := steadyCPU(samples, starts, firstRound); steadyRuns > 0 {
			b.ReportMetric(float64(steadyCPU.Microseconds())/1000/float64(steadyRuns), "steady-cpu-ms/probe")
			b.Logf("worker CPU per probe in the steady state (from 5 s after the first round to the end): %v over %d runs",
				(steadyCPU / time.Duration(steadyRuns)).Round(10*time.Microsecond), steadyRuns)
		}
	}
}

// cpuSample is the worker's CPU time as read at one moment.
type cpuSample struct {
	at  time.Time
	cpu time.Duration
}

// steadyCPU is the worker's CPU over the steady state and the runs that began in it. The
// whole-life figure also carries the start-up (10,000 servers synced) and the first round,
// whose runs all keep their transcript (a first run is a change of outcome), which a worker
// that has been up a while no longer pays; the steady state is what a fleet's workers cost.
// It starts 5 s after the first round ended, so the first round's last runs have finished.
func steadyCPU(samples []cpuSample, starts []time.Time, firstRound time.Time) (time.Duration, int) {
	from := slices.IndexFunc(samples, func(s cpuSample) bool { return s.at.After(firstRound.Add(5 * time.Second)) })
	if from < 0 || from == len(samples)-1 {
		return 0, 0
	}
	first, last := samples[from], samples[len(samples)-1]
	runs := 0
	for _, at := range starts {
		if at.After(first.at) && !at.After(last.at) {
			runs++
		}
	}
	return last.cpu - first.cpu, runs
}

// reportScale reads the runs back, computes the numbers from them, and returns how many
// runs there are, when each began, and when the first round ended.
func reportScale(b *testing.B, url string, names []string, started time.Time, peakKiB int64) (int, []time.Time, time.Time) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	st, err := store.Open(ctx, url)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	rows, err := st.Pool().Query(ctx, `SELECT v.name, r.started_at FROM runs r JOIN servers v ON v.id = r.server_id ORDER BY r.started_at`)
	if err != nil {
		b.Fatal(err)
	}
	byServer := map[string][]time.Time{}
	var starts []time.Time
	var last time.Time
	total := 0
	for rows.Next() {
		var name string
		var at time.Time
		if err := rows.Scan(&name, &at); err != nil {
			b.Fatal(err)
		}
		byServer[name] = append(byServer[name], at)
		starts = append(starts, at)
		if at.After(last) {
			last = at
		}
		total++
	}
	if err := rows.Err(); err != nil {
		b.Fatal(err)
	}

	sched, err := monitor.ParseSchedule("@every 1m", monitor.DefaultMaxJitter)
	if err != nil {
		b.Fatal(err)
	}
	// Each server's first run was due when the configuration was synced, all at once: the
	// first round is that burst. Every later run belongs to a slot of the server's grid, and
	// its lag is how long after the slot's start it began. Slots that came due during the
	// first round wait for it to end (catch-up); the steady state is the slots due after.
	var firstRound time.Time
	for _, name := range names {
		if runs := byServer[name]; len(runs) > 0 && runs[0].After(firstRound) {
			firstRound = runs[0]
		}
	}
	var steady, catchUp, settled []time.Duration
	byMinute := map[int][]time.Duration{} // lags by minute of due time after the first round
	missed, twice, never := 0, 0, 0
	steadyRuns := 0
	for _, name := range names {
		runs := byServer[name]
		if len(runs) == 0 {
			never++
			continue
		}
		for i, at := range runs[1:] {
			due := sched.Next(name, at.Add(-time.Minute))
			if !due.After(runs[i]) {
				twice++ // two runs in one slot
			}
			if at.Sub(runs[i]) > 2*time.Minute-time.Second {
				missed++ // a slot with no run
			}
			if due.After(firstRound) {
				steady = append(steady, at.Sub(due))
				steadyRuns++
				m := int(due.Sub(firstRound) / time.Minute)
				byMinute[m] = append(byMinute[m], at.Sub(due))
				if m >= 1 {
					settled = append(settled, at.Sub(due))
				}
			} else {
				catchUp = append(catchUp, at.Sub(due))
			}
		}
	}
	quantile := func(lags []time.Duration, q float64) time.Duration {
		if len(lags) == 0 {
			return 0
		}
		slices.Sort(lags)
		return lags[min(len(lags)-1, int(q*float64(len(lags))))].Round(time.Millisecond)
	}
	window := last.Sub(firstRound)
	perMin := float64(steadyRuns) / window.Minutes()
	b.ReportMetric(perMin, "probes/min")
	b.ReportMetric(quantile(steady, 0.99).Seconds(), "p99-lag-s")
	b.ReportMetric(quantile(settled, 0.99).Seconds(), "settled-p99-lag-s")
	b.ReportMetric(float64(peakKiB)/1024, "peak-RSS-MiB")
	b.Logf("%d servers, %d runs in %v; the first round (every server's first probe: all are due at sync) ended %v after the start",
		len(names), total, time.Since(started).Round(time.Second), firstRound.Sub(started).Round(time.Millisecond))
	b.Logf("steady state (slots due after the first round, %v): %d runs, %.0f probes/min; lag p50 %v, p99 %v, max %v",
		window.Round(time.Second), steadyRuns, perMin, quantile(steady, 0.5), quantile(steady, 0.99), quantile(steady, 1))
	for m := 0; len(byMinute[m]) > 0; m++ {
		b.Logf("  slots due in minute %d after the first round: %d runs, lag p50 %v, p99 %v, max %v",
			m+1, len(byMinute[m]), quantile(byMinute[m], 0.5), quantile(byMinute[m], 0.99), quantile(byMinute[m], 1))
	}
	b.Logf("settled (a whole interval after the first round): %d runs, lag p99 %v", len(settled), quantile(settled, 0.99))
	b.Logf("catch-up (slots due during the first round): %d runs, lag p50 %v, max %v", len(catchUp), quantile(catchUp, 0.5), quantile(catchUp, 1))
	b.Logf("%d slots missed, %d probed twice, %d servers never probed; worker peak RSS %.1f MiB", missed, twice, never, float64(peakKiB)/1024)
	return total, starts, firstRound
}

// cpuTime reads a process's user and system CPU time from /proc.
func cpuTime(pid int) time.Duration {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The fields after the command name (which may hold spaces) are space-separated; utime
	// and stime are the 14th and 15th, in clock ticks (100 per second on Linux).
	rest := string(raw[strings.LastIndexByte(string(raw), ')')+2:])
	f := strings.Fields(rest)
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	s, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(u+s) * 10 * time.Millisecond
}

// rssKiB reads a process's resident set size from /proc (0 where there is none).
func rssKiB(pid int) int64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return n
		}
	}
	return 0
}

func envInt(b *testing.B, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		b.Fatalf("%s=%q: want a positive number", name, v)
	}
	return n
}

func envDuration(b *testing.B, name string, def time.Duration) time.Duration {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		b.Fatalf("%s=%q: want a duration such as 3m", name, v)
	}
	return d
}
