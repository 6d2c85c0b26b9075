package monitor

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mcpwatch/mcpwatch/protocol"
	"github.com/mcpwatch/mcpwatch/store"
)

// Several workers on one database probe every due server once per slot, never twice, and
// miss no slot; what they write is stored once and the rollups agree with it.
func TestWorkersShareSlotsOncePerSlot(t *testing.T) {
	t.Parallel()
	for _, workers := range []int{2, 3} {
		t.Run(fmt.Sprintf("%d workers", workers), func(t *testing.T) {
			t.Parallel()
			db := newTestDB(t)
			farm := newFixtureFarm(t, 0)
			const every = 3 * time.Second
			byID := syncServers(t, db.direct, "eu", farm.servers("srv", 12, "@every 3s", 5*time.Second))
			rec := newRecorder()
			var running []*runningWorker
			for i := range workers {
				// A pool each, as separate processes would have.
				running = append(running, startWorker(t, openStore(t, db.URL), WorkerConfig{
					Name: fmt.Sprintf("w%d", i), Concurrency: 4, MaxTimeout: 5 * time.Second, Trace: rec.trace,
				}))
			}
			// Every server through its first slot and three more on its grid.
			rec.waitFor(t, time.Minute, "every server probed 4 times", func(r *recorder) bool {
				counts := r.perServer()
				for id := range byID {
					if counts[id] < 4 {
						return false
					}
				}
				return true
			})
			for _, w := range running {
				w.stop(t)
			}

			finished := rec.of(EventProbeFinished)
			slots := map[string]string{}
			dues := map[int64][]time.Time{}
			byWorker := map[string]int{}
			for _, e := range finished {
				key := fmt.Sprintf("%s@%s", e.Server, e.Lease.Due.UTC().Format(time.RFC3339Nano))
				if other, twice := slots[key]; twice {
					t.Errorf("slot %s probed twice: by %s and %s", key, other, e.Worker)
				}
				slots[key] = e.Worker
				dues[e.ServerID] = append(dues[e.ServerID], e.Lease.Due)
				byWorker[e.Worker]++
			}
			for _, w := range running {
				if byWorker[w.w.cfg.Name] == 0 {
					t.Errorf("worker %s probed nothing; the slots were not shared (%v)", w.w.cfg.Name, byWorker)
				}
			}
			slotsSeen, missed := 0, 0
			for id, ds := range dues {
				slices.SortFunc(ds, time.Time.Compare)
				sched, _ := ParseSchedule("@every 3s", DefaultMaxJitter)
				// The first slot was due when the servers were synced; the next is the first
				// slot of the grid after its probe started, and from then on every slot.
				for i := 1; i < len(ds); i++ {
					name, gap := byID[id].Name, ds[i].Sub(ds[i-1])
					if onGrid := sched.Next(name, ds[i].Add(-every)); !ds[i].Equal(onGrid) {
						t.Errorf("%s: slot due %v is not on the server's grid", name, ds[i].Format("15:04:05.000"))
					}
					slotsSeen++
					switch {
					case gap <= 0 || (i == 1 && gap > 2*every):
						t.Errorf("%s: slots due %v and %v, %v apart (a slot repeated, or the grid not joined)",
							name, ds[i-1].Format("15:04:05.000"), ds[i].Format("15:04:05.000"), gap)
					case i > 1 && gap%every != 0:
						t.Errorf("%s: slots due %v and %v, %v apart, want a multiple of %v",
							name, ds[i-1].Format("15:04:05.000"), ds[i].Format("15:04:05.000"), gap, every)
					case i > 1 && gap > every:
						// A slot whose probe could not start before the next was due is skipped,
						// by design: on a machine busy with other work that can happen, rarely.
						missed += int(gap/every) - 1
					}
				}
			}
			if missed*10 > slotsSeen {
				t.Errorf("%d slots missed of %d: the workers do not keep up", missed, slotsSeen+missed)
			}
			if lost := rec.of(EventLeaseLost); len(lost) > 0 {
				t.Errorf("%d leases lost among healthy workers", len(lost))
			}

			stored := storedIDs(t, db.direct)
			if len(stored) != len(finished) {
				t.Errorf("%d runs stored, %d probes finished", len(stored), len(finished))
			}
			for _, e := range finished {
				if stored[e.Run] != 1 {
					t.Errorf("run %s of %s stored %d times, want once", e.Run, e.Server, stored[e.Run])
				}
			}
			checkRollupsAgree(t, db.direct, byID)
		})
	}
}

