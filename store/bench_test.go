package store

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/internal/testkit/cputime"
)

// benchRuns are n runs shaped like the fixture server's real run (testdata, see
// real_run_test.go) as a steady fleet of 50 servers makes them: the same steps and verdicts,
// but each with latencies of its own, and its own text where a real run's differs from run
// to run (times in messages, the random name of the unknown tool). Failing runs keep a
// transcript, made unique by its start as real ones are; passing runs keep none, as the
// default transcript policy has it.
func benchRuns(tb testing.TB, n int, start time.Time, failing bool) []RunRecord {
	tb.Helper()
	real, err := ReadRealRun("testdata/real_run.json", "testdata/real_run_transcript.json")
	if err != nil {
		tb.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(uint64(start.UnixNano()), 2))
	varying := regexp.MustCompile(`\d+(\.\d+)?(µs|ms)|-[0-9a-f]{16}\b`)
	stamp := regexp.MustCompile(`"start":"[^"]*"`).FindIndex(real.Transcript)
	out := make([]RunRecord, n)
	for i := range out {
		r := real
		r.ID = NewRunID(start)
		r.ServerID, r.Region = int64(1+i%50), []string{"eu", "us"}[i%2]
		r.Start = start.Add(-time.Duration(i) * time.Second)
		r.Duration = real.Duration * time.Duration(80+rng.IntN(40)) / 100
		r.Steps = slices.Clone(real.Steps)
		for j := range r.Steps {
			r.Steps[j].Latency = r.Steps[j].Latency * time.Duration(70+rng.IntN(60)) / 100
		}
		r.Findings = slices.Clone(real.Findings)
		for j := range r.Findings {
			r.Findings[j].Message = varying.ReplaceAllStringFunc(r.Findings[j].Message, func(m string) string {
				if strings.HasSuffix(m, "s") {
					return fmt.Sprintf("%dµs", 50+rng.IntN(5000))
				}
				return fmt.Sprintf("-%016x", rng.Uint64())
			})
		}
		r.Transcript = nil
		if failing {
			r.Outcome = OutcomeDegraded
			// The probe's start made the run's own: one copy, no scan of the rest.
			at := fmt.Sprintf(`"start":"%s"`, r.Start.Add(time.Duration(rng.IntN(1e6))).Format(time.RFC3339Nano))
			r.Transcript = slices.Concat(real.Transcript[:stamp[0]], []byte(at), real.Transcript[stamp[1]:])
		}
		out[i] = r
	}
	return out
}

