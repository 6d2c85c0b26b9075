package store

import (
	"testing"
	"time"
)

// StepStats sums the steps of one name over the span, per name: the runs that sent it, the
// latencies of the answered ones in the rollups' buckets, and the latest; steps of other
// names, of other servers and from before the span are not read.
func TestStepStatsSumsTheStepsOfAPrefixOverTheSpan(t *testing.T) {
	t.Parallel()
	s, ctx := newTestStore(t)
	now := time.Now().UTC().Truncate(time.Second)
	if err := s.EnsurePartitions(ctx, now.Add(-3*day), now.Add(day)); err != nil {
		t.Fatal(err)
	}
	srv := mustUpsert(t, ctx, s, httpServer("calls"))
	other := mustUpsert(t, ctx, s, httpServer("other"))
	run := func(serverID int64, at time.Time, region string, steps ...StepRecord) RunRecord {
		return RunRecord{ID: NewRunID(at), ServerID: serverID, Region: region, Worker: "w", Start: at, Duration: time.Second,
			Outcome: OutcomeUp, Steps: append([]StepRecord{{Name: "initialize", Method: "initialize", Outcome: "ok", Latency: time.Millisecond}}, steps...)}
	}
	echo := func(outcome string, ms int) StepRecord {
		return StepRecord{Name: "call:echo", Method: "tools/call", Outcome: outcome, Latency: time.Duration(ms) * time.Millisecond}
	}
	var runs []RunRecord
	for i := range 20 {
		runs = append(runs, run(srv.ID, now.Add(-time.Duration(40-i)*time.Minute), "eu", echo("ok", 10*(i+1)),
			StepRecord{Name: "call_other", Method: "tools/call", Outcome: "ok", Latency: time.Second}))
	}
	latest := run(srv.ID, now.Add(-time.Minute), "us", echo("no-answer", 5000),
		StepRecord{Name: "call:add", Method: "tools/call", Outcome: "error", Latency: 3 * time.Millisecond})
	runs = append(runs, latest,
		run(srv.ID, now.Add(-2*day), "eu", echo("ok", 60000)), // before the span
		run(other.ID, now.Add(-time.Minute), "eu", echo("ok", 60000)))
	if _, err := s.WriteRuns(ctx, runs); err != nil {
		t.Fatal(err)
	}
	got, err := s.StepStats(ctx, srv.ID, "call:", now.Add(-day))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Name != "call:add" || got[1].Name != "call:echo" {
		t.Fatalf("steps %+v, want call:add and call:echo (call_other does not start with call:)", got)
	}
	add, echoStats := got[0], got[1]
	if add.Runs != 1 || add.OK != 0 || add.LatencyQuantile(0.5) != 0 || add.Last.Outcome != "error" {
		t.Errorf("call:add = %+v, want one run, no answered latency, last outcome error", add)
	}
	if echoStats.Runs != 21 || echoStats.OK != 20 || echoStats.Method != "tools/call" {
		t.Errorf("call:echo: %d runs, %d ok, method %s; want 21, 20, tools/call", echoStats.Runs, echoStats.OK, echoStats.Method)
	}
	if echoStats.LatencyMin != 10*time.Millisecond || echoStats.LatencyMax != 200*time.Millisecond {
		t.Errorf("call:echo latency from %v to %v, want 10ms to 200ms (the timed-out call is no answer)", echoStats.LatencyMin, echoStats.LatencyMax)
	}
	if p50 := echoStats.LatencyQuantile(0.5); p50 < 75*time.Millisecond || p50 > 125*time.Millisecond {
		t.Errorf("call:echo p50 %v, want about 100ms", p50)
	}
	if p95 := echoStats.LatencyQuantile(0.95); p95 < 150*time.Millisecond || p95 > 200*time.Millisecond {
		t.Errorf("call:echo p95 %v, want about 190ms", p95)
	}
	if echoStats.Last.Outcome != "no-answer" || echoStats.LastRun.ID != latest.ID || echoStats.LastRun.Region != "us" {
		t.Errorf("call:echo last %+v in %+v, want the latest run's no-answer", echoStats.Last, echoStats.LastRun)
	}
}
