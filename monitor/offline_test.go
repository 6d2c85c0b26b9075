package monitor

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/alert"
	"github.com/mcpwatch/mcpwatch/store"
)

// databaseEngine stands for the alert engine where it matters here: it needs the database
// (as the real one does, for the alert states), and it keeps the observations it judged.
type databaseEngine struct {
	st     *store.Store
	mu     sync.Mutex
	judged []alert.Observation
}

func (e *databaseEngine) Observe(ctx context.Context, obs alert.Observation) error {
	if err := e.st.Pool().Ping(ctx); err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.judged = append(e.judged, obs)
	return nil
}

func (e *databaseEngine) observed() []alert.Observation {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]alert.Observation(nil), e.judged...)
}

// A worker whose database goes away keeps probing the servers it held, on their schedule,
// without leases; the runs wait in the spool, and once the database is back each is stored
// once, no slot is probed twice, and the alert engine is handed every run in order.
func TestAWorkerWithoutItsDatabaseKeepsProbingTheServersItHeld(t *testing.T) {
	t.Parallel()
	db := newTestDB(t)
	st := db.withProxy(t)
	farm := newFixtureFarm(t, 0)
	syncServers(t, db.direct, "eu", farm.servers("srv", 2, "@every 1s", 2*time.Second))
	rec := newRecorder()
	engine := &databaseEngine{st: st}
	// A lease is 2s + 1s: the worker goes offline 3s after the database went away.
	w := startWorker(t, st, WorkerConfig{Name: "w", Concurrency: 4, MaxTimeout: 2 * time.Second, LeaseMargin: time.Second,
		MaxJitter: -1, Alerts: engine, Trace: rec.trace})

	rec.waitFor(t, time.Minute, "two probes of each server", func(r *recorder) bool {
		per := r.perServer()
		return len(per) == 2 && minCount(per) >= 2
	})
	db.proxy.Cut()
	cut := time.Now()
	time.Sleep(9 * time.Second)
	offline := map[int64][]Event{}
	for _, e := range rec.of(EventProbeFinished) {
		if e.Offline {
			offline[e.ServerID] = append(offline[e.ServerID], e.Event)
		}
	}
	// Offline from some 3s after the cut until now, some 6s: a slot a second.
	if len(offline) != 2 || len(offline[firstKey(offline)]) < 4 || len(offline[otherKey(offline)]) < 4 {
		t.Fatalf("servers probed while the database was away: %d of 2, slots %v; want 4 or more each", len(offline), slotCounts(offline))
	}
	// The first slot probed offline is the one the worker was waiting for, probed late (as a
	// late claim would be); from then on the slots follow the grid.
	for id, evs := range offline {
		for i := 2; i < len(evs); i++ {
			if gap := evs[i].Lease.Due.Sub(evs[i-1].Lease.Due); gap != time.Second {
				t.Errorf("server %d probed offline at slots %v then %v: want its schedule's 1s grid", id, evs[i-1].Lease.Due, evs[i].Lease.Due)
			}
		}
	}
	if s := w.buf.Stats(); !s.Away || s.Spooled == 0 {
		t.Errorf("the runs made offline are not spooled: %+v", s)
	}
	db.proxy.Restore()
	back := time.Now()

	rec.waitFor(t, time.Minute, "two leased probes of each server after the database came back", func(r *recorder) bool {
		n := map[int64]int{}
		for _, e := range r.of(EventProbeFinished) {
			if !e.Offline && e.Lease.Due.After(back) {
				n[e.ServerID]++
			}
		}
		return len(n) == 2 && minCount(n) >= 2
	})
	eventually(t, time.Minute, "the spool written and the alert engine caught up", func() bool {
		s := w.buf.Stats()
		return s.Spooled == 0 && s.Memory == 0 && w.w.catchUp.n.Load() == 0
	})
	w.stop(t)

	stored := storedIDs(t, db.direct)
	slots := map[string]bool{}
	finished := rec.of(EventProbeFinished)
	for _, e := range finished {
		key := e.Server + "@" + e.Lease.Due.UTC().Format(time.RFC3339Nano)
		if slots[key] {
			t.Errorf("slot %s probed twice", key)
		}
		slots[key] = true
		if stored[e.Run] != 1 {
			t.Errorf("run %s of %s (offline %v) stored %d times, want once", e.Run, e.Server, e.Offline, stored[e.Run])
		}
	}
	if total, distinct := countRuns(t, db.direct); total != len(finished) || distinct != total {
		t.Errorf("%d runs stored (%d distinct) for %d probes", total, distinct, len(finished))
	}

	// Every run made from the cut on reaches the engine (none could be judged before the
	// database was back), and the runs of a server reach it oldest first.
	judged := map[string]bool{}
	last := map[int64]time.Time{}
	for _, o := range engine.observed() {
		judged[o.RunID] = true
		if !o.At.After(last[o.ServerID]) {
			t.Errorf("run %s of %s judged after a later one (%v, then %v)", o.RunID, o.Server, last[o.ServerID], o.At)
		}
		last[o.ServerID] = o.At
	}
	for _, e := range finished {
		if e.Lease.Due.After(cut) && !judged[e.Run.String()] {
			t.Errorf("run %s of %s (offline %v, due %v) never reached the alert engine", e.Run, e.Server, e.Offline, e.Lease.Due)
		}
	}
}

