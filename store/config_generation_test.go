package store

import (
	"errors"
	"sync"
	"testing"
	"time"
)

func TestJudgeGenerationRefusesOnlyAnOlderDifferentList(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	synced := &Generation{Hash: "aaa", Time: t0}
	for _, tc := range []struct {
		name    string
		offered Generation
		synced  *Generation
		force   bool
		want    generationVerdict
	}{
		{"nothing synced before", Generation{Hash: "bbb", Time: t0.Add(-time.Hour)}, nil, false, generationFirst},
		{"same list, same time", Generation{Hash: "aaa", Time: t0}, synced, false, generationSame},
		{"same list from an older copy", Generation{Hash: "aaa", Time: t0.Add(-time.Hour)}, synced, false, generationSame},
		{"same list from a newer copy", Generation{Hash: "aaa", Time: t0.Add(time.Hour)}, synced, false, generationSame},
		{"other list written later", Generation{Hash: "bbb", Time: t0.Add(time.Second)}, synced, false, generationNewer},
		{"other list written at the same time", Generation{Hash: "bbb", Time: t0}, synced, false, generationNewer},
		{"other list written earlier", Generation{Hash: "bbb", Time: t0.Add(-time.Microsecond)}, synced, false, generationStale},
		{"other list written earlier, forced", Generation{Hash: "bbb", Time: t0.Add(-time.Hour)}, synced, true, generationForced},
		{"other list written later, forced anyway", Generation{Hash: "bbb", Time: t0.Add(time.Hour)}, synced, true, generationNewer},
	} {
		if got := judgeGeneration(tc.offered, tc.synced, tc.force); got != tc.want {
			t.Errorf("%s: verdict %d, want %d", tc.name, got, tc.want)
		}
	}
}

// The scenario of a fleet: worker A adds a server with a newer file, worker B restarts with
// its older copy. B's sync is refused and changes nothing; B forced, or B with the file
// edited after A's, is applied.
func TestSyncGenerationRefusesAStaleFileAndChangesNothing(t *testing.T) {
	t.Parallel()
	s, ctx := newTestStore(t)
	if err := s.RegisterRegion(ctx, "eu"); err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 5, 1, 12, 0, 0, 123456789, time.UTC)
	older := Generation{Hash: "hash-old", Time: t0, Worker: "b", Path: "/etc/b.yaml"}
	newer := Generation{Hash: "hash-new", Time: t0.Add(time.Hour), Worker: "a", Path: "/etc/a.yaml"}

	first, err := s.SyncGeneration(ctx, SourceConfig, []Server{httpServer("alpha")}, older, false)
	if err != nil || first.Previous != nil || first.Upserted != 1 {
		t.Fatalf("first sync: %+v, %v", first, err)
	}
	if _, err := s.SyncGeneration(ctx, SourceConfig, []Server{httpServer("alpha"), httpServer("beta")}, newer, false); err != nil {
		t.Fatalf("newer sync: %v", err)
	}

	_, err = s.SyncGeneration(ctx, SourceConfig, []Server{httpServer("alpha")}, older, false)
	var stale *StaleGenerationError
	if !errors.As(err, &stale) || !errors.Is(err, ErrStaleGeneration) {
		t.Fatalf("stale sync: %v, want a StaleGenerationError", err)
	}
	if stale.Synced.Hash != "hash-new" || stale.Synced.Worker != "a" || stale.Synced.Path != "/etc/a.yaml" ||
		!stale.Synced.Time.Equal(newer.Time.Truncate(time.Microsecond)) || stale.Synced.SyncedAt.IsZero() {
		t.Errorf("the refusal names %+v, want the newer generation synced by a", stale.Synced)
	}
	if beta, err := s.ServerByName(ctx, "beta"); err != nil || !beta.Enabled {
		t.Errorf("beta after the refused sync: %+v, %v; want enabled", beta, err)
	}
	if n := count(t, ctx, s, `SELECT count(*) FROM schedule`); n != 2 {
		t.Errorf("%d schedule slots after the refused sync, want 2", n)
	}
	if g, err := s.ConfigGeneration(ctx, SourceConfig); err != nil || g.Hash != "hash-new" {
		t.Errorf("recorded generation %+v, %v; want hash-new", g, err)
	}

	// A copy of the newer list, whatever its time, is never refused, and an older copy does
	// not move the record back.
	if _, err := s.SyncGeneration(ctx, SourceConfig, []Server{httpServer("alpha"), httpServer("beta")},
		Generation{Hash: "hash-new", Time: t0.Add(-24 * time.Hour), Worker: "c", Path: "/etc/c.yaml"}, false); err != nil {
		t.Fatalf("an older copy of the same list: %v", err)
	}
	if g, _ := s.ConfigGeneration(ctx, SourceConfig); !g.Time.Equal(newer.Time.Truncate(time.Microsecond)) || g.Worker != "a" {
		t.Errorf("after an older copy of the same list the record is %+v, want a's", g)
	}

	forced, err := s.SyncGeneration(ctx, SourceConfig, []Server{httpServer("alpha")}, older, true)
	if err != nil || !forced.Forced || forced.Previous == nil || forced.Previous.Hash != "hash-new" ||
		len(forced.Disabled) != 1 || forced.Disabled[0] != "beta" {
		t.Fatalf("forced sync: %+v, %v; want beta disabled, forced over hash-new", forced, err)
	}
	if g, _ := s.ConfigGeneration(ctx, SourceConfig); g.Hash != "hash-old" || !g.Time.Equal(t0.Truncate(time.Microsecond)) {
		t.Errorf("after the forced sync the record is %+v, want the forced generation", g)
	}

	// The file edited on the stale worker (written now) is newer than everything.
	edited := Generation{Hash: "hash-edited", Time: t0.Add(2 * time.Hour), Worker: "b", Path: "/etc/b.yaml"}
	if r, err := s.SyncGeneration(ctx, SourceConfig, []Server{httpServer("alpha"), httpServer("gamma")}, edited, false); err != nil || r.Forced {
		t.Fatalf("edited file: %+v, %v", r, err)
	}
}

