package monitor

import (
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/mcpwatch/mcpwatch/store"
)

// RunWriter stores runs; *store.Store is one. A write of runs whose ids are stored already
// must store nothing again: the buffer retries batches whose outcome it does not know.
type RunWriter interface {
	WriteRuns(ctx context.Context, runs []store.RunRecord) (int, error)
}

var _ RunWriter = (*store.Store)(nil)

// ErrBufferClosed is given to the durability callback of a run added after Close.
var ErrBufferClosed = errors.New("monitor: buffer closed")

// BufferConfig shapes a Buffer. Zero fields take defaults.
type BufferConfig struct {
	// Dir holds the spool files (created if missing).
	Dir string
	// Name names this buffer's spool file (the worker's name; it is made file-safe).
	Name string
	// Database is the identity of the database the runs are written to (store.Identity).
	// The spool file records it; spool files of other databases in Dir are left alone.
	Database string
	// MaxMemoryRuns and MaxMemoryBytes bound the runs held in memory; beyond them the runs
	// go to the spool. Defaults 1,000 runs, 64 MiB.
	MaxMemoryRuns  int
	MaxMemoryBytes int64
	// MaxSpoolBytes bounds the spool file; beyond it new runs are dropped (and counted).
	// Default 1 GiB.
	MaxSpoolBytes int64
	// BatchRuns and BatchBytes bound one write; defaults 500 runs, 32 MiB.
	BatchRuns  int
	BatchBytes int64
	// Linger is how long the writer waits for a batch to fill before writing a small one;
	// default 100ms.
	Linger time.Duration
	// WriteTimeout bounds one write to the database; default 30s.
	WriteTimeout time.Duration
	Logger       *slog.Logger
	Metrics      *Metrics
}

