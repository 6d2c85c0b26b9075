package store

import (
	"errors"
	"testing"
	"time"
)

func TestRunPageWalksRunsNewestFirstWithoutGapsOrRepeats(t *testing.T) {
	t.Parallel()
	s, ctx := newTestStore(t)
	srv := mustUpsert(t, ctx, s, httpServer("paged"))
	base := time.Now().UTC().Add(-time.Hour).Truncate(time.Second)
	var runs []RunRecord
	for i := range 23 {
		// Pairs of runs start in the same microsecond: the cursor must tell them apart.
		start := base.Add(time.Duration(i/2) * time.Minute)
		outcome := []string{OutcomeUp, OutcomeDown, OutcomeDegraded}[i%3]
		runs = append(runs, sampleRun(srv.ID, []string{"eu", "us"}[i%2], start, outcome, time.Duration(10+i)*time.Millisecond))
	}
	if _, err := s.WriteRuns(ctx, runs); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		q       RunPageQuery
		want    int
		matches func(RunRecord) bool
	}{
		{"all", RunPageQuery{Limit: 5}, 23, func(RunRecord) bool { return true }},
		{"one region", RunPageQuery{Region: "us", Limit: 4}, 11, func(r RunRecord) bool { return r.Region == "us" }},
		{"one outcome", RunPageQuery{Outcome: OutcomeDown, Limit: 3}, 8, func(r RunRecord) bool { return r.Outcome == OutcomeDown }},
		{"both", RunPageQuery{Region: "eu", Outcome: OutcomeUp, Limit: 100}, 4, func(r RunRecord) bool { return r.Region == "eu" && r.Outcome == OutcomeUp }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := tc.q
			q.ServerID = srv.ID
			seen := map[RunID]bool{}
			var prev *RunRecord
			pages := 0
			for {
				page, next, err := s.RunPage(ctx, q)
				if err != nil {
					t.Fatal(err)
				}
				pages++
				for i := range page {
					r := page[i]
					if seen[r.ID] || !tc.matches(r) {
						t.Fatalf("run %s repeated or not matching the filter", r.ID)
					}
					seen[r.ID] = true
					if prev != nil && (r.Start.After(prev.Start) || r.Start.Equal(prev.Start) && string(r.ID[:]) > string(prev.ID[:])) {
						t.Fatalf("run %v listed after %v", r.Start, prev.Start)
					}
					prev = &r
				}
				if next == nil {
					break
				}
				// The cursor survives its text form, as it travels in a URL.
				c, err := ParseRunCursor(next.String())
				if err != nil || !c.Start.Equal(next.Start) || c.ID != next.ID {
					t.Fatalf("cursor %v does not round-trip: %v %v", next, c, err)
				}
				q.After = &c
				if pages > 30 {
					t.Fatal("paging does not end")
				}
			}
			if len(seen) != tc.want {
				t.Errorf("%d runs over %d pages, want %d", len(seen), pages, tc.want)
			}
		})
	}
}

func TestParseRunCursorRejectsWhatRunPageDidNotMake(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{"", "!!", "AAAA", RunCursor{}.String() + "A"} {
		if _, err := ParseRunCursor(bad); !errors.Is(err, ErrBadCursor) {
			t.Errorf("ParseRunCursor(%q) = %v, want ErrBadCursor", bad, err)
		}
	}
}

func TestToolChangesListsEachChangeOfTheFingerprint(t *testing.T) {
	t.Parallel()
	s, ctx := newTestStore(t)
	srv := mustUpsert(t, ctx, s, httpServer("drifting"))
	base := time.Now().UTC().Add(-2 * time.Hour).Truncate(time.Second)
	prints := []string{"sha256:a", "sha256:a", "", "sha256:b", "sha256:b", "sha256:a", "sha256:a"}
	var runs []RunRecord
	for i, fp := range prints {
		r := sampleRun(srv.ID, []string{"eu", "us"}[i%2], base.Add(time.Duration(i)*time.Minute), OutcomeUp, time.Millisecond)
		r.ToolFingerprint = fp
		r.ToolCount = ptr(len(fp))
		runs = append(runs, r)
	}
	if _, err := s.WriteRuns(ctx, runs); err != nil {
		t.Fatal(err)
	}
	changes, err := s.ToolChanges(ctx, srv.ID, base.Add(-time.Minute), 10)
	if err != nil {
		t.Fatal(err)
	}
	// Newest first: back to a (run 5), to b (run 3; the run without a fingerprint is no
	// change), first seen a (run 0).
	want := []struct {
		run  int
		prev int // -1: first seen
	}{{5, 4}, {3, 1}, {0, -1}}
	if len(changes) != len(want) {
		t.Fatalf("%d changes, want %d: %+v", len(changes), len(want), changes)
	}
	for i, w := range want {
		c := changes[i]
		if c.RunID != runs[w.run].ID || c.Fingerprint != prints[w.run] || c.Region != runs[w.run].Region {
			t.Errorf("change %d is run %v (%s), want run %d", i, c.Start, c.Fingerprint, w.run)
		}
		switch {
		case w.prev < 0 && c.Previous != nil:
			t.Errorf("change %d has a previous run, want first seen", i)
		case w.prev >= 0 && (c.Previous == nil || c.Previous.RunID != runs[w.prev].ID || c.Previous.Fingerprint != prints[w.prev]):
			t.Errorf("change %d: previous %+v, want run %d", i, c.Previous, w.prev)
		}
	}
	if limited, _ := s.ToolChanges(ctx, srv.ID, base.Add(-time.Minute), 1); len(limited) != 1 || limited[0].RunID != runs[5].ID {
		t.Errorf("limit 1 gives %+v", limited)
	}
}

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
