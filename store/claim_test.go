package store

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"
)

func seedServers(t testing.TB, s *Store, n int) []Server {
	t.Helper()
	servers := make([]Server, n)
	for i := range servers {
		servers[i] = httpServer(fmt.Sprintf("srv-%06d", i))
	}
	ctx := t.Context()
	if _, err := s.SyncServers(ctx, SourceConfig, servers); err != nil {
		t.Fatalf("SyncServers: %v", err)
	}
	return servers
}

// claimedSlots is a store of n servers whose slots in region eu worker w has claimed.
func claimedSlots(t *testing.T, n int) (*Store, context.Context, []Claimed) {
	t.Helper()
	s, ctx := newTestStore(t)
	if err := s.RegisterRegion(ctx, "eu"); err != nil {
		t.Fatal(err)
	}
	seedServers(t, s, n)
	claimed, err := s.Claim(ctx, "eu", "w", n, time.Minute)
	if err != nil || len(claimed) != n {
		t.Fatalf("Claim = %d, %v; want %d", len(claimed), err, n)
	}
	return s, ctx, claimed
}

type slot struct {
	server int64
	region string
}

func TestConcurrentClaimersNeverGetTheSameSlot(t *testing.T) {
	t.Parallel()
	s, ctx := newTestStore(t)
	regions := []string{"eu", "us"}
	for _, r := range regions {
		if err := s.RegisterRegion(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	const servers = 150
	seedServers(t, s, servers)

	var mu sync.Mutex
	owner := map[slot]string{}
	var dupes []string
	start := make(chan struct{})
	var wg sync.WaitGroup
	for _, region := range regions {
		for w := range 3 {
			worker := fmt.Sprintf("%s-worker-%d", region, w)
			wg.Go(func() {
				<-start
				for {
					got, err := s.Claim(ctx, region, worker, 4, time.Minute)
					if err != nil {
						t.Errorf("%s: Claim: %v", worker, err)
						return
					}
					if len(got) == 0 {
						return // everything is leased
					}
					mu.Lock()
					for _, c := range got {
						k := slot{c.Server.ID, c.Lease.Region}
						if prev, taken := owner[k]; taken {
							dupes = append(dupes, fmt.Sprintf("%v claimed by %s and %s", k, prev, worker))
						}
						owner[k] = worker
						if c.Lease.Worker != worker || c.Lease.Region != region || c.Lease.ServerID != c.Server.ID {
							t.Errorf("lease %+v does not match its claim by %s in %s", c.Lease, worker, region)
						}
					}
					mu.Unlock()
				}
			})
		}
	}
	close(start)
	wg.Wait()
	for _, d := range dupes {
		t.Error(d)
	}
	if len(owner) != servers*len(regions) {
		t.Errorf("%d slots claimed, want %d: every server once in every region", len(owner), servers*len(regions))
	}
}

func TestExpiredLeaseIsClaimedByAnotherWorker(t *testing.T) {
	t.Parallel()
	s, ctx := newTestStore(t)
	if err := s.RegisterRegion(ctx, "eu"); err != nil {
		t.Fatal(err)
	}
	mustUpsert(t, ctx, s, httpServer("a"))
	const lease = 300 * time.Millisecond

	first, err := s.Claim(ctx, "eu", "killed", 10, lease)
	if err != nil || len(first) != 1 {
		t.Fatalf("first Claim = %v, %v; want the server", first, err)
	}
	if got, err := s.Claim(ctx, "eu", "other", 10, lease); err != nil || len(got) != 0 {
		t.Fatalf("Claim during the lease = %v, %v; want nothing", got, err)
	}
	// The worker that claimed first is gone; its lease runs out.
	var second []Claimed
	deadline := time.Now().Add(30 * time.Second)
	for len(second) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the expired lease was not claimed again within 30s")
		}
		time.Sleep(20 * time.Millisecond) // waiting for time itself to pass: there is no event
		if second, err = s.Claim(ctx, "eu", "other", 10, time.Minute); err != nil {
			t.Fatal(err)
		}
	}
	if got := second[0].Lease; got.Seq <= first[0].Lease.Seq || got.Until.Sub(first[0].Lease.Until) < time.Minute-lease {
		t.Errorf("second lease %+v is not a later claim of the first %+v", got, first[0].Lease)
	}
	if err := s.Complete(ctx, first[0].Lease, time.Now(), OutcomeUp); !errors.Is(err, ErrLeaseLost) {
		t.Errorf("Complete by the worker whose lease expired: %v, want ErrLeaseLost", err)
	}
	next := time.Now().Add(time.Hour).Truncate(time.Microsecond)
	if err := s.Complete(ctx, second[0].Lease, next, OutcomeUp); err != nil {
		t.Fatalf("Complete by the holder: %v", err)
	}
	if err := s.Complete(ctx, second[0].Lease, next, OutcomeUp); !errors.Is(err, ErrLeaseLost) {
		t.Errorf("second Complete of one lease: %v, want ErrLeaseLost", err)
	}
	if got, _ := s.Claim(ctx, "eu", "other", 10, lease); len(got) != 0 {
		t.Errorf("claimed %d servers before their next due time", len(got))
	}
	at, ok, err := s.NextClaimable(ctx, "eu")
	if err != nil || !ok || !at.Equal(next) {
		t.Errorf("NextClaimable = %v, %v, %v; want %v", at, ok, err, next)
	}
	if _, ok, _ := s.NextClaimable(ctx, "mars"); ok {
		t.Error("NextClaimable in a region without slots reports one")
	}
}