func (c BufferConfig) withDefaults() BufferConfig {
	if c.MaxMemoryRuns <= 0 {
		c.MaxMemoryRuns = 1000
	}
	if c.MaxMemoryBytes <= 0 {
		c.MaxMemoryBytes = 64 << 20
	}
	if c.MaxSpoolBytes <= 0 {
		c.MaxSpoolBytes = DefaultSpoolMaxBytes
	}
	if c.BatchRuns <= 0 {
		c.BatchRuns = 500
	}
	if c.BatchBytes <= 0 {
		c.BatchBytes = 32 << 20
	}
	if c.Linger <= 0 {
		c.Linger = 100 * time.Millisecond
	}
	if c.WriteTimeout <= 0 {
		c.WriteTimeout = 30 * time.Second
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return c
}

// Buffer stands between the probes and the database. Runs are written in batches, in the
// order they were added, each exactly once. While writes succeed the runs wait in memory
// (bounded); when a write fails (the database is away) every waiting run goes to a spool file
// on disk, and so does every run added until a write succeeds again; the spool is written
// first, oldest first, when the database is back. A spool that cannot take a run (full, or
// its disk) leaves it in memory, within the same bounds. A buffer opened on a directory takes
// over the spool files of its database that no live process holds: runs spooled before a
// restart or by a worker that died are written too.
//
// A run is durable once it is in the database or synced to the spool; Add says when, so that
// a worker can complete its lease only then: a run it was leased for is never lost with the
// process.
type Buffer struct {
	w   RunWriter
	cfg BufferConfig
	log *slog.Logger

	mu       sync.Mutex
	mem      []pendingRun // newer than everything in the spool
	memBytes int64
	spool    *spool
	away     bool // the last write failed: runs go straight to the spool (or memory, see memOnly)
	closed   bool
	running  bool // Run has started: Close waits for it
	inflight batchToken
	dropped  int64
	corrupt  int64
	foreign  int  // spool files of other databases left in the directory
	memOnly  bool // the spool failed while the database was away: runs wait in memory

	wake    chan struct{}
	quit    chan struct{}
	stopped chan struct{}
	cancel  context.CancelFunc // of Run's writes: called when Close gives up waiting
}

type pendingRun struct {
	rec     store.RunRecord
	size    int64
	durable func(error)
}

// batchToken says which runs the writer is writing: the first n of the spool (up to end) or
// the first n of memory.
type batchToken struct {
	active    bool
	fromSpool bool
	n         int
	end       int64
}

// BufferStats is what a buffer holds.
type BufferStats struct {
	Memory     int
	Spooled    int
	SpoolBytes int64
	Dropped    int64
	// Corrupt counts the damaged records skipped in spool files.
	Corrupt int64
	// Foreign counts the spool files of other databases found in the directory and left there.
	Foreign int
	// Away is true while the database does not take writes.
	Away bool
}

// OpenBuffer opens the spool in cfg.Dir and takes over orphaned spool files there. Run writes
// what it holds to w; Close ends Run and keeps what is left in the spool.
func OpenBuffer(w RunWriter, cfg BufferConfig) (*Buffer, error) {
	cfg = cfg.withDefaults()
	if cfg.Dir == "" || cfg.Name == "" || cfg.Database == "" {
		return nil, errors.New("monitor: buffer needs a spool directory, a name and the database's identity")
	}
	if err := os.MkdirAll(cfg.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("monitor: spool directory: %w", err)
	}
	own := spoolPath(cfg.Dir, cfg.Name, cfg.Database)
	sp, found, err := openSpool(own, cfg.Database)
	if err != nil {
		return nil, fmt.Errorf("monitor: %w", err)
	}
	b := &Buffer{
		w: w, cfg: cfg, log: cfg.Logger, spool: sp,
		wake: make(chan struct{}, 1), quit: make(chan struct{}), stopped: make(chan struct{}),
	}
	b.recovered(own, found)
	if err := b.adoptOrphans(own); err != nil {
		sp.close()
		return nil, err
	}
	if sp.count > 0 {
		b.log.Info("spool: runs from before are waiting to be written", "runs", sp.count, "bytes", sp.size())
	}
	b.report()
	return b, nil
}

// adoptOrphans moves the runs of spool files no live process holds into this buffer's spool.
func (b *Buffer) adoptOrphans(own string) error {
	paths, err := filepath.Glob(filepath.Join(b.cfg.Dir, "*.spool"))
	if err != nil {
		return fmt.Errorf("monitor: list spool files: %w", err)
	}
	for _, path := range paths {
		if path == own {
			continue
		}
		err := spoolBelongsTo(path, b.cfg.Database)
		var orphan *spool
		var found spoolRecovery
		if err == nil {
			orphan, found, err = openSpool(path, b.cfg.Database)
		}
		if errors.Is(err, ErrSpoolBusy) {
			continue // a live worker's
		}
		if errors.Is(err, ErrSpoolForeign) {
			// Its runs name servers by ids of another database: written here they would be
			// misfiled under servers that do not exist, or worse, under other servers.
			b.foreign++
			b.log.Warn("spool: left alone a spool file of another database", "file", path, "err", err)
			continue
		}
		if err != nil {
			b.log.Warn("spool: cannot take over a spool file", "file", path, "err", err)
			continue
		}
		b.recovered(path, found)
		moved := 0
		for orphan.count > 0 {
			recs, n, end, err := orphan.read(b.cfg.BatchRuns, b.cfg.BatchBytes)
			b.recovered(path, spoolRecovery{corrupt: orphan.takeDamaged()})
			if err == nil {
				_, err = b.spool.append(recs, 0) // taken over whatever the limit: they exist already
			}
			if err == nil {
				err = orphan.consume(n, end)
			}
			if err != nil {
				orphan.close()
				return fmt.Errorf("monitor: take over spool %s: %w", path, err)
			}
			moved += len(recs)
		}
		if err := orphan.remove(); err != nil {
			b.log.Warn("spool: remove a spool file taken over", "file", path, "err", err)
		}
		b.log.Info("spool: took over runs of a worker that is gone", "file", path, "runs", moved)
	}
	return nil
}

// recovered reports what opening a spool file found wrong.
func (b *Buffer) recovered(path string, found spoolRecovery) {
	if found.torn > 0 {
		b.log.Warn("spool: cut off a torn record left by a crash", "file", path, "bytes", found.torn)
	}
	for _, c := range found.corrupt {
		b.corrupt++
		b.cfg.Metrics.spoolCorruptRecord()
		b.log.Error("spool: skipped a corrupt record; the records after it are kept", "file", path, "offset", c.off, "bytes", c.bytes)
	}
}

// spoolPath is the spool file of a worker for a database: two monitors of the same name
// writing to two databases never share a file.
func spoolPath(dir, name, database string) string {
	sum := crc32.ChecksumIEEE([]byte(database))
	return filepath.Join(dir, fmt.Sprintf("%s.%08x.spool", strings.Trim(spoolFileName(name), "."), sum))
}

// runSize estimates the memory a run holds.
func runSize(r *store.RunRecord) int64 {
	n := int64(512 + len(r.Transcript) + len(r.Error) + 96*len(r.Steps))
	for _, f := range r.Findings {
		n += int64(64 + len(f.Message))
	}
	return n
}

// Add queues a run. durable, if not nil, is called once the run is in the database or synced
// to the spool, with nil; or with an error when the run was dropped (the spool is full, or the
// buffer closed). It is never called under the buffer's lock.
func (b *Buffer) Add(rec store.RunRecord, durable func(error)) {
	if durable == nil {
		durable = func(error) {}
	}
	var calls []func()
	b.mu.Lock()
	switch {
	case b.closed:
		calls = append(calls, func() { durable(ErrBufferClosed) })
	case b.away:
		// On disk at once, behind what memory holds (the spool's runs are written first).
		spilled, err := b.spillLocked()
		calls = append(calls, spilled...)
		if err == nil {
			_, err = b.spool.append([]store.RunRecord{rec}, b.cfg.MaxSpoolBytes)
		}
		if err == nil {
			if b.memOnly {
				b.memOnly = false
				b.log.Info("spool: takes runs again")
			}
			calls = append(calls, func() { durable(nil) })
			break
		}
		// The spool is full or failing: memory keeps the run while it has room, as a
		// spill that fails does; the run is durable once written.
		size := runSize(&rec)
		if len(b.mem) >= b.cfg.MaxMemoryRuns || b.memBytes+size > b.cfg.MaxMemoryBytes {
			b.dropLocked(rec, fmt.Errorf("memory is full too: %w", err))
			calls = append(calls, func() { durable(err) })
			break
		}
		if !b.memOnly {
			b.memOnly = true
			b.log.Error("spool: cannot write; runs wait in memory until the database or the spool takes them", "err", err, "memory_runs", b.cfg.MaxMemoryRuns, "memory_bytes", b.cfg.MaxMemoryBytes)
		}
		b.mem = append(b.mem, pendingRun{rec: rec, size: size, durable: durable})
		b.memBytes += size
	default:
		size := runSize(&rec)
		if len(b.mem) >= b.cfg.MaxMemoryRuns || b.memBytes+size > b.cfg.MaxMemoryBytes {
			spilled, err := b.spillLocked()
			calls = append(calls, spilled...)
			if err != nil {
				b.dropLocked(rec, err)
				calls = append(calls, func() { durable(err) })
				break
			}
		}
		b.mem = append(b.mem, pendingRun{rec: rec, size: size, durable: durable})
		b.memBytes += size
	}
	b.report()
	b.mu.Unlock()
	select {
	case b.wake <- struct{}{}:
	default:
	}
	for _, call := range calls {
		call()
	}
}

func (b *Buffer) dropLocked(rec store.RunRecord, err error) {
	b.dropped++
	b.cfg.Metrics.runDropped()
	b.log.Error("buffer: run dropped", "run", rec.ID.String(), "server", rec.ServerID, "err", err)
}

// spillLocked moves every run in memory to the spool, oldest first, and returns the calls
// that tell their adders they are durable. A batch being written from memory is written
// from the spool from then on: it is the spool's first runs now.
func (b *Buffer) spillLocked() ([]func(), error) {
	if len(b.mem) == 0 {
		return nil, nil
	}
	recs := make([]store.RunRecord, len(b.mem))
	for i := range b.mem {
		recs[i] = b.mem[i].rec
	}
	ends, err := b.spool.append(recs, b.cfg.MaxSpoolBytes)
	if err != nil {
		return nil, err
	}
	if b.inflight.active && !b.inflight.fromSpool {
		b.inflight = batchToken{active: true, fromSpool: true, n: b.inflight.n, end: ends[b.inflight.n-1]}
	}
	calls := make([]func(), 0, len(b.mem))
	for _, p := range b.mem {
		calls = append(calls, func() { p.durable(nil) })
	}
	b.mem, b.memBytes = nil, 0
	return calls, nil
}

// Stats says what the buffer holds.
func (b *Buffer) Stats() BufferStats {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.statsLocked()
}

func (b *Buffer) statsLocked() BufferStats {
	return BufferStats{Memory: len(b.mem), Spooled: b.spool.count, SpoolBytes: b.spool.size() - spoolHeaderSize, Dropped: b.dropped, Corrupt: b.corrupt, Foreign: b.foreign, Away: b.away}
}

func (b *Buffer) report() { b.cfg.Metrics.bufferDepth(b.statsLocked()) }

// Run writes batches to the database until Close is called, then returns. Cancelling ctx
// abandons the write under way and stops writing: what is queued stays for Close to spool.
// Call it once; Close after Run never started only closes the spool.
func (b *Buffer) Run(ctx context.Context) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	b.mu.Lock()
	if b.closed || b.running {
		b.mu.Unlock()
		return
	}
	b.running, b.cancel = true, cancel
	b.mu.Unlock()
	defer close(b.stopped)
	b.write(ctx)
}