func firstKey[V any](m map[int64]V) int64 {
	for k := range m {
		return k
	}
	return 0
}

func otherKey[V any](m map[int64]V) int64 {
	first := firstKey(m)
	for k := range m {
		if k != first {
			return k
		}
	}
	return 0
}

func minCount(m map[int64]int) int {
	least := -1
	for _, n := range m {
		if least < 0 || n < least {
			least = n
		}
	}
	return least
}

func slotCounts(m map[int64][]Event) map[int64]int {
	out := map[int64]int{}
	for k, v := range m {
		out[k] = len(v)
	}
	return out
}

// When the database is away for one worker only (a partition), the other workers take its
// servers over once its leases expire while it goes on probing them offline: both probe the
// same slots, and each slot is stored once.
func TestAPartitionedWorkerAndTheOthersStoreEachSlotOnce(t *testing.T) {
	t.Parallel()
	db := newTestDB(t)
	st := db.withProxy(t)
	farm := newFixtureFarm(t, 0)
	syncServers(t, db.direct, "eu", farm.servers("srv", 2, "@every 1s", 2*time.Second))
	rec := newRecorder()
	cfg := WorkerConfig{Concurrency: 4, MaxTimeout: 2 * time.Second, LeaseMargin: time.Second, MaxJitter: -1, Trace: rec.trace}
	cfg.Name = "cut"
	cutOff := startWorker(t, st, cfg)
	rec.waitFor(t, time.Minute, "two probes of each server by the worker to be cut off", func(r *recorder) bool {
		per := r.perServer()
		return len(per) == 2 && minCount(per) >= 2
	})
	db.proxy.Cut()
	cfg.Name = "other"
	other := startWorker(t, db.direct, cfg)
	rec.waitFor(t, time.Minute, "both workers probing the same slots", func(r *recorder) bool {
		offline, leased := map[string]bool{}, map[string]bool{}
		for _, e := range r.of(EventProbeFinished) {
			key := e.Server + "@" + e.Lease.Due.UTC().Format(time.RFC3339Nano)
			if e.Offline {
				offline[key] = true
			} else if e.Worker == "other" {
				leased[key] = true
			}
		}
		both := 0
		for k := range offline {
			if leased[k] {
				both++
			}
		}
		return both >= 4
	})
	db.proxy.Restore()
	eventually(t, time.Minute, "the cut-off worker's spool written", func() bool {
		s := cutOff.buf.Stats()
		return s.Spooled == 0 && s.Memory == 0 && !s.Away
	})
	cutOff.stop(t)
	other.stop(t)

	runs, slots := map[store.RunID]bool{}, map[string]bool{}
	probes := 0
	for _, e := range rec.of(EventProbeFinished) {
		runs[e.Run] = true
		slots[e.Server+"@"+e.Lease.Due.UTC().Format(time.RFC3339Nano)] = true
		probes++
	}
	stored := storedIDs(t, db.direct)
	for id, n := range stored {
		if n != 1 {
			t.Errorf("run %s stored %d times", id, n)
		}
		if !runs[id] {
			t.Errorf("stored run %s is no finished probe's", id)
		}
	}
	if len(stored) != len(slots) {
		t.Errorf("%d runs stored for %d slots probed (%d probes)", len(stored), len(slots), probes)
	}
}