func TestReleaseMakesASlotClaimableAtOnce(t *testing.T) {
	t.Parallel()
	s, ctx := newTestStore(t)
	if err := s.RegisterRegion(ctx, "eu"); err != nil {
		t.Fatal(err)
	}
	mustUpsert(t, ctx, s, httpServer("a"))
	got, err := s.Claim(ctx, "eu", "stopping", 10, time.Hour)
	if err != nil || len(got) != 1 {
		t.Fatalf("Claim = %v, %v", got, err)
	}
	if err := s.Release(ctx, got[0].Lease); err != nil {
		t.Fatalf("Release: %v", err)
	}
	again, err := s.Claim(ctx, "eu", "next", 10, time.Hour)
	if err != nil || len(again) != 1 || !again[0].Lease.Due.Equal(got[0].Lease.Due) {
		t.Fatalf("Claim after Release = %v, %v; want the server, due as before", again, err)
	}
	if err := s.Release(ctx, got[0].Lease); !errors.Is(err, ErrLeaseLost) {
		t.Errorf("Release of a lease claimed again since: %v, want ErrLeaseLost", err)
	}
}

func TestDisabledAndDeletedServersAreNotClaimed(t *testing.T) {
	t.Parallel()
	s, ctx := newTestStore(t)
	if err := s.RegisterRegion(ctx, "eu"); err != nil {
		t.Fatal(err)
	}
	off := httpServer("off")
	off.Enabled = false
	mustUpsert(t, ctx, s, off)
	gone := mustUpsert(t, ctx, s, httpServer("gone"))
	kept := mustUpsert(t, ctx, s, httpServer("kept"))
	if err := s.DeleteServer(ctx, gone.ID); err != nil {
		t.Fatal(err)
	}
	got, err := s.Claim(ctx, "eu", "w", 10, time.Minute)
	if err != nil || len(got) != 1 || got[0].Server.ID != kept.ID {
		t.Fatalf("Claim = %+v, %v; want only %q", got, err, kept.Name)
	}
	if got[0].Server.URL != kept.URL || len(got[0].Server.Headers) != 1 {
		t.Errorf("claimed server %+v lacks its definition", got[0].Server)
	}
}