// write writes batches until Close.
func (b *Buffer) write(runCtx context.Context) {
	var batch []store.RunRecord
	dropped := map[store.RunID]error{} // runs of the batch the store refused
	backoff := time.Duration(0)
	var failingSince time.Time
	for {
		if batch == nil {
			if !b.waitForRuns() {
				return
			}
			batch = b.peek()
			if batch == nil {
				continue
			}
		}
		ctx, cancel := context.WithTimeout(runCtx, b.cfg.WriteTimeout)
		started := time.Now()
		n, err := b.w.WriteRuns(ctx, batch)
		cancel()
		switch {
		case err == nil:
			b.cfg.Metrics.runsWritten(n, len(batch)-n, time.Since(started))
			if !failingSince.IsZero() {
				b.log.Info("buffer: the database takes writes again", "after", time.Since(failingSince).Round(time.Millisecond))
				failingSince = time.Time{}
			}
			b.commit(false, dropped)
			batch, backoff = nil, 0
			clear(dropped)
		case errors.Is(err, store.ErrInvalidRun):
			// Such a run fails every retry: drop it, keep the others.
			batch = b.dropInvalid(batch, dropped)
			if len(batch) == 0 {
				b.commit(true, dropped)
				batch = nil
				clear(dropped)
			}
		default:
			b.cfg.Metrics.writeFailed()
			if failingSince.IsZero() || backoff >= maxWriteBackoff {
				b.log.Warn("buffer: cannot write runs; they wait in the spool", "runs", len(batch), "err", err)
			}
			if failingSince.IsZero() {
				failingSince = time.Now()
			}
			b.goAway()
			if b.closing() || runCtx.Err() != nil {
				return // Close keeps what is left on disk
			}
			backoff = min(max(2*backoff, 100*time.Millisecond), maxWriteBackoff)
			select {
			case <-time.After(backoff):
			case <-b.quit:
			}
		}
	}
}

