package store

import (
	"testing"
	"time"
)

func TestRecentRunsAreTheLastNOfEachServerNewestFirst(t *testing.T) {
	t.Parallel()
	s, ctx := newTestStore(t)
	a := mustUpsert(t, ctx, s, httpServer("a"))
	b := mustUpsert(t, ctx, s, httpServer("b"))
	idle := mustUpsert(t, ctx, s, httpServer("idle"))
	start := time.Now().UTC().Truncate(time.Minute).Add(-time.Hour)
	var runs []RunRecord
	for i := range 5 {
		region := "eu"
		if i%2 == 1 {
			region = "us"
		}
		runs = append(runs, sampleRun(a.ID, region, start.Add(time.Duration(i)*time.Minute), OutcomeUp, time.Second))
	}
	runs = append(runs, sampleRun(b.ID, "eu", start, OutcomeDown, time.Second))
	if _, err := s.WriteRuns(ctx, runs); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		ids  []int64
		n    int
		want []time.Time // starts, by server then newest first
	}{
		{"the last three of a, every region", []int64{a.ID}, 3, []time.Time{runs[4].Start, runs[3].Start, runs[2].Start}},
		{"fewer runs than asked", []int64{b.ID, a.ID}, 2, []time.Time{runs[4].Start, runs[3].Start, runs[5].Start}},
		{"a server without runs has none", []int64{idle.ID}, 3, nil},
		{"no servers", nil, 3, nil},
		{"n of 0", []int64{a.ID}, 0, nil},
	} {
		got, err := s.RecentRuns(ctx, tc.ids, tc.n)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if len(got) != len(tc.want) {
			t.Fatalf("%s: %d runs, want %d", tc.name, len(got), len(tc.want))
		}
		for i, r := range got {
			if !r.Start.Equal(tc.want[i]) {
				t.Errorf("%s: run %d started %v, want %v", tc.name, i, r.Start, tc.want[i])
			}
		}
	}
}