// TestRegionsAndServersAddedTogetherAllGetSlots races server inserts against region
// registrations: however they interleave, every enabled server ends with a slot per region.
func TestRegionsAndServersAddedTogetherAllGetSlots(t *testing.T) {
	t.Parallel()
	s, ctx := newTestStore(t)
	const writers, perWriter, regions = 4, 15, 12
	start := make(chan struct{})
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			<-start
			for i := range perWriter {
				if _, err := s.UpsertServer(ctx, httpServer(fmt.Sprintf("s%d-%d", w, i))); err != nil {
					t.Errorf("UpsertServer: %v", err)
					return
				}
			}
		})
	}
	for g := range 2 {
		wg.Go(func() {
			<-start
			for i := g; i < regions; i += 2 {
				if err := s.RegisterRegion(ctx, fmt.Sprintf("r%d", i)); err != nil {
					t.Errorf("RegisterRegion: %v", err)
					return
				}
			}
		})
	}
	close(start)
	wg.Wait()
	if n := count(t, ctx, s, `SELECT count(*) FROM schedule`); n != writers*perWriter*regions {
		t.Errorf("%d schedule slots, want %d", n, writers*perWriter*regions)
	}
}

func TestClaimArguments(t *testing.T) {
	t.Parallel()
	s, ctx := newTestStore(t)
	if got, err := s.Claim(ctx, "eu", "w", 0, time.Minute); got != nil || err != nil {
		t.Errorf("Claim of 0 = %v, %v; want nothing", got, err)
	}
	if _, err := s.Claim(ctx, "eu", "w", 1, 0); err == nil {
		t.Error("Claim with no lease succeeded")
	}
	if err := s.RegisterRegion(ctx, ""); err == nil {
		t.Error("RegisterRegion of an empty name succeeded")
	}
}

// TestRegisterRegionAndScheduleChangesDoNotDeadlock runs what two monitors starting together
// do: one syncs a config whose schedules changed while the other re-registers its region.
func TestRegisterRegionAndScheduleChangesDoNotDeadlock(t *testing.T) {
	t.Parallel()
	s, ctx := newTestStore(t)
	if err := s.RegisterRegion(ctx, "eu"); err != nil {
		t.Fatal(err)
	}
	seedServers(t, s, 30)
	start := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		<-start
		for round := range 15 {
			servers := make([]Server, 30)
			for i := range servers {
				servers[i] = httpServer(fmt.Sprintf("srv-%06d", i))
				servers[i].Schedule = fmt.Sprintf("@every %ds", 10+round)
			}
			if _, err := s.SyncServers(ctx, SourceConfig, servers); err != nil {
				t.Errorf("SyncServers: %v", err)
				return
			}
		}
	})
	wg.Go(func() {
		<-start
		for range 15 {
			if err := s.RegisterRegion(ctx, "eu"); err != nil {
				t.Errorf("RegisterRegion: %v", err)
				return
			}
		}
	})
	close(start)
	wg.Wait()
}

// Slots a worker probed while the database was away are not claimed again, unless someone
// else has the slot: a live lease, or a next due time already past the probed slot.
func TestSkipProbedMovesOnlySlotsNobodyElseHas(t *testing.T) {
	t.Parallel()
	s, ctx, claimed := claimedSlots(t, 3)
	free, leased, later := claimed[0], claimed[1], claimed[2]
	if err := s.Release(ctx, free.Lease); err != nil {
		t.Fatal(err)
	}
	completedTo := time.Now().Add(time.Hour).Truncate(time.Microsecond)
	if err := s.Complete(ctx, later.Lease, completedTo, OutcomeUp); err != nil {
		t.Fatal(err)
	}
	probed := time.Now().Truncate(time.Microsecond)
	next := probed.Add(10 * time.Minute)
	var slots []ProbedSlot
	for _, c := range claimed {
		slots = append(slots, ProbedSlot{ServerID: c.Server.ID, Due: probed, Next: next})
	}
	if err := s.SkipProbed(ctx, "eu", slots); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		c    Claimed
		want time.Time
	}{
		{"a slot nobody holds", free, next},
		{"a slot leased by another worker", leased, leased.Lease.Due},
		{"a slot completed past the probed one", later, completedTo},
	} {
		var got time.Time
		if err := s.pool.QueryRow(ctx, `SELECT next_due FROM schedule WHERE server_id = $1 AND region = 'eu'`, tc.c.Server.ID).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if !got.Equal(tc.want) {
			t.Errorf("%s: next due %v, want %v", tc.name, got, tc.want)
		}
	}
}