const maxWriteBackoff = 5 * time.Second

func (b *Buffer) closing() bool {
	select {
	case <-b.quit:
		return true
	default:
		return false
	}
}

// waitForRuns waits until runs are queued (lingering a little so that a batch can fill); it
// returns false when the buffer is closing and nothing is left.
func (b *Buffer) waitForRuns() bool {
	for {
		b.mu.Lock()
		queued, spooled := len(b.mem)+b.spool.count, b.spool.count > 0
		b.mu.Unlock()
		if queued > 0 {
			if !spooled && queued < b.cfg.BatchRuns && !b.closing() {
				select {
				case <-time.After(b.cfg.Linger):
				case <-b.quit:
				}
			}
			return true
		}
		if b.closing() {
			return false
		}
		select {
		case <-b.wake:
		case <-b.quit:
		}
	}
}

// peek takes the next batch, oldest runs first: from the spool while it has any, from
// memory after.
func (b *Buffer) peek() []store.RunRecord {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.spool.count > 0 {
		recs, n, end, err := b.spool.read(b.cfg.BatchRuns, b.cfg.BatchBytes)
		b.recovered(b.spool.path, spoolRecovery{corrupt: b.spool.takeDamaged()})
		if err != nil {
			// The file went bad under us; what cannot be read cannot be written.
			b.log.Error("spool: unreadable; dropping its runs", "err", err, "runs", b.spool.count)
			b.dropped += int64(b.spool.count)
			_ = b.spool.reset()
			b.report()
			return nil
		}
		b.inflight = batchToken{active: true, fromSpool: true, n: n, end: end}
		if len(recs) == 0 {
			b.commitLocked(nil)
			return nil
		}
		return recs
	}
	var size int64
	n := 0
	for n < len(b.mem) && n < b.cfg.BatchRuns && (n == 0 || size+b.mem[n].size <= b.cfg.BatchBytes) {
		size += b.mem[n].size
		n++
	}
	if n == 0 {
		return nil
	}
	recs := make([]store.RunRecord, n)
	for i := range n {
		recs[i] = b.mem[i].rec
	}
	b.inflight = batchToken{active: true, n: n}
	return recs
}