// runTables are the tables a run is stored in: the partitioned ones (their partitions
// summed) and the tables of what runs share, where the schema has them.
func runTables(ctx context.Context, tb testing.TB, s *Store) map[string][2]int64 {
	tb.Helper()
	out := map[string][2]int64{}
	for _, table := range append(partitionedTables(), "step_shapes", "finding_shapes", "finding_messages", "transcripts") {
		var exists bool
		if err := s.pool.QueryRow(ctx, `SELECT to_regclass($1) IS NOT NULL`, table).Scan(&exists); err != nil {
			tb.Fatal(err)
		}
		if !exists {
			continue
		}
		var bytes, rows int64
		err := s.pool.QueryRow(ctx, `SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint FROM pg_class c
			WHERE c.oid = to_regclass($1) OR c.oid IN (SELECT inhrelid FROM pg_inherits WHERE inhparent = to_regclass($1))`,
			table).Scan(&bytes)
		if err != nil {
			tb.Fatal(err)
		}
		if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM `+table).Scan(&rows); err != nil {
			tb.Fatal(err)
		}
		out[table] = [2]int64{bytes, rows}
	}
	return out
}

// BenchmarkWriteRuns writes batches of 500 runs of the real shape (benchRuns), as the
// monitor's buffered writer does, into a store with the partitions of a monitor's steady
// state (30 days kept, each with runs, and 2 ahead), from one writer and from two at once;
// passing runs (no transcript) and failing ones (a transcript each). It reports runs/s, and the bytes and
// rows a run adds to the run tables: the change in pg_total_relation_size and in rows of
// every table a run is stored in, over the runs written; and what does not depend on the
// machine's load: the WAL a run writes, the CPU time of this process per run (go-cpu-µs/run:
// preparing and encoding the batches) and of the database backends that wrote them
// (db-cpu-µs/run, where the database runs on this machine). Target: 10,000 passing runs/s
// with one writer, 4 KB a passing run.
func BenchmarkWriteRuns(b *testing.B) {
	for _, failing := range []bool{false, true} {
		for _, writers := range []int{1, 2} {
			name := fmt.Sprintf("passing/writers=%d", writers)
			if failing {
				name = fmt.Sprintf("failing/writers=%d", writers)
			}
			b.Run(name, func(b *testing.B) { benchWriteRuns(b, writers, failing) })
		}
	}
}

func benchWriteRuns(b *testing.B, writers int, failing bool) {
	s, ctx := newTestStore(b)
	const batchSize = 500
	now := time.Now().UTC()
	// The partitions a monitor has in its steady state: the days the default raw retention
	// keeps and those made ahead (Maintain).
	if err := s.EnsurePartitions(ctx, now.Add(-DefaultRawRetention), now.Add(DaysAhead*day)); err != nil {
		b.Fatal(err)
	}
	// Batches made ahead: each run's own texts and ids are part of the data, not of the
	// writing. Enough for the longest benchtime; after that they repeat with new ids.
	pool := make([][]RunRecord, 64)
	for i := range pool {
		pool[i] = benchRuns(b, batchSize, now.Add(-time.Duration(i)*time.Millisecond), failing)
	}
	// A batch in each day kept before today, so that no partition's indexes are empty.
	for d := 1; d <= int(DefaultRawRetention/day); d++ {
		if _, err := s.WriteRuns(ctx, benchRuns(b, batchSize, now.Add(-time.Duration(d)*day), failing)); err != nil {
			b.Fatal(err)
		}
	}
	// One batch first, so that the shared rows a steady fleet has are there, as they are
	// after the monitor's first minute.
	if _, err := s.WriteRuns(ctx, benchRuns(b, batchSize, now.Add(-time.Hour), failing)); err != nil {
		b.Fatal(err)
	}
	before := runTables(ctx, b, s)
	var lsnBefore string
	if err := s.pool.QueryRow(ctx, `SELECT pg_current_wal_lsn()::text`).Scan(&lsnBefore); err != nil {
		b.Fatal(err)
	}
	dbBefore, dbCPU := backendCPU(ctx, b, s)
	var written atomic.Int64
	var next atomic.Int64
	cpuBefore := cputime.Process()
	start := time.Now()
	for b.Loop() {
		var wg sync.WaitGroup
		for range writers {
			wg.Go(func() {
				batch := slices.Clone(pool[int(next.Add(1))%len(pool)])
				for i := range batch {
					batch[i].ID = NewRunID(batch[i].Start)
				}
				n, err := s.WriteRuns(ctx, batch)
				if err != nil || n != batchSize {
					b.Errorf("WriteRuns = %d, %v", n, err)
				}
				written.Add(int64(n))
			})
		}
		wg.Wait()
	}
	elapsed := time.Since(start)
	cpu := cputime.Process() - cpuBefore
	b.ReportMetric(float64(written.Load())/elapsed.Seconds(), "runs/s")
	b.StopTimer()
	runs := float64(written.Load())
	b.ReportMetric(float64(cpu.Nanoseconds())/1e3/runs, "go-cpu-µs/run")
	if dbAfter, ok := backendCPU(ctx, b, s); ok && dbCPU {
		var db time.Duration
		for pid, t := range dbAfter {
			db += t - dbBefore[pid]
		}
		b.ReportMetric(float64(db.Nanoseconds())/1e3/runs, "db-cpu-µs/run")
	}
	var wal int64
	if err := s.pool.QueryRow(ctx, `SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), $1::pg_lsn)::bigint`, lsnBefore).Scan(&wal); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(wal)/runs, "WAL-B/run")
	after := runTables(ctx, b, s)
	var bytes, rows int64
	for table, a := range after {
		d := [2]int64{a[0] - before[table][0], a[1] - before[table][1]}
		bytes, rows = bytes+d[0], rows+d[1]
		b.ReportMetric(float64(d[0])/runs, table+"-B/run")
	}
	b.ReportMetric(float64(bytes)/runs, "B/run")
	b.ReportMetric(float64(rows)/runs, "rows/run")
}

// backendCPU reads the CPU time of the database backends of the pool's idle connections, by
// backend pid, from /proc: the load-independent cost of the database's side of a write where
// the database runs on this machine (ok is false where it cannot be read). A connection the
// pool opens later counts from 0.
func backendCPU(ctx context.Context, tb testing.TB, s *Store) (map[uint32]time.Duration, bool) {
	tb.Helper()
	conns := s.pool.AcquireAllIdle(ctx)
	defer func() {
		for _, c := range conns {
			c.Release()
		}
	}()
	out := map[uint32]time.Duration{}
	for _, c := range conns {
		pid := c.Conn().PgConn().PID()
		raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return nil, false
		}
		// utime and stime are the 14th and 15th fields, in clock ticks (100 a second on
		// Linux); the command name before them may hold spaces.
		f := strings.Fields(string(raw[bytes.LastIndexByte(raw, ')')+1:]))
		if len(f) < 13 {
			return nil, false
		}
		u, errU := strconv.ParseInt(f[11], 10, 64)
		st, errS := strconv.ParseInt(f[12], 10, 64)
		if errU != nil || errS != nil {
			return nil, false
		}
		out[pid] = time.Duration(u+st) * 10 * time.Millisecond
	}
	return out, true
}

// BenchmarkClaim claims 10 due servers among 100,000 registered ones and completes them, as a
// worker's loop does; claim-ms/op is the claim alone. Target: under 5 ms.
func BenchmarkClaim(b *testing.B) {
	s, ctx := newTestStore(b)
	const servers = 100_000
	seedServers(b, s, servers)
	if err := s.RegisterRegion(ctx, "eu"); err != nil {
		b.Fatal(err)
	}
	// Spread due times over an hour, about 2% due now, as a fleet probed hourly would be.
	if _, err := s.pool.Exec(ctx, `UPDATE schedule SET next_due = now() + (random() * 3600 - 72) * interval '1 second'`); err != nil {
		b.Fatal(err)
	}
	if _, err := s.pool.Exec(ctx, `VACUUM ANALYZE schedule`); err != nil {
		b.Fatal(err)
	}
	var claiming time.Duration
	claims := 0
	for b.Loop() {
		t0 := time.Now()
		got, err := s.Claim(ctx, "eu", "bench", 10, time.Minute)
		claiming += time.Since(t0)
		claims++
		if err != nil || len(got) != 10 {
			b.Fatalf("Claim = %d servers, %v; want 10", len(got), err)
		}
		// Due again at once: the queue of due servers stays as long as it started.
		for _, c := range got {
			if err := s.Complete(ctx, c.Lease, time.Now(), OutcomeUp); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(claiming.Microseconds())/1000/float64(claims), "claim-ms/op")
}