// checkRollupsAgree compares each server's hourly rollups with its raw runs.
func checkRollupsAgree(t *testing.T, st *store.Store, byID map[int64]store.Server) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for id, s := range byID {
		var runs, up, degraded, down int64
		if err := st.Pool().QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE outcome = 'up'),
			count(*) FILTER (WHERE outcome = 'degraded'), count(*) FILTER (WHERE outcome = 'down')
			FROM runs WHERE server_id = $1`, id).Scan(&runs, &up, &degraded, &down); err != nil {
			t.Fatal(err)
		}
		sum, err := st.Summary(ctx, store.RollupQuery{ServerID: id, From: time.Now().Add(-24 * time.Hour), To: time.Now().Add(24 * time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		if sum.Runs != runs || sum.Up != up || sum.Degraded != degraded || sum.Down != down {
			t.Errorf("%s: rollups say %d runs (%d up, %d degraded, %d down), raw runs %d (%d, %d, %d)",
				s.Name, sum.Runs, sum.Up, sum.Degraded, sum.Down, runs, up, degraded, down)
		}
	}
}

// A worker killed mid-probe completes nothing; another worker takes its slots over once the
// leases expire, probing each slot once.
func TestKilledWorkersSlotsAreTakenOverWithinTheLease(t *testing.T) {
	t.Parallel()
	db := newTestDB(t)
	farm := newFixtureFarm(t, 0)
	// Slots weeks apart: the taken-over first slots are probed, never put off to a later one.
	byID := syncServers(t, db.direct, "eu", farm.servers("srv", 3, "@every 30d", 2*time.Second))
	farm.holdRequests() // every probe hangs until released: the worker dies mid-probe

	rec := newRecorder()
	cfg := WorkerConfig{Name: "doomed", Concurrency: 5, MaxTimeout: 2 * time.Second, LeaseMargin: time.Second, Trace: rec.trace}
	doomed := startWorker(t, openStore(t, db.URL), cfg)
	rec.waitFor(t, 30*time.Second, "the doomed worker probing all three", func(r *recorder) bool { return len(r.of(EventProbeStarted)) == 3 })
	claims := map[int64]store.Lease{}
	for _, e := range rec.of(EventProbeStarted) {
		claims[e.ServerID] = e.Lease
	}
	doomed.kill(t)
	killedAt := time.Now()
	farm.release()
	if n := len(rec.of(EventAbandoned)); n != 3 {
		t.Errorf("%d probes abandoned by the kill, want 3", n)
	}

	cfg.Name = "heir"
	heir := startWorker(t, openStore(t, db.URL), cfg)
	rec.waitFor(t, 30*time.Second, "the heir finishing all three", func(r *recorder) bool {
		n := 0
		for _, e := range r.of(EventProbeFinished) {
			if e.Worker == "heir" {
				n++
			}
		}
		return n == 3
	})
	heir.stop(t)

	for _, e := range rec.of(EventProbeStarted) {
		if e.Worker != "heir" {
			continue
		}
		old := claims[e.ServerID]
		switch {
		case !e.Lease.Due.Equal(old.Due):
			t.Errorf("%s: the heir probed the slot due %v, want the doomed worker's slot %v", e.Server, e.Lease.Due, old.Due)
		case e.Lease.Seq <= old.Seq:
			t.Errorf("%s: the heir's claim %d is not after the doomed one %d", e.Server, e.Lease.Seq, old.Seq)
		case e.at.Before(old.Until.Add(-50 * time.Millisecond)):
			t.Errorf("%s: taken over at %v, before the lease ran out at %v", e.Server, e.at.Format("15:04:05.000"), old.Until.Format("15:04:05.000"))
		case e.at.After(old.Until.Add(3 * time.Second)):
			t.Errorf("%s: taken over %v after the lease ran out, want within 3s", e.Server, e.at.Sub(old.Until))
		}
	}
	t.Logf("killed at %v; leases of %v ran out; taken over", killedAt.Format("15:04:05.000"), 3*time.Second)

	runs := storedIDs(t, db.direct)
	if len(runs) != 3 {
		t.Errorf("%d runs stored, want 3 (the heir's; the doomed worker wrote nothing)", len(runs))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for id := range byID {
		got, err := db.direct.Runs(ctx, store.RunQuery{ServerID: id})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 || got[0].Worker != "heir" {
			t.Errorf("server %d: runs %+v, want one by the heir", id, got)
		}
	}
}

// hostileServers serves two servers that try to hold a worker: one accepts connections and
// never answers, one floods every answer with an endless event stream.
func hostileServers(t *testing.T) (silent, flood string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	held := make(chan net.Conn, 1000)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { _, _ = io.Copy(io.Discard, c) }() // read everything, answer nothing
			held <- c
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		close(held)
		for c := range held {
			c.Close()
		}
	})
	note := []byte("data: " + `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"` + strings.Repeat("x", 200) + `"}}` + "\n\n")
	fl := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		for r.Context().Err() == nil {
			if _, err := w.Write(note); err != nil {
				return
			}
		}
	}))
	t.Cleanup(fl.Close)
	return "http://" + ln.Addr().String() + "/mcp", fl.URL + "/mcp"
}

// Hostile servers cost a slot each for their timeout; the others keep their schedule.
func TestHostileServersDoNotDelayTheOthers(t *testing.T) {
	t.Parallel()
	db := newTestDB(t)
	farm := newFixtureFarm(t, 0)
	silent, flood := hostileServers(t)
	// Every 2s: often enough that a slot held by a hostile server's 5s timeout would show,
	// seldom enough that a machine busy with other tests does not make the good ones late.
	const goodEvery = 2 * time.Second
	servers := farm.servers("good", 6, "@every 2s", 5*time.Second)
	servers = append(servers,
		store.Server{Name: "hostile-silent", Source: store.SourceConfig, Transport: protocol.TransportHTTP, URL: silent, Schedule: "@every 2s", Timeout: 5 * time.Second, Enabled: true},
		store.Server{Name: "hostile-flood", Source: store.SourceConfig, Transport: protocol.TransportHTTP, URL: flood, Schedule: "@every 2s", Timeout: 5 * time.Second, Enabled: true},
	)
	byID := syncServers(t, db.direct, "eu", servers)
	rec := newRecorder()
	w := startWorker(t, openStore(t, db.URL), WorkerConfig{Name: "w", Concurrency: 8, MaxTimeout: 5 * time.Second, Trace: rec.trace})
	start := time.Now()
	const window = 9 * time.Second
	rec.waitFor(t, time.Minute, "the hostile servers probed and the window over", func(r *recorder) bool {
		n := map[string]int{}
		for _, e := range r.of(EventProbeFinished) {
			n[e.Server]++
		}
		return n["hostile-silent"] >= 1 && n["hostile-flood"] >= 2 && time.Since(start) > window
	})
	w.stop(t)

	good := map[string]int{}
	var lags []time.Duration
	for _, e := range rec.of(EventProbeStarted) {
		if strings.HasPrefix(e.Server, "good-") {
			lags = append(lags, e.Lag)
		}
	}
	slices.Sort(lags)
	median, worst := lags[len(lags)/2], lags[len(lags)-1]
	for _, e := range rec.of(EventProbeFinished) {
		switch {
		case strings.HasPrefix(e.Server, "good-"):
			good[e.Server]++
			if e.Outcome != store.OutcomeUp {
				t.Errorf("%s: %s, want up", e.Server, e.Outcome)
			}
		case e.Outcome != store.OutcomeDown:
			t.Errorf("%s: %s, want down", e.Server, e.Outcome)
		}
	}
	// The silent server holds a slot for its whole 5s timeout, every probe; were the hostile
	// servers delaying the others, the good servers' lag would reach that.
	if worst > 3*time.Second || median > time.Second {
		t.Errorf("the good servers' scheduling lag: median %v, worst %v; want under 1s and 3s", median, worst)
	}
	elapsed := time.Since(start)
	for id, s := range byID {
		if !strings.HasPrefix(s.Name, "good-") {
			continue
		}
		if want := int(elapsed/goodEvery) - 2; good[s.Name] < want {
			t.Errorf("%s (%d) probed %d times in %v, want at least %d (every %v)", s.Name, id, good[s.Name], elapsed.Round(time.Second), want, goodEvery)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for id, s := range byID {
		if strings.HasPrefix(s.Name, "hostile-") {
			runs, err := db.direct.Runs(ctx, store.RunQuery{ServerID: id})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range runs {
				if r.Duration > 6*time.Second {
					t.Errorf("%s: a probe took %v, beyond its 5s timeout", s.Name, r.Duration)
				}
			}
		}
	}
	t.Logf("good servers' lag: median %v, worst %v; probes of each good server: %v", median, worst, good)
}

// Servers added all at once are not all probed at once: those the worker reaches late are
// moved to their own slots, spread over the interval, and probed there, once each.
func TestABurstOfNewServersIsSpreadOverTheInterval(t *testing.T) {
	t.Parallel()
	db := newTestDB(t)
	farm := newFixtureFarm(t, 20*time.Millisecond) // slow enough that the worker falls behind
	const every = 6 * time.Second
	byID := syncServers(t, db.direct, "eu", farm.servers("srv", 40, "@every 6s", 5*time.Second))
	rec := newRecorder()
	w := startWorker(t, openStore(t, db.URL), WorkerConfig{Name: "w", Concurrency: 4, MaxTimeout: 5 * time.Second, Trace: rec.trace})
	rec.waitFor(t, time.Minute, "every server probed once", func(r *recorder) bool { return len(r.perServer()) == len(byID) })
	w.stop(t)

	deferred := map[int64]time.Time{}
	for _, e := range rec.of(EventDeferred) {
		deferred[e.ServerID] = e.Lease.Due
	}
	if len(deferred) == 0 {
		t.Fatal("no slot was put off: the burst was probed as it came")
	}
	sched, _ := ParseSchedule("@every 6s", DefaultMaxJitter)
	first := map[int64]timedEvent{}
	for _, e := range rec.of(EventProbeStarted) {
		if _, seen := first[e.ServerID]; !seen {
			first[e.ServerID] = e
		}
	}
	for id, slot := range deferred {
		name := byID[id].Name
		if !sched.Next(name, slot.Add(-every)).Equal(slot) {
			t.Errorf("%s was put off to %v, which is not a slot of its grid", name, slot)
		}
		e, ok := first[id]
		switch {
		case !ok:
			t.Errorf("%s was put off and never probed", name)
		case !e.Lease.Due.Equal(slot):
			t.Errorf("%s: first probed in the slot due %v, want the slot it was put off to, %v", name, e.Lease.Due, slot)
		case e.at.Before(slot.Add(-50 * time.Millisecond)):
			t.Errorf("%s: probed at %v, before its slot %v", name, e.at, slot)
		}
	}
	t.Logf("%d of %d new servers put off to their own slots", len(deferred), len(byID))
}

// TestWorkerKeepsTheTranscriptOfAChangeOfOutcomeOnly runs a worker with the default policy
// against one conformant server: its first run keeps its transcript (no outcome before it),
// the passing runs after it keep none.
func TestWorkerKeepsTheTranscriptOfAChangeOfOutcomeOnly(t *testing.T) {
	t.Parallel()
	db := newTestDB(t)
	farm := newFixtureFarm(t, 0)
	syncServers(t, db.direct, "eu", farm.servers("srv", 1, "@every 1s", 5*time.Second))
	rec := newRecorder()
	w := startWorkerKeeping(t, openStore(t, db.URL), WorkerConfig{Name: "w", Concurrency: 2, MaxTimeout: 5 * time.Second, Trace: rec.trace},
		TranscriptsChanges)
	rec.waitFor(t, time.Minute, "three runs", func(r *recorder) bool { return len(r.of(EventProbeFinished)) >= 3 })
	w.stop(t)
	rows, err := db.direct.Pool().Query(t.Context(), `SELECT outcome, transcript_key IS NOT NULL FROM runs ORDER BY started_at`)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	var outcome string
	var kept bool
	if _, err := pgx.ForEachRow(rows, []any{&outcome, &kept}, func() error {
		got = append(got, fmt.Sprintf("%s kept=%v", outcome, kept))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(got) < 3 || got[0] != "up kept=true" || slices.ContainsFunc(got[1:], func(s string) bool { return s != "up kept=false" }) {
		t.Errorf("runs %v, want the first up and kept, the others up and not kept", got)
	}
}