// commit removes the batch just written; the database took it, so the buffer is no longer
// away (unless only invalid runs were dropped, which says nothing about the database).
func (b *Buffer) commit(dropOnly bool, dropped map[store.RunID]error) {
	b.mu.Lock()
	if !dropOnly {
		b.away = false
	}
	calls := b.commitLocked(dropped)
	b.report()
	b.mu.Unlock()
	for _, call := range calls {
		call()
	}
}

func (b *Buffer) commitLocked(dropped map[store.RunID]error) []func() {
	t := b.inflight
	b.inflight = batchToken{}
	if !t.active {
		return nil
	}
	if t.fromSpool {
		if err := b.spool.consume(t.n, t.end); err != nil {
			b.log.Warn("spool: cannot record progress; runs may be written again (harmlessly)", "err", err)
		}
		return nil
	}
	calls := make([]func(), 0, t.n)
	for _, p := range b.mem[:t.n] {
		b.memBytes -= p.size
		err := dropped[p.rec.ID]
		calls = append(calls, func() { p.durable(err) })
	}
	b.mem = b.mem[t.n:]
	return calls
}

// dropInvalid removes from batch the runs the store refuses, noting each in dropped.
func (b *Buffer) dropInvalid(batch []store.RunRecord, dropped map[store.RunID]error) []store.RunRecord {
	b.mu.Lock()
	defer b.mu.Unlock()
	keep := batch[:0:0]
	for i := range batch {
		if err := batch[i].Validate(); err != nil {
			b.dropLocked(batch[i], err)
			dropped[batch[i].ID] = err
			continue
		}
		keep = append(keep, batch[i])
	}
	if len(keep) == len(batch) {
		// The store said invalid but no run fails Validate: never retry it forever.
		for i := range batch {
			err := fmt.Errorf("%w: refused by the store", store.ErrInvalidRun)
			b.dropLocked(batch[i], err)
			dropped[batch[i].ID] = err
		}
		return nil
	}
	return keep
}

// goAway moves memory to the spool after a failed write: from now until a write succeeds,
// every run is on disk as soon as it is added, or in memory while the spool refuses it.
func (b *Buffer) goAway() {
	b.mu.Lock()
	b.away = true
	calls, err := b.spillLocked()
	if err != nil {
		b.log.Error("spool: cannot write; runs stay in memory", "err", err, "runs", len(b.mem))
	}
	b.report()
	b.mu.Unlock()
	for _, call := range calls {
		call()
	}
}

// Close writes what it can to the database until ctx is done, puts the rest in the spool for
// the next start, and stops. Runs added afterwards are refused.
func (b *Buffer) Close(ctx context.Context) error {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil
	}
	b.closed = true
	running, cancelWrites := b.running, b.cancel
	b.mu.Unlock()
	close(b.quit)
	if running {
		select {
		case <-b.stopped:
		case <-ctx.Done():
			cancelWrites() // abandon the write under way; its runs are still queued
			<-b.stopped
		}
	}

	b.mu.Lock()
	calls, err := b.spillLocked()
	if err != nil {
		for _, p := range b.mem {
			b.dropLocked(p.rec, err)
			calls = append(calls, func() { p.durable(err) })
		}
		b.mem, b.memBytes = nil, 0
	}
	left := b.spool.count
	b.inflight = batchToken{}
	var cerr error
	if left == 0 && err == nil {
		cerr = b.spool.remove()
	} else {
		cerr = b.spool.close()
	}
	b.report()
	b.mu.Unlock()
	for _, call := range calls {
		call()
	}
	if err != nil {
		return fmt.Errorf("monitor: buffer close: runs lost: %w", err)
	}
	if left > 0 {
		b.log.Warn("buffer: runs left in the spool for the next start", "runs", left, "file", b.spool.path)
	}
	if cerr != nil {
		return fmt.Errorf("monitor: buffer close: %w", cerr)
	}
	return nil
}

// spoolFileName makes a worker name safe as a file name: every run of characters other than
// ASCII letters, digits, '.', '_' and '-' becomes one '_'.
func spoolFileName(name string) string {
	var b strings.Builder
	unsafe := false
	for i := 0; i < len(name); i++ {
		c := name[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-' {
			b.WriteByte(c)
			unsafe = false
		} else if !unsafe {
			b.WriteByte('_')
			unsafe = true
		}
	}
	return b.String()
}
