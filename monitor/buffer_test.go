package monitor

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/store"
)

// addAll adds runs and waits until each is durable (written or spooled).
func addAll(t testing.TB, b *Buffer, runs []store.RunRecord) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, len(runs))
	for _, r := range runs {
		wg.Add(1)
		b.Add(r, func(err error) {
			if err != nil {
				errs <- err
			}
			wg.Done()
		})
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("runs not durable within a minute")
	}
	close(errs)
	for err := range errs {
		t.Errorf("run not durable: %v", err)
	}
}

func closeBuffer(t testing.TB, b *Buffer, within time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), within)
	defer cancel()
	if err := b.Close(ctx); err != nil {
		t.Errorf("Close: %v", err)
	}
}

func openBuffer(t testing.TB, w RunWriter, cfg BufferConfig) *Buffer {
	t.Helper()
	if cfg.Linger == 0 {
		cfg.Linger = 5 * time.Millisecond
	}
	if cfg.Database == "" {
		cfg.Database = testIdentity
	}
	b, err := OpenBuffer(w, cfg)
	if err != nil {
		t.Fatal(err)
	}
	go b.Run(context.Background())
	return b
}

// writeLog wraps the real store and records the ids of every batch it was asked to write,
// in order.
type writeLog struct {
	w RunWriter
	// gate, when not nil, holds every write until it is closed.
	gate chan struct{}
	// lostAcks makes that many successful writes report a failure, as a connection dropped
	// between the commit and its answer would.
	lostAcks int

	mu      sync.Mutex
	batches [][]store.RunID
}