// The schedule cache keeps a server while this worker is the one holding it, and lets it go
// once it is lost or another worker has it.
func TestTheScheduleCacheKeepsOnlyTheServersThisWorkerHolds(t *testing.T) {
	t.Parallel()
	const lease = 3 * time.Second
	now := time.Now()
	srv := store.Server{ID: 1, Name: "a"}
	for _, tc := range []struct {
		name  string
		after func(c *scheduleCache)
		kept  bool
	}{
		{"completed, next slot to come", func(c *scheduleCache) { c.ended(1, now, now.Add(time.Second), true, false) }, true},
		{"lease lost", func(c *scheduleCache) { c.ended(1, now, now.Add(time.Second), false, true) }, false},
		{"next slot passed less than a lease ago", func(c *scheduleCache) { c.ended(1, now, now.Add(-lease/2), true, false) }, true},
		{"next slot passed by more than a lease: another worker has it", func(c *scheduleCache) {
			c.ended(1, now.Add(-2*lease), now.Add(-lease-time.Second), true, false)
		}, false},
		{"probed offline, not yet handed back", func(c *scheduleCache) {
			c.claimed(srv, now)
			c.probedOffline(1, now.Add(-2*lease), now.Add(-lease-time.Second))
		}, true},
		{"being probed", func(c *scheduleCache) { c.claimed(srv, now.Add(-2*lease)) }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var c scheduleCache
			c.claimed(srv, now.Add(-time.Second))
			tc.after(&c)
			c.forgetPassed(now, lease)
			if kept := c.len() == 1; kept != tc.kept {
				t.Errorf("kept = %v, want %v", kept, tc.kept)
			}
		})
	}
}

// The cache forgets and hands back what a walk of every server it holds would, whatever the
// order of claims, ends, offline probes and hand-backs: it keeps its own index of what to
// forget and a count of what to hand back instead of walking them after every claim. A
// plain model of the walk is run beside it on random sequences.
func TestTheScheduleCacheForgetsAndHandsBackWhatAWalkWould(t *testing.T) {
	t.Parallel()
	const lease = 3 * time.Second
	type model struct {
		next, probed   time.Time
		busy, handBack bool
	}
	for seed := range int64(50) {
		rng := rand.New(rand.NewPCG(uint64(seed), 1))
		var c scheduleCache
		m := map[int64]*model{}
		now := time.Now()
		at := func() time.Time { return now.Add(time.Duration(rng.IntN(20)-10) * time.Second) }
		for step := range 400 {
			id := int64(rng.IntN(12) + 1)
			h := m[id]
			var op string
			switch k := rng.IntN(8); {
			case k == 0 || h == nil:
				op = "claimed"
				due := at()
				c.claimed(store.Server{ID: id}, due)
				if h == nil {
					h = &model{next: due}
					m[id] = h
				}
				h.busy = true
			case k == 1:
				op = "ended lost"
				c.ended(id, at(), at(), false, true)
				delete(m, id)
			case k == 2:
				op = "ended unprobed"
				next := at()
				c.ended(id, time.Time{}, next, true, false)
				h.busy, h.next = false, next
			case k == 3:
				op = "ended"
				probed, next, completed := at(), at(), rng.IntN(2) == 0
				c.ended(id, probed, next, completed, false)
				h.busy, h.next, h.probed, h.handBack = false, next, probed, !completed
			case k == 4:
				op = "probed offline"
				due, next := at(), at()
				c.probedOffline(id, due, next)
				h.busy, h.next, h.probed, h.handBack = false, next, due, true
			case k == 5:
				op = "idle"
				c.idle(id)
				h.busy = false
			case k == 6:
				op = "handed back"
				slots := c.toHandBack()
				c.handedBack(slots)
				for _, p := range slots {
					if h := m[p.ServerID]; h != nil && h.probed.Equal(p.Due) {
						h.handBack = false
					}
				}
			default:
				op = "forget"
				now = now.Add(time.Duration(rng.IntN(3000)) * time.Millisecond)
				c.forgetPassed(now, lease)
				for id, h := range m {
					if !h.busy && !h.handBack && h.next.Add(lease).Before(now) {
						delete(m, id)
					}
				}
			}
			want := map[int64]bool{}
			for id, h := range m {
				want[id] = h.handBack
			}
			got := map[int64]bool{}
			for id := range c.servers {
				got[id] = false
			}
			for _, p := range c.toHandBack() {
				got[p.ServerID] = true
			}
			if !maps.Equal(got, want) {
				t.Fatalf("seed %d, step %d (%s of %d): cache holds (id: to hand back) %v, a walk would %v", seed, step, op, id, got, want)
			}
		}
	}
}

