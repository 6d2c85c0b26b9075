package store

import (
	"testing"
	"time"
)

func TestHourlyRollupsAreOnePerServerRegionAndHour(t *testing.T) {
	t.Parallel()
	s, ctx := newTestStore(t)
	a := mustUpsert(t, ctx, s, httpServer("a"))
	hour := time.Now().UTC().Truncate(time.Hour).Add(-3 * time.Hour)
	runs := []RunRecord{
		sampleRun(a.ID, "eu", hour.Add(time.Minute), OutcomeUp, 20*time.Millisecond),
		sampleRun(a.ID, "eu", hour.Add(2*time.Minute), OutcomeDown, 900*time.Millisecond),
		sampleRun(a.ID, "us", hour.Add(3*time.Minute), OutcomeDegraded, 40*time.Millisecond),
		sampleRun(a.ID, "eu", hour.Add(61*time.Minute), OutcomeUp, 60*time.Millisecond),
		sampleRun(a.ID, "eu", hour.Add(-time.Hour), OutcomeUp, 60*time.Millisecond), // before the range
	}
	if _, err := s.WriteRuns(ctx, runs); err != nil {
		t.Fatal(err)
	}
	got, err := s.HourlyRollups(ctx, []int64{a.ID}, hour, hour.Add(2*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Fatalf("%d rollups, want 3: %+v", len(got), got)
	}
	eu := got[0]
	if eu.Region != "eu" || !eu.Hour.Equal(hour) || eu.Runs != 2 || eu.Up != 1 || eu.Down != 1 ||
		eu.LatencyMin != 20*time.Millisecond || eu.LatencyMax != 20*time.Millisecond {
		t.Errorf("eu's first hour %+v", eu)
	}
	var all Stats
	for _, r := range got {
		all.Merge(r.Stats)
	}
	if all.Runs != 4 || all.Up+all.Degraded != 3 || all.LatencyMin != 20*time.Millisecond || all.LatencyMax != 60*time.Millisecond {
		t.Errorf("merged %+v", all)
	}
}