func (l *writeLog) WriteRuns(ctx context.Context, runs []store.RunRecord) (int, error) {
	if l.gate != nil {
		select {
		case <-l.gate:
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}
	n, err := l.w.WriteRuns(ctx, runs)
	l.mu.Lock()
	defer l.mu.Unlock()
	if err == nil {
		l.batches = append(l.batches, ids(runs))
		if l.lostAcks > 0 {
			l.lostAcks--
			return 0, errors.New("connection reset by peer (after the commit)")
		}
	}
	return n, err
}

// firstWrites is the order in which runs were first written.
func (l *writeLog) firstWrites() []store.RunID {
	l.mu.Lock()
	defer l.mu.Unlock()
	seen := map[store.RunID]bool{}
	var out []store.RunID
	for _, b := range l.batches {
		for _, id := range b {
			if !seen[id] {
				seen[id] = true
				out = append(out, id)
			}
		}
	}
	return out
}

func spoolFiles(t testing.TB, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.spool"))
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func TestBufferWritesEveryRunOnceInOrder(t *testing.T) {
	t.Parallel()
	db := newTestDB(t)
	log := &writeLog{w: db.direct}
	dir := t.TempDir()
	b := openBuffer(t, log, BufferConfig{Dir: dir, Name: "w1", BatchRuns: 7})
	runs := sampleRuns(40)
	addAll(t, b, runs)
	closeBuffer(t, b, 30*time.Second)

	if got := log.firstWrites(); !slices.Equal(got, ids(runs)) {
		t.Errorf("written in the order %v, want the order added %v", got, ids(runs))
	}
	if total, distinct := countRuns(t, db.direct); total != 40 || distinct != 40 {
		t.Errorf("%d runs stored (%d distinct), want 40", total, distinct)
	}
	if files := spoolFiles(t, dir); len(files) != 0 {
		t.Errorf("an empty buffer left spool files %v", files)
	}
	b.Add(sampleRun(1, time.Now()), func(err error) {
		if !errors.Is(err, ErrBufferClosed) {
			t.Errorf("Add after Close: %v, want ErrBufferClosed", err)
		}
	})
}

func TestBufferSpoolsWhileTheDatabaseIsAwayAndCatchesUp(t *testing.T) {
	t.Parallel()
	db := newTestDB(t)
	st := db.withProxy(t)
	dir := t.TempDir()
	b := openBuffer(t, st, BufferConfig{Dir: dir, Name: "w1"})
	defer closeBuffer(t, b, 30*time.Second)

	before := sampleRuns(10)
	addAll(t, b, before)
	eventually(t, 30*time.Second, "the first runs stored", func() bool { n, _ := countRuns(t, db.direct); return n == 10 })

	db.proxy.Cut()
	during := sampleRuns(30)
	addAll(t, b, during) // durable means spooled while the database is away
	if s := b.Stats(); !s.Away || s.Spooled != 30 || s.Memory != 0 || s.SpoolBytes == 0 {
		t.Fatalf("with the database away: %+v, want all 30 in the spool", s)
	}
	if n, _ := countRuns(t, db.direct); n != 10 {
		t.Fatalf("%d runs stored while the database was away, want still 10", n)
	}

	db.proxy.Restore()
	eventually(t, time.Minute, "the spooled runs stored after the database came back", func() bool {
		n, _ := countRuns(t, db.direct)
		return n == 40
	})
	eventually(t, 10*time.Second, "the spool emptied", func() bool { s := b.Stats(); return s.Spooled == 0 && !s.Away })
	stored := storedIDs(t, db.direct)
	for _, r := range append(before, during...) {
		if stored[r.ID] != 1 {
			t.Errorf("run %s stored %d times, want once", r.ID, stored[r.ID])
		}
	}
	if info, err := os.Stat(spoolPath(dir, "w1", testIdentity)); err != nil || info.Size() != spoolHeaderSize {
		t.Errorf("the drained spool file: %v, %v; want it cut back to its header", info, err)
	}
}

func TestBufferRestartWritesWhatTheSpoolHeld(t *testing.T) {
	t.Parallel()
	db := newTestDB(t)
	st := db.withProxy(t)
	db.proxy.Cut()
	dir := t.TempDir()

	// The first process: the database is away its whole life, and it stops.
	first := openBuffer(t, st, BufferConfig{Dir: dir, Name: "worker-a"})
	runs := sampleRuns(25)
	addAll(t, first, runs[:10])
	if _, err := OpenBuffer(st, BufferConfig{Dir: dir, Name: "worker-a", Database: testIdentity}); !errors.Is(err, ErrSpoolBusy) {
		t.Errorf("a second buffer on a live worker's spool: %v, want ErrSpoolBusy", err)
	}
	addAll(t, first, runs[10:])
	closeBuffer(t, first, 2*time.Second)
	if files := spoolFiles(t, dir); len(files) != 1 {
		t.Fatalf("spool files after a stop with the database away: %v, want worker-a's", files)
	}

	// The next process, under another name, with the database back: it takes the orphaned
	// spool over and writes it.
	db.proxy.Restore()
	log := &writeLog{w: db.direct}
	second := openBuffer(t, log, BufferConfig{Dir: dir, Name: "worker-b"})
	eventually(t, time.Minute, "the orphaned spool written", func() bool { n, _ := countRuns(t, db.direct); return n == 25 })
	closeBuffer(t, second, 30*time.Second)
	if got := log.firstWrites(); !slices.Equal(got, ids(runs)) {
		t.Errorf("written in the order %v, want the order added %v", got, ids(runs))
	}
	if total, distinct := countRuns(t, db.direct); total != 25 || distinct != 25 {
		t.Errorf("%d runs stored (%d distinct), want 25", total, distinct)
	}
	if files := spoolFiles(t, dir); len(files) != 0 {
		t.Errorf("spool files left after everything was written: %v", files)
	}
}

func TestBufferRetriesAWriteWhoseAnswerWasLost(t *testing.T) {
	t.Parallel()
	db := newTestDB(t)
	log := &writeLog{w: db.direct, lostAcks: 3}
	b := openBuffer(t, log, BufferConfig{Dir: t.TempDir(), Name: "w", BatchRuns: 10})
	runs := sampleRuns(30)
	addAll(t, b, runs)
	eventually(t, time.Minute, "all runs written", func() bool { n, _ := countRuns(t, db.direct); return n == 30 })
	closeBuffer(t, b, 30*time.Second)
	if total, distinct := countRuns(t, db.direct); total != 30 || distinct != 30 {
		t.Errorf("%d runs stored (%d distinct), want each of the 30 once", total, distinct)
	}
	log.mu.Lock()
	writes := len(log.batches)
	log.mu.Unlock()
	if writes < 3+3 {
		t.Errorf("%d successful writes, want at least 6 (3 batches, 3 of them written again after a lost answer)", writes)
	}
}

func TestBufferBoundsMemoryAndKeepsOrder(t *testing.T) {
	t.Parallel()
	db := newTestDB(t)
	log := &writeLog{w: db.direct, gate: make(chan struct{})}
	b := openBuffer(t, log, BufferConfig{Dir: t.TempDir(), Name: "w", MaxMemoryRuns: 5, BatchRuns: 3})
	runs := sampleRuns(30)
	var wg sync.WaitGroup
	for _, r := range runs {
		wg.Add(1)
		b.Add(r, func(err error) {
			if err != nil {
				t.Errorf("run %s: %v", r.ID, err)
			}
			wg.Done()
		})
		if s := b.Stats(); s.Memory > 5 {
			t.Fatalf("%d runs in memory, above the bound of 5", s.Memory)
		}
	}
	if s := b.Stats(); s.Spooled < 25-3 {
		t.Errorf("%+v: want the runs beyond memory in the spool", s)
	}
	close(log.gate) // the database answers again
	wg.Wait()
	eventually(t, time.Minute, "all runs written", func() bool { n, _ := countRuns(t, db.direct); return n == 30 })
	closeBuffer(t, b, 30*time.Second)
	if got := log.firstWrites(); !slices.Equal(got, ids(runs)) {
		t.Errorf("written in the order %v, want the order added %v", got, ids(runs))
	}
}

func TestBufferDropsInvalidRunsAndKeepsTheRest(t *testing.T) {
	t.Parallel()
	db := newTestDB(t)
	b := openBuffer(t, db.direct, BufferConfig{Dir: t.TempDir(), Name: "w"})
	runs := sampleRuns(5)
	runs[2].Outcome = "sideways"
	results := make([]error, len(runs))
	var wg sync.WaitGroup
	for i, r := range runs {
		wg.Add(1)
		b.Add(r, func(err error) { results[i] = err; wg.Done() })
	}
	wg.Wait()
	closeBuffer(t, b, 30*time.Second)
	for i, err := range results {
		if (i == 2) != (err != nil) || (err != nil && !errors.Is(err, store.ErrInvalidRun)) {
			t.Errorf("run %d: durable with %v", i, err)
		}
	}
	if total, _ := countRuns(t, db.direct); total != 4 {
		t.Errorf("%d runs stored, want the 4 valid ones", total)
	}
	if s := b.Stats(); s.Dropped != 1 {
		t.Errorf("dropped %d, want 1", s.Dropped)
	}
}

func TestSpoolFileNameReplacesEachRunOfUnsafeCharactersOnce(t *testing.T) {
	for in, want := range map[string]string{
		"worker-1":          "worker-1",
		"eu.west_2":         "eu.west_2",
		"host name/with:al": "host_name_with_al",
		"a  //  b":          "a_b",
		"zürich":            "z_rich",
		"../etc":            ".._etc",
		"":                  "",
	} {
		if got := spoolFileName(in); got != want {
			t.Errorf("spoolFileName(%q) = %q, want %q", in, got, want)
		}
	}
}

func identity(t testing.TB, st *store.Store) string {
	t.Helper()
	id, err := st.Identity(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// Two monitors of one user share the default spool directory, and a worker's name defaults
// to the host's: runs spooled for database A must reach A, never B, where their server ids
// name other servers or none.
func TestBufferLeavesTheSpoolOfAnotherDatabaseAlone(t *testing.T) {
	t.Parallel()
	dbA, dbB := newTestDB(t), newTestDB(t)
	stA := dbA.withProxy(t)
	idA, idB := identity(t, dbA.direct), identity(t, dbB.direct)
	if idA == idB {
		t.Fatalf("two databases, one identity %q", idA)
	}
	dir := t.TempDir()

	dbA.proxy.Cut()
	a := openBuffer(t, stA, BufferConfig{Dir: dir, Name: "worker", Database: idA})
	runsA := sampleRuns(8)
	addAll(t, a, runsA)
	closeBuffer(t, a, 2*time.Second)

	b := openBuffer(t, dbB.direct, BufferConfig{Dir: dir, Name: "worker", Database: idB})
	runB := sampleRun(1, time.Now())
	addAll(t, b, []store.RunRecord{runB})
	eventually(t, 30*time.Second, "B's own run stored", func() bool { n, _ := countRuns(t, dbB.direct); return n >= 1 })
	if s := b.Stats(); s.Foreign != 1 {
		t.Errorf("B's buffer counts %d foreign spool files, want A's", s.Foreign)
	}
	closeBuffer(t, b, 30*time.Second)
	if stored := storedIDs(t, dbB.direct); len(stored) != 1 || stored[runB.ID] != 1 {
		t.Errorf("database B holds %d runs, want its own one only (A's were adopted)", len(stored))
	}

	// A is back; a worker of A under another name takes A's spool over.
	dbA.proxy.Restore()
	a2 := openBuffer(t, dbA.direct, BufferConfig{Dir: dir, Name: "worker-2", Database: idA})
	eventually(t, time.Minute, "A's spooled runs stored in A", func() bool { n, _ := countRuns(t, dbA.direct); return n == len(runsA) })
	closeBuffer(t, a2, 30*time.Second)
	if files := spoolFiles(t, dir); len(files) != 0 {
		t.Errorf("spool files left after A's runs were written: %v", files)
	}
}

// With the database away and the spool full (or its disk), a run waits in memory while
// memory has room, as a failed spill leaves runs there, and is written once the database is
// back; only a run that finds memory full too is dropped.
func TestBufferKeepsRunsInMemoryWhenTheSpoolIsFull(t *testing.T) {
	t.Parallel()
	db := newTestDB(t)
	st := db.withProxy(t)
	db.proxy.Cut()
	b := openBuffer(t, st, BufferConfig{Dir: t.TempDir(), Name: "w", MaxSpoolBytes: spoolHeaderSize + 100, MaxMemoryRuns: 6})
	runs := sampleRuns(7)
	results := make(chan error, len(runs))
	b.Add(runs[0], func(err error) { results <- err })
	eventually(t, 30*time.Second, "the buffer noticing the database away", func() bool { return b.Stats().Away })
	for _, r := range runs[1:] {
		b.Add(r, func(err error) { results <- err })
	}
	if s := b.Stats(); s.Dropped != 1 || s.Memory != 6 || s.Spooled != 0 {
		t.Fatalf("with the spool full: %+v, want 6 runs in memory and the 7th, beyond memory, dropped", s)
	}
	if err := <-results; !errors.Is(err, ErrSpoolFull) {
		t.Fatalf("the run beyond memory: %v, want dropped with ErrSpoolFull", err)
	}
	select {
	case err := <-results:
		t.Fatalf("a run in memory only was reported durable (%v)", err)
	default:
	}
	db.proxy.Restore()
	for range 6 {
		select {
		case err := <-results:
			if err != nil {
				t.Errorf("run kept in memory: %v", err)
			}
		case <-time.After(time.Minute):
			t.Fatal("runs kept in memory not written within a minute of the database's return")
		}
	}
	closeBuffer(t, b, 30*time.Second)
	stored := storedIDs(t, db.direct)
	for _, r := range runs[:6] {
		if stored[r.ID] != 1 {
			t.Errorf("run %s stored %d times, want once", r.ID, stored[r.ID])
		}
	}
}

// One damaged record in a spool left by a crash costs that run only. (Before: recovery cut
// the file at it, and 3 of 10 runs were stored; now 9 of 10.)
func TestBufferWritesTheRunsAfterACorruptSpoolRecord(t *testing.T) {
	t.Parallel()
	db := newTestDB(t)
	id := identity(t, db.direct)
	dir := t.TempDir()
	sp, _, err := openSpool(spoolPath(dir, "w", id), id)
	if err != nil {
		t.Fatal(err)
	}
	runs := sampleRuns(10)
	ends, err := sp.append(runs, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sp.f.WriteAt([]byte("#"), ends[2]+100); err != nil { // inside the 4th record
		t.Fatal(err)
	}
	sp.close()

	b := openBuffer(t, db.direct, BufferConfig{Dir: dir, Name: "w", Database: id})
	eventually(t, time.Minute, "the spool written", func() bool { return b.Stats().Spooled == 0 })
	if s := b.Stats(); s.Corrupt != 1 {
		t.Errorf("%d corrupt records counted, want 1", s.Corrupt)
	}
	closeBuffer(t, b, 30*time.Second)
	stored := storedIDs(t, db.direct)
	t.Logf("runs stored after one corrupt record: %d of %d", len(stored), len(runs))
	for i, r := range runs {
		if want := map[bool]int{true: 0, false: 1}[i == 3]; stored[r.ID] != want {
			t.Errorf("run %d stored %d times, want %d", i, stored[r.ID], want)
		}
	}
}

// A buffer closed before its Run started (a monitor whose start failed after opening it)
// keeps what it was given in the spool, durable, for the next start to write.
func TestBufferClosedBeforeRunSpoolsWhatItHolds(t *testing.T) {
	t.Parallel()
	db := newTestDB(t)
	dir := t.TempDir()
	b, err := OpenBuffer(db.direct, BufferConfig{Dir: dir, Name: "w1", Database: testIdentity})
	if err != nil {
		t.Fatal(err)
	}
	runs := sampleRuns(3)
	durable := make(chan error, len(runs))
	for _, r := range runs {
		b.Add(r, func(err error) { durable <- err })
	}
	closeBuffer(t, b, 5*time.Second)
	for range runs {
		select {
		case err := <-durable:
			if err != nil {
				t.Errorf("a run not made durable by Close: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("Close did not make every run durable")
		}
	}
	if files := spoolFiles(t, dir); len(files) != 1 {
		t.Fatalf("spool files after Close without Run: %v, want one", files)
	}

	next := openBuffer(t, db.direct, BufferConfig{Dir: dir, Name: "w1"})
	eventually(t, time.Minute, "the spooled runs written by the next buffer", func() bool { n, _ := countRuns(t, db.direct); return n == 3 })
	closeBuffer(t, next, 30*time.Second)
}