func TestSyncGenerationNeedsAHash(t *testing.T) {
	t.Parallel()
	s, ctx := newTestStore(t)
	if _, err := s.SyncGeneration(ctx, SourceConfig, nil, Generation{Time: time.Now()}, false); !errors.Is(err, ErrInvalidServer) {
		t.Errorf("sync without a hash: %v, want ErrInvalidServer", err)
	}
}

// Two syncs at once take turns: of an older and a newer list started together, the newer is
// the one recorded whichever commits first, and the older is either refused or overwritten.
func TestConcurrentSyncsOfGenerationsEndWithTheNewest(t *testing.T) {
	t.Parallel()
	s, ctx := newTestStore(t)
	t0 := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	for round := range 5 {
		base := t0.Add(time.Duration(round) * 24 * time.Hour)
		gens := []Generation{
			{Hash: "old", Time: base, Worker: "b", Path: "b.yaml"},
			{Hash: "new", Time: base.Add(time.Minute), Worker: "a", Path: "a.yaml"},
		}
		lists := [][]Server{{httpServer("alpha")}, {httpServer("alpha"), httpServer("beta")}}
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i := range gens {
			wg.Go(func() {
				_, errs[i] = s.SyncGeneration(ctx, SourceConfig, lists[i], gens[i], false)
			})
		}
		wg.Wait()
		if errs[1] != nil || errs[0] != nil && !errors.Is(errs[0], ErrStaleGeneration) {
			t.Fatalf("round %d: older %v, newer %v", round, errs[0], errs[1])
		}
		if g, _ := s.ConfigGeneration(ctx, SourceConfig); g.Hash != "new" {
			t.Fatalf("round %d: recorded %q, want new", round, g.Hash)
		}
		if beta, err := s.ServerByName(ctx, "beta"); err != nil || !beta.Enabled {
			t.Fatalf("round %d: beta %+v, %v; want enabled", round, beta, err)
		}
	}
}
