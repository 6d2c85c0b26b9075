package store

import (
	"testing"
	"time"
)

func TestLatestFailuresFindsTheLastFailedRunOfEachRange(t *testing.T) {
	t.Parallel()
	s, ctx := newTestStore(t)
	a := mustUpsert(t, ctx, s, httpServer("a"))
	b := mustUpsert(t, ctx, s, httpServer("b"))
	hour := time.Now().UTC().Truncate(time.Hour).Add(-5 * time.Hour)
	at := func(m int) time.Time { return hour.Add(time.Duration(m) * time.Minute) }
	runs := []RunRecord{
		sampleRun(a.ID, "eu", at(5), OutcomeDown, time.Millisecond),
		sampleRun(a.ID, "us", at(20), OutcomeDegraded, time.Millisecond), // a's last failure in the hour
		sampleRun(a.ID, "eu", at(40), OutcomeUp, time.Millisecond),
		sampleRun(a.ID, "eu", at(70), OutcomeDown, time.Millisecond), // the next hour
		sampleRun(b.ID, "eu", at(10), OutcomeUp, time.Millisecond),   // b never failed
	}
	if _, err := s.WriteRuns(ctx, runs); err != nil {
		t.Fatal(err)
	}
	got, err := s.LatestFailures(ctx, []FailureRange{
		{ServerID: a.ID, From: hour, To: hour.Add(time.Hour)},
		{ServerID: b.ID, From: hour, To: hour.Add(24 * time.Hour)},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].ID != runs[1].ID {
		t.Fatalf("LatestFailures = %+v, want a's degraded run only", got)
	}
	// A day-long range finds the last failure of the day.
	got, err = s.LatestFailures(ctx, []FailureRange{{ServerID: a.ID, From: hour, To: hour.Add(24 * time.Hour)}})
	if err != nil || len(got) != 1 || got[0].ID != runs[3].ID {
		t.Fatalf("over a day: %+v, %v; want the run of the next hour", got, err)
	}
	if got, err := s.LatestFailures(ctx, nil); err != nil || got != nil {
		t.Errorf("no ranges: %v, %v", got, err)
	}
}