// Observations waiting for the engine are bounded: the oldest go first, and are counted.
func TestTheCatchUpQueueDropsTheOldestBeyondItsBound(t *testing.T) {
	t.Parallel()
	var q catchUpQueue
	dropped := 0
	for i := range maxCatchUp + 3 {
		if q.add(alert.Observation{ServerID: int64(i%2 + 1), RunID: fmt.Sprint(i)}) {
			dropped++
		}
	}
	if dropped != 3 || q.n.Load() != maxCatchUp {
		t.Fatalf("dropped %d, holds %d; want 3 dropped, %d held", dropped, q.n.Load(), maxCatchUp)
	}
	if o, _ := q.pop(0); o.RunID != "3" {
		t.Errorf("oldest left is run %s, want 3", o.RunID)
	}
	if o, _ := q.pop(1); o.RunID != "4" || o.ServerID != 1 {
		t.Errorf("oldest of server 1 is run %s, want 4", o.RunID)
	}
}

// The database comes back while a slot is being probed offline: the worker must not claim that
// slot (the database does not know it is being probed) and probe it a second time. Here the
// offline probe is held until the database has been back for a while, which is when a claim
// would hand the slot out again.
func TestASlotProbedOfflineWhenTheDatabaseReturnsIsNotProbedAgain(t *testing.T) {
	t.Parallel()
	db := newTestDB(t)
	st := db.withProxy(t)
	farm := newFixtureFarm(t, 0)
	syncServers(t, db.direct, "eu", farm.servers("srv", 1, "@every 1s", 8*time.Second))
	rec := newRecorder()
	w := startWorker(t, st, WorkerConfig{Name: "w", Concurrency: 2, MaxTimeout: 8 * time.Second, LeaseMargin: time.Second,
		MaxJitter: -1, Trace: rec.trace})
	rec.waitFor(t, time.Minute, "a first probe", func(r *recorder) bool { return len(r.of(EventProbeFinished)) >= 1 })

	db.proxy.Cut()
	rec.waitFor(t, time.Minute, "a probe made offline", func(r *recorder) bool {
		for _, e := range r.of(EventProbeFinished) {
			if e.Offline {
				return true
			}
		}
		return false
	})
	farm.holdRequests()
	started := len(rec.of(EventProbeStarted))
	rec.waitFor(t, time.Minute, "an offline probe in flight", func(r *recorder) bool {
		evs := r.of(EventProbeStarted)
		return len(evs) > started && evs[len(evs)-1].Offline
	})
	db.proxy.Restore()
	// Longer than the claim loop's longest backoff (5s), so that it claims again while the
	// probe is held, and short of the probe's 8s timeout.
	time.Sleep(6500 * time.Millisecond)
	farm.release()
	back := time.Now()
	rec.waitFor(t, time.Minute, "two leased probes after the database came back", func(r *recorder) bool {
		n := 0
		for _, e := range r.of(EventProbeFinished) {
			if !e.Offline && e.at.After(back) {
				n++
			}
		}
		return n >= 2
	})
	w.stop(t)

	slots := map[string]bool{}
	for _, e := range rec.of(EventProbeStarted) {
		key := e.Lease.Due.UTC().Format(time.RFC3339Nano)
		if slots[key] {
			t.Errorf("slot %s probed twice (the second offline %v)", key, e.Offline)
		}
		slots[key] = true
	}
}
