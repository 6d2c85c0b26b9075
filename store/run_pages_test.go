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
