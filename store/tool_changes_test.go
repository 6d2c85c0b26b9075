package store

import (
	"testing"
	"time"
)

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
