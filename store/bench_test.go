package store

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// benchRun is a run shaped like a real probe's: 6 steps, 25 findings and a transcript of a
// few kilobytes of JSON frames.
func benchRun(serverID int64, region string, start time.Time, i int) RunRecord {
	r := RunRecord{
		ID: NewRunID(start), ServerID: serverID, Region: region, Worker: "bench-worker",
		Start: start, Duration: time.Duration(20+i%400) * time.Millisecond,
		Outcome:         []string{OutcomeUp, OutcomeUp, OutcomeUp, OutcomeDegraded, OutcomeDown}[i%5],
		ProtocolVersion: "2025-06-18", ServerName: "bench-server", ServerVersion: "1.0.0",
		ToolCount: ptr(12), ToolFingerprint: "sha256:4f2a9c0d4f2a9c0d4f2a9c0d4f2a9c0d",
	}
	for _, m := range []string{"initialize", "notifications/initialized", "tools/list", "resources/list", "ping", "mcpwatch/unknown-method"} {
		r.Steps = append(r.Steps, StepRecord{Name: m, Method: m, Outcome: "ok", Latency: time.Duration(1+i%50) * time.Millisecond})
	}
	r.Steps[5].Outcome, r.Steps[5].ErrorCode = "error", ptr[int64](-32601)
	for j := range 25 {
		r.Findings = append(r.Findings, FindingRecord{CheckID: fmt.Sprintf("area%d.check-%02d", j%5, j), Status: "pass",
			Message: "the server answered as the specification requires"})
	}
	r.Findings[3].Status, r.Findings[3].Severity = "warn", "warning"
	var frames strings.Builder
	frames.WriteString(`{"frames":[`)
	for j := range 12 {
		fmt.Fprintf(&frames, `{"seq":%d,"dir":"in","time":"%s","data":{"jsonrpc":"2.0","id":%d,"result":{"tools":[{"name":"tool_%d","description":"does thing %d","inputSchema":{"type":"object"}}]}}},`,
			j, start.Add(time.Duration(j)*time.Millisecond).Format(time.RFC3339Nano), j, j, i)
	}
	frames.WriteString(`{}]}`)
	r.Transcript = []byte(frames.String())
	return r
}

// BenchmarkWriteRuns writes batches of 500 runs, each with 6 steps, 25 findings and a
// transcript, as the monitor's buffered writer does, from one writer and from two at once.
// Target: 5,000 runs/s.
func BenchmarkWriteRuns(b *testing.B) {
	for _, writers := range []int{1, 2} {
		b.Run(fmt.Sprintf("writers=%d", writers), func(b *testing.B) { benchWriteRuns(b, writers) })
	}
}

func benchWriteRuns(b *testing.B, writers int) {
	s, ctx := newTestStore(b)
	const batchSize = 500
	now := time.Now().UTC()
	if err := s.EnsurePartitions(ctx, now.Add(-day), now.Add(day)); err != nil {
		b.Fatal(err)
	}
	templates := make([]RunRecord, batchSize)
	for i := range templates {
		templates[i] = benchRun(int64(1+i%50), []string{"eu", "us"}[i%2], now.Add(-time.Duration(i)*time.Second), i)
	}
	var written atomic.Int64
	start := time.Now()
	for b.Loop() {
		var wg sync.WaitGroup
		for range writers {
			wg.Go(func() {
				batch := make([]RunRecord, batchSize)
				for i := range batch {
					batch[i] = templates[i]
					batch[i].ID = NewRunID(templates[i].Start)
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
	b.ReportMetric(float64(written.Load())/time.Since(start).Seconds(), "runs/s")
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
			if err := s.Complete(ctx, c.Lease, time.Now()); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(claiming.Microseconds())/1000/float64(claims), "claim-ms/op")
}
