package monitor

import (
	"context"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/alert"
	"github.com/mcpwatch/mcpwatch/store"
)

// EnvPGRestart gates the test that stops and starts the machine's real Postgres cluster: it
// disturbs every other test using that Postgres, so CI runs it alone, after the others.
const EnvPGRestart = "MCPWATCH_TEST_PG_RESTART"

// outage is a way for the database to go away and come back.
type outage struct {
	down, up func(t *testing.T)
}

// runThroughOutage runs 100 probes (100 servers due once: their next slot is weeks away)
// with one worker on st, takes the
// database away after 30 have finished, brings it back a while later, and checks that every
// result reaches the database exactly once.
func runThroughOutage(t *testing.T, db testDB, st *store.Store, o outage) {
	farm := newFixtureFarm(t, 5*time.Millisecond) // each probe takes some 100ms: many in flight at the cut
	byID := syncServers(t, db.direct, "eu", farm.servers("srv", 100, "@every 30d", 5*time.Second))
	rec := newRecorder()
	// The alert engine, on the same database, goes away with it: judging must neither lose
	// nor delay a run.
	engine, err := alert.NewEngine(st, &alert.Config{}, alert.EngineOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// A claim cut off mid-answer may have been committed: its slots come back when the lease
	// (5s + 5s) expires, which bounds how long this test takes.
	w := startWorker(t, st, WorkerConfig{Name: "w", Concurrency: 10, MaxTimeout: 5 * time.Second, LeaseMargin: 5 * time.Second,
		Alerts: engine, Trace: rec.trace})

	rec.waitFor(t, time.Minute, "30 probes finished", func(r *recorder) bool { return len(r.of(EventProbeFinished)) >= 30 })
	o.down(t)
	wentAway := false
	for range 100 { // the probes in flight finish while the database is away
		if s := w.buf.Stats(); s.Away && s.Spooled > 0 {
			wentAway = true
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !wentAway {
		t.Errorf("no run was spooled while the database was away: %+v", w.buf.Stats())
	}
	time.Sleep(time.Second) // away a while: claims and completions fail and back off
	o.up(t)

	rec.waitFor(t, 2*time.Minute, "all 100 probes finished", func(r *recorder) bool { return len(r.of(EventProbeFinished)) >= 100 })
	eventually(t, time.Minute, "the spool drained", func() bool { s := w.buf.Stats(); return s.Spooled == 0 && s.Memory == 0 })
	w.stop(t)

	stored := storedIDs(t, db.direct)
	finished := rec.of(EventProbeFinished)
	slots := map[string]bool{}
	for _, e := range finished {
		key := e.Server + "@" + e.Lease.Due.String()
		if slots[key] {
			t.Errorf("slot %s probed twice", key)
		}
		slots[key] = true
	}
	if len(finished) != 100 || len(stored) != 100 {
		t.Errorf("%d probes finished, %d runs stored; want 100 of each", len(finished), len(stored))
	}
	for _, e := range finished {
		if stored[e.Run] != 1 {
			t.Errorf("run %s of %s stored %d times, want once", e.Run, e.Server, stored[e.Run])
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var servers, runs int
	if err := db.direct.Pool().QueryRow(ctx, `SELECT count(DISTINCT server_id), count(*) FROM runs`).Scan(&servers, &runs); err != nil {
		t.Fatal(err)
	}
	if servers != 100 || runs != 100 {
		t.Errorf("%d runs of %d servers stored, want each of the 100 servers once", runs, servers)
	}
	checkRollupsAgree(t, db.direct, byID)
}

// The normal suite's outage: a proxy in front of Postgres is cut and restored, so that only
// this test loses its database.
func TestNothingIsLostWhenTheDatabaseGoesAway(t *testing.T) {
	t.Parallel()
	db := newTestDB(t)
	st := db.withProxy(t)
	runThroughOutage(t, db, st, outage{
		down: func(*testing.T) { db.proxy.Cut() },
		up:   func(*testing.T) { db.proxy.Restore() },
	})
}

// The real thing: the Postgres cluster that serves the test database is stopped and started
// (pg_ctlcluster, Debian's postgresql-common). Run it alone:
//
//	MCPWATCH_TEST_PG_RESTART=1 go test -run TestNothingIsLostWhenPostgresRestarts ./monitor/
func TestNothingIsLostWhenPostgresRestarts(t *testing.T) {
	if os.Getenv(EnvPGRestart) != "1" {
		t.Skipf("set %s=1 to stop and start the machine's Postgres (it disturbs every other test using it)", EnvPGRestart)
	}
	db := newTestDB(t)
	version, cluster := clusterOf(t, db.URL)
	st := openStore(t, db.URL)
	stopped := false
	t.Cleanup(func() {
		if stopped {
			pgctl(t, version, cluster, "start")
		}
	})
	runThroughOutage(t, db, st, outage{
		down: func(t *testing.T) {
			pgctl(t, version, cluster, "stop")
			stopped = true
		},
		up: func(t *testing.T) {
			pgctl(t, version, cluster, "start")
			stopped = false
			waitForPostgres(t, db.URL)
		},
	})
}

// clusterOf finds the version and name of the local cluster listening on the port of url.
func clusterOf(t *testing.T, raw string) (version, name string) {
	t.Helper()
	port := "5432"
	if u, err := url.Parse(raw); err == nil && u.Port() != "" {
		port = u.Port()
	}
	out, err := exec.Command("pg_lsclusters", "--no-header").Output()
	if err != nil {
		t.Fatalf("pg_lsclusters: %v (the restart test needs Debian's postgresql-common)", err)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if f := strings.Fields(line); len(f) >= 3 && f[2] == port {
			return f[0], f[1]
		}
	}
	t.Fatalf("no local cluster on port %s in:\n%s", port, out)
	return "", ""
}

func pgctl(t *testing.T, version, cluster, action string) {
	t.Helper()
	cmd := exec.Command("pg_ctlcluster", "--skip-systemctl-redirect", version, cluster, action)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("pg_ctlcluster %s %s %s: %v\n%s", version, cluster, action, err, out)
	}
}

func waitForPostgres(t *testing.T, url string) {
	t.Helper()
	eventually(t, time.Minute, "Postgres answering again", func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		st, err := store.Open(ctx, url)
		if err != nil {
			return false
		}
		st.Close()
		return true
	})
}