// CompleteLeases ends every lease of a batch that is still held, as Complete would one at a
// time, and says which were not: the worker learns which slots it lost.
func TestCompleteLeasesEndsTheHeldLeasesAndReportsTheLost(t *testing.T) {
	t.Parallel()
	s, ctx, claimed := claimedSlots(t, 3)
	// The first lease is ended already: completing it again finds it lost.
	if err := s.Complete(ctx, claimed[0].Lease, time.Now(), OutcomeUp); err != nil {
		t.Fatal(err)
	}
	next := time.Now().Add(time.Hour).Truncate(time.Microsecond)
	batch := []Completion{
		{Lease: claimed[0].Lease, NextDue: next, Outcome: OutcomeDown},
		{Lease: claimed[1].Lease, NextDue: next, Outcome: OutcomeDegraded},
		{Lease: claimed[2].Lease, NextDue: next.Add(time.Minute)}, // no run: keeps no outcome
	}
	done, err := s.CompleteLeases(ctx, batch)
	if err != nil {
		t.Fatal(err)
	}
	if want := []bool{false, true, true}; fmt.Sprint(done) != fmt.Sprint(want) {
		t.Errorf("done = %v, want %v", done, want)
	}
	for i, c := range batch {
		var due time.Time
		var outcome string
		var leased bool
		if err := s.Pool().QueryRow(ctx, `SELECT next_due, coalesce(last_outcome, ''), lease_until IS NOT NULL
			FROM schedule WHERE server_id = $1 AND region = 'eu'`, c.Lease.ServerID).Scan(&due, &outcome, &leased); err != nil {
			t.Fatal(err)
		}
		want := struct {
			due     time.Time
			outcome string
		}{c.NextDue, c.Outcome}
		if i == 0 {
			want.outcome = OutcomeUp // what the Complete before recorded
		}
		if leased || (i > 0 && !due.Equal(want.due)) || outcome != want.outcome {
			t.Errorf("slot %d: next due %v, outcome %q, leased %v; want next due %v, outcome %q, not leased", i, due, outcome, leased, want.due, want.outcome)
		}
	}
}

func TestClaimReturnsTheOutcomeTheLastCompleteRecorded(t *testing.T) {
	t.Parallel()
	s, ctx := newTestStore(t)
	if err := s.RegisterRegion(ctx, "eu"); err != nil {
		t.Fatal(err)
	}
	mustUpsert(t, ctx, s, httpServer("a"))
	// Each step completes with outcome and makes the slot due again at once; the next claim
	// must see what the step before recorded ("" records nothing: a slot put off unprobed).
	steps := []struct{ complete, want string }{
		{OutcomeDown, ""}, // the first claim: no run yet
		{"", OutcomeDown},
		{OutcomeUp, OutcomeDown},
		{OutcomeUp, OutcomeUp},
	}
	for i, st := range steps {
		got, err := s.Claim(ctx, "eu", "w", 10, time.Minute)
		if err != nil || len(got) != 1 {
			t.Fatalf("claim %d = %v, %v", i, got, err)
		}
		if got[0].LastOutcome != st.want {
			t.Errorf("claim %d: LastOutcome %q, want %q", i, got[0].LastOutcome, st.want)
		}
		if err := s.Complete(ctx, got[0].Lease, time.Now().Add(-time.Second), st.complete); err != nil {
			t.Fatal(err)
		}
	}
}
