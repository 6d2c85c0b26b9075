package monitor

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpwatch/mcpwatch/alert"
	"github.com/mcpwatch/mcpwatch/store"
)

// WorkerConfig shapes a Worker. Zero fields take defaults.
type WorkerConfig struct {
	Region string
	// Name identifies the worker in leases and runs; it should be unique among live workers.
	Name string
	// Concurrency bounds the probes running at once; default DefaultConcurrency.
	Concurrency int
	// MaxTimeout is the longest probe timeout expected (the configuration's); default
	// DefaultTimeout. A lease lasts MaxTimeout + LeaseMargin, so that it outlives the probe
	// and the write of its result. A server with a longer timeout raises it for later claims.
	MaxTimeout time.Duration
	// LeaseMargin is the time a lease leaves after the probe's timeout to make the result
	// durable and complete the lease; default DefaultLeaseMargin.
	LeaseMargin time.Duration
	// ShutdownGrace is how long in-flight probes may run on after stop; then they are
	// cancelled and their leases released. Default DefaultShutdownGrace.
	ShutdownGrace time.Duration
	// CompleteTimeout bounds, at shutdown, the wait for finished probes' results to become
	// durable and their leases completed; default 15s.
	CompleteTimeout time.Duration
	// MaxJitter caps the per-server offset of schedules; default DefaultMaxJitter, and a
	// negative value turns the offset off.
	MaxJitter time.Duration
	// ClaimInterval is the least time between two claims when nothing more is due, so that
	// claims come in batches; default 100ms. PollInterval is the most, so that servers added
	// by other processes are noticed; default 2s.
	ClaimInterval time.Duration
	PollInterval  time.Duration
	// Alerts, when set, judges every run once it is durable and before its slot is completed,
	// so that the runs of a server in this region reach it one at a time and in order. Nil
	// (no alerts: section) judges nothing.
	Alerts AlertObserver
	// AlertTimeout bounds one judgement; default DefaultAlertTimeout.
	AlertTimeout time.Duration
	// Trace, when set, hears about every probe (from many goroutines at once).
	Trace func(Event)
	// Logger receives the worker's logs as they are: the Service gives it one that already
	// names the worker and its region.
	Logger  *slog.Logger
	Metrics *Metrics
}

func (c WorkerConfig) withDefaults() WorkerConfig {
	if c.Concurrency <= 0 {
		c.Concurrency = DefaultConcurrency
	}
	if c.MaxTimeout <= 0 {
		c.MaxTimeout = DefaultTimeout
	}
	if c.LeaseMargin <= 0 {
		c.LeaseMargin = DefaultLeaseMargin
	}
	if c.ShutdownGrace < 0 {
		c.ShutdownGrace = 0
	}
	if c.CompleteTimeout <= 0 {
		c.CompleteTimeout = 15 * time.Second
	}
	switch {
	case c.MaxJitter == 0:
		c.MaxJitter = DefaultMaxJitter
	case c.MaxJitter < 0:
		c.MaxJitter = 0
	}
	if c.ClaimInterval <= 0 {
		c.ClaimInterval = 100 * time.Millisecond
	}
	if c.PollInterval <= 0 {
		c.PollInterval = 2 * time.Second
	}
	if c.AlertTimeout <= 0 {
		c.AlertTimeout = DefaultAlertTimeout
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return c
}

// EventKind says what happened to a probe.
type EventKind int

const (
	// EventProbeStarted: a claimed server's probe begins (Lag is set).
	EventProbeStarted EventKind = iota
	// EventProbeFinished: the run is durable (Run and Outcome are set), the alert engine has
	// judged it (or given up), and the lease is about to be completed.
	EventProbeFinished
	// EventLeaseLost: completing or releasing found the lease taken over.
	EventLeaseLost
	// EventReleased: a probe cut short by shutdown; its lease was given back, its run dropped.
	EventReleased
	// EventAbandoned: the worker was killed mid-probe; nothing was completed or released.
	EventAbandoned
	// EventDeferred: a slot off the server's grid, reached late (a burst of new servers),
	// was moved to the server's next slot on its grid unprobed (Lease.Due is that slot).
	EventDeferred
)

// Event is one thing that happened to one probe of one slot.
type Event struct {
	Kind     EventKind
	Worker   string
	ServerID int64
	Server   string
	Lease    store.Lease
	Lag      time.Duration
	Run      store.RunID
	Outcome  string
	// Offline: the slot was probed without a lease, the database being away (Lease holds
	// only the server and the due time).
	Offline bool
}

// SlotClaimer leases due slots (server, region) to workers; *store.Store is one. The database
// behind it is the only coordinator of the workers that share a schedule: a slot is leased to
// one claimer at a time, and CompleteLeases and Release find a lease lost (Release fails with
// store.ErrLeaseLost) once it is someone else's.
type SlotClaimer interface {
	Claim(ctx context.Context, region, worker string, limit int, lease time.Duration) ([]store.Claimed, error)
	CompleteLeases(ctx context.Context, cs []store.Completion) (done []bool, err error)
	Release(ctx context.Context, l store.Lease) error
	NextClaimable(ctx context.Context, region string) (at time.Time, ok bool, err error)
	SkipProbed(ctx context.Context, region string, slots []store.ProbedSlot) error
}

var _ SlotClaimer = (*store.Store)(nil)

// AlertObserver judges finished runs; *alert.Engine is one.
type AlertObserver interface {
	Observe(ctx context.Context, obs alert.Observation) error
}

// Worker claims due servers of its region from the database and probes them, at most
// Concurrency at once. Any number of workers, in any number of processes, share one database:
// a slot is leased to one worker at a time, and a worker that dies loses its leases when they
// expire, to whichever worker claims next.
//
// A probe holds a concurrency slot only while it runs, and each is bounded by its server's
// timeout: a server that never answers or floods the probe costs one slot for one timeout,
// and every other server keeps its schedule.
type Worker struct {
	st     SlotClaimer
	prober *Prober
	buf    *Buffer
	cfg    WorkerConfig
	log    *slog.Logger

	slots chan struct{} // one token per running probe
	freed chan struct{} // a probe ended
	wake  chan struct{} // claim now (the servers changed)

	maxTimeout atomic.Int64 // nanoseconds
	lastLoop   atomic.Int64 // unix nanoseconds
	// sleepUntil is when the idle claim loop plans to claim next (unix nanoseconds): a
	// completion that makes a slot due sooner wakes it.
	sleepUntil atomic.Int64
	dbOK       atomic.Bool
	stopping   atomic.Bool

	cache     scheduleCache
	catchUp   catchUpQueue
	completer *completer
}

// NewWorker builds a worker that probes with p and hands runs to buf.
func NewWorker(st SlotClaimer, p *Prober, buf *Buffer, cfg WorkerConfig) (*Worker, error) {
	cfg = cfg.withDefaults()
	if cfg.Region == "" || cfg.Name == "" {
		return nil, errors.New("monitor: worker needs a region and a name")
	}
	w := &Worker{
		st: st, prober: p, buf: buf, cfg: cfg, log: cfg.Logger,
		slots:     make(chan struct{}, cfg.Concurrency),
		freed:     make(chan struct{}, 1),
		wake:      make(chan struct{}, 1),
		completer: newCompleter(st),
	}
	w.maxTimeout.Store(int64(cfg.MaxTimeout))
	w.dbOK.Store(true)
	w.lastLoop.Store(time.Now().UnixNano())
	return w, nil
}

// Wake makes the worker claim at once, for servers that were just added or rescheduled.
func (w *Worker) Wake() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// SetMaxTimeout sets the longest probe timeout expected (after a configuration reload).
func (w *Worker) SetMaxTimeout(d time.Duration) {
	if d > 0 {
		w.maxTimeout.Store(int64(d))
	}
}

// Health says whether the worker works.
func (w *Worker) Health() Health {
	last := time.Unix(0, w.lastLoop.Load())
	h := Health{
		OK:       !w.stopping.Load() && time.Since(last) < time.Minute,
		Database: "ok",
		LastLoop: last,
		InFlight: len(w.slots),
	}
	if !w.dbOK.Load() {
		h.Database = "unreachable"
	}
	if w.buf != nil {
		s := w.buf.Stats()
		h.Buffered, h.Spooled, h.Dropped = s.Memory, s.Spooled, s.Dropped
	}
	return h
}

func (w *Worker) trace(e Event) {
	if w.cfg.Trace != nil {
		e.Worker = w.cfg.Name
		w.cfg.Trace(e)
	}
}

// Run claims and probes until ctx is done, then shuts down gracefully: no more claims;
// in-flight probes get ShutdownGrace to finish (then they are cancelled and their leases
// released); finished runs are made durable and their leases completed, within
// CompleteTimeout. The caller then closes the buffer. Run returns nil after a graceful stop.
//
// The stop is bounded: when it overruns its bounds by stopSlack (a probe or a write that
// ignores cancellation), the probes still running are abandoned as if the process died, and
// Run returns context.Canceled.
func (w *Worker) Run(ctx context.Context) error {
	killCtx, kill := context.WithCancel(context.WithoutCancel(ctx))
	defer kill()
	done := make(chan error, 1)
	go func() { done <- w.run(killCtx, ctx.Done()) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	timer := time.NewTimer(w.cfg.ShutdownGrace + w.cfg.CompleteTimeout + stopSlack)
	defer timer.Stop()
	select {
	case err := <-done:
		return err
	case <-timer.C:
		w.log.Error("worker did not stop in time; abandoning its probes (their leases expire)")
		kill()
		return <-done
	}
}

// stopSlack is what a graceful stop may take beyond ShutdownGrace and CompleteTimeout before
// Run abandons it.
const stopSlack = 5 * time.Second

// run claims and probes until stop is closed or ctx is done.
//
// Closing stop shuts down gracefully (see Run). Cancelling ctx is a kill, as if the process
// died: probes are cancelled and neither their runs nor their leases are touched again, so
// other workers take the slots over when the leases expire. run returns ctx.Err() then, nil
// after a graceful stop.
func (w *Worker) run(ctx context.Context, stop <-chan struct{}) error {
	probeCtx, cancelProbes := context.WithCancel(ctx)
	defer cancelProbes()
	finishCtx, cancelFinish := context.WithCancel(ctx)
	defer cancelFinish()
	var probing, finishing sync.WaitGroup
	// The completer outlives every probe's finish: it stops once they all have.
	completeCtx, stopCompleter := context.WithCancel(ctx)
	var completing sync.WaitGroup
	completing.Go(func() { w.completer.run(completeCtx) })
	defer completing.Wait()
	defer stopCompleter()

	runs := newRunners()
	defer runs.stop()

	w.log.Info("worker started", "concurrency", w.cfg.Concurrency)
	w.claimLoop(ctx, stop, func(c store.Claimed, offline bool) {
		probing.Add(1)
		finishing.Add(1)
		if offline {
			runs.run(func() { w.handleOffline(ctx, probeCtx, finishCtx, c, &probing, &finishing) })
			return
		}
		runs.run(func() { w.handle(ctx, probeCtx, finishCtx, c, &probing, &finishing) })
	}, func() {
		if w.catchUp.n.Load() == 0 || !w.catchUp.draining.CompareAndSwap(false, true) {
			return
		}
		finishing.Add(1)
		go func() {
			defer finishing.Done()
			defer w.catchUp.draining.Store(false)
			w.catchUpAlerts(finishCtx)
		}()
	})
	w.stopping.Store(true)
	if ctx.Err() != nil {
		probing.Wait()
		finishing.Wait()
		return ctx.Err()
	}

	w.log.Info("worker stopping: no more claims", "inFlight", len(w.slots), "grace", w.cfg.ShutdownGrace)
	if !waitGroup(ctx, &probing, w.cfg.ShutdownGrace) {
		w.log.Warn("worker stopping: cancelling probes still running after the grace period", "probes", len(w.slots))
		cancelProbes()
		probing.Wait()
	}
	if !waitGroup(ctx, &finishing, w.cfg.CompleteTimeout) {
		w.log.Warn("worker stopping: gave up completing leases; they will expire")
		cancelFinish()
		finishing.Wait()
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	w.log.Info("worker stopped")
	return nil
}

// waitGroup waits for wg for at most d; false if it had to stop waiting.
func waitGroup(ctx context.Context, wg *sync.WaitGroup, d time.Duration) bool {
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-done:
		return true
	case <-timer.C:
	case <-ctx.Done():
	}
	return false
}

func closed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// sleep waits d, or less when stop or ctx end it or wake fires; false when stop or ctx did.
func sleep(ctx context.Context, stop <-chan struct{}, wake <-chan struct{}, d time.Duration) bool {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-wake:
		return true
	case <-stop:
	case <-ctx.Done():
	}
	return false
}

// heartbeat bounds every wait of the claim loop, so that Health sees it turning.
const heartbeat = 5 * time.Second

// claimLoop claims due slots and starts them. While the database is away for longer than a
// lease, every lease this worker held has expired and no other worker can have claimed since
// (if the database is away for it too): the worker is offline, and starts the slots of the
// servers it held last (its schedule cache) itself, without leases, until a claim succeeds.
// catchUp hands the alert engine what it missed meanwhile.
func (w *Worker) claimLoop(ctx context.Context, stop <-chan struct{}, start func(c store.Claimed, offline bool), catchUp func()) {
	var backoff time.Duration
	var failingSince time.Time
	offline := false
	for {
		w.lastLoop.Store(time.Now().UnixNano())
		if closed(stop) || ctx.Err() != nil {
			return
		}
		free := cap(w.slots) - len(w.slots)
		if free == 0 {
			if !sleep(ctx, stop, w.freed, heartbeat) {
				return
			}
			// Let a few more probes end, so that a busy worker claims in batches.
			if !sleep(ctx, stop, nil, w.cfg.ClaimInterval/10) {
				return
			}
			continue
		}

		lease := time.Duration(w.maxTimeout.Load()) + w.cfg.LeaseMargin
		timeout := 10 * time.Second
		if offline {
			// A database that does not answer must not hold up the slots probed offline.
			if at, ok := w.cache.soonest(); ok {
				timeout = min(timeout, max(time.Until(at), time.Second))
			}
		}
		cctx, cancel := context.WithTimeout(ctx, timeout)
		if offline && w.cache.probing() {
			// The database must learn of every slot probed offline before a claim could hand
			// it out again, and a slot in flight is not known yet: until no probe runs, only
			// ask whether the database is back; once it is, wait for the probes to end (each
			// wakes the loop), starting no more of them.
			_, _, err := w.st.NextClaimable(cctx, w.cfg.Region)
			cancel()
			if err == nil {
				if !sleep(ctx, stop, w.wake, w.cfg.ClaimInterval) {
					return
				}
				continue
			}
		}
		cctx, cancel = context.WithTimeout(ctx, timeout)
		claimed, err := w.claim(cctx, free, lease)
		cancel()
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			w.dbOK.Store(false)
			w.cfg.Metrics.claimFailed()
			if failingSince.IsZero() || backoff >= maxClaimBackoff {
				w.log.Warn("cannot claim servers; retrying", "err", err)
			}
			if failingSince.IsZero() {
				failingSince = time.Now()
			}
			backoff = min(max(2*backoff, 250*time.Millisecond), maxClaimBackoff)
			wait := backoff
			if !offline && time.Since(failingSince) > lease {
				offline = true
				w.log.Warn("database away for longer than a lease: probing the servers held last on their schedule, without leases",
					"servers", w.cache.len())
			}
			if offline {
				for _, c := range w.cache.due(time.Now(), free) {
					c.Lease.Region, c.Lease.Worker = w.cfg.Region, w.cfg.Name
					w.slots <- struct{}{} // never blocks: at most free are due
					start(c, true)
				}
				if at, ok := w.cache.soonest(); ok {
					wait = min(wait, max(time.Until(at), w.cfg.ClaimInterval))
				}
			}
			// An offline probe that ends wakes the loop: its server's next slot may be sooner.
			if !sleep(ctx, stop, w.wake, wait) {
				return
			}
			continue
		}
		if !failingSince.IsZero() {
			w.log.Info("claiming again", "after", time.Since(failingSince).Round(time.Millisecond), "wasOffline", offline)
			failingSince, offline = time.Time{}, false
		}
		w.cache.forgetPassed(time.Now(), lease)
		catchUp()
		w.dbOK.Store(true)
		backoff = 0
		w.cfg.Metrics.claims(len(claimed))
		for _, c := range claimed {
			w.cache.claimed(c.Server, c.Lease.Due)
			w.slots <- struct{}{} // never blocks: at most free were claimed
			start(c, false)
		}
		if len(claimed) == free {
			continue // more may be due
		}

		// Everything due is claimed: sleep until the next slot is due.
		d := w.cfg.PollInterval
		qctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		at, ok, err := w.st.NextClaimable(qctx, w.cfg.Region)
		cancel()
		if err == nil && ok {
			d = time.Until(at)
		}
		d = min(max(d, w.cfg.ClaimInterval), w.cfg.PollInterval)
		w.sleepUntil.Store(time.Now().Add(d).UnixNano())
		awake := sleep(ctx, stop, w.wake, d)
		w.sleepUntil.Store(0)
		if !awake {
			return
		}
	}
}

const maxClaimBackoff = 5 * time.Second

// claim first tells the database of the slots this worker probed while it was away, so that
// no one claims them again, then claims.
func (w *Worker) claim(ctx context.Context, free int, lease time.Duration) ([]store.Claimed, error) {
	if slots := w.cache.toHandBack(); len(slots) > 0 {
		if err := w.st.SkipProbed(ctx, w.cfg.Region, slots); err != nil {
			return nil, err
		}
		w.cache.handedBack(slots)
		w.log.Info("slots probed while the database was away are done in the schedule", "slots", len(slots))
	}
	return w.st.Claim(ctx, w.cfg.Region, w.cfg.Name, free, lease)
}

// handle runs one claimed slot: probe, make the run durable, complete the lease.
func (w *Worker) handle(ctx, probeCtx, finishCtx context.Context, c store.Claimed, probing, finishing *sync.WaitGroup) {
	defer finishing.Done()
	ev := Event{ServerID: c.Server.ID, Server: c.Server.Name, Lease: c.Lease, Lag: time.Since(c.Lease.Due)}
	if slot, ok := w.spreadFirst(c, ev.Lag); ok {
		w.releaseSlot()
		probing.Done()
		ev.Lease.Due = slot
		lost, completed := w.complete(finishCtx, c, slot, "")
		w.cache.ended(c.Server.ID, time.Time{}, slot, completed, lost)
		if lost {
			w.trace(withKind(ev, EventLeaseLost))
			return
		}
		w.trace(withKind(ev, EventDeferred))
		return
	}
	w.cfg.Metrics.probeStarted(ev.Lag)
	w.trace(withKind(ev, EventProbeStarted))

	if c.Server.Timeout > time.Duration(w.maxTimeout.Load()) {
		w.maxTimeout.Store(int64(c.Server.Timeout)) // later leases cover it
	}
	// The probe must end while the lease still has its margin left.
	timeout := min(c.Server.Timeout, time.Until(c.Lease.Until)-w.cfg.LeaseMargin)
	var rec store.RunRecord
	var obs alert.Observation
	judge := w.cfg.Alerts != nil
	started := time.Now()
	if timeout < minTimeout {
		rec = FailedRecord(time.Now(), RunMeta{ServerID: c.Server.ID, Region: w.cfg.Region, Worker: w.cfg.Name, Due: c.Lease.Due},
			fmt.Errorf("the lease left no time to probe (claimed %v late)", ev.Lag.Round(time.Millisecond)))
		// The worker was late, not the server down: paging its owner would be a lie.
		judge = false
	} else {
		rec, obs = w.prober.probe(probeCtx, c.Server, c.Lease.Due, c.LastOutcome, timeout, w.cfg.Region, w.cfg.Name, judge)
	}
	w.cfg.Metrics.probeEnded()
	w.releaseSlot()
	probing.Done()

	switch {
	case ctx.Err() != nil:
		w.cache.idle(c.Server.ID)
		w.trace(withKind(ev, EventAbandoned))
		return
	case probeCtx.Err() != nil:
		w.cache.idle(c.Server.ID)
		w.release(ctx, c.Lease)
		w.trace(withKind(ev, EventReleased))
		return
	}
	w.cfg.Metrics.probeFinished(&rec)
	w.log.Debug("probed", "server", c.Server.Name, "outcome", rec.Outcome, "duration", rec.Duration, "lag", ev.Lag)

	stored, waited := w.makeDurable(finishCtx, rec, c.Server.Name)
	if !waited {
		w.cache.idle(c.Server.ID)
		return
	}
	// A lost run is not judged: the history would cite a run that does not exist.
	if judge && stored {
		w.judge(finishCtx, obs, c.Lease)
	}
	ev.Run, ev.Outcome = rec.ID, rec.Outcome
	w.trace(withKind(ev, EventProbeFinished))
	next := w.nextDue(c, started)
	lost, completed := w.complete(finishCtx, c, next, rec.Outcome)
	w.cache.ended(c.Server.ID, c.Lease.Due, next, completed, lost)
	if lost {
		w.trace(withKind(ev, EventLeaseLost))
		return
	}
	// The loop sleeps until the slot that was due soonest when it looked; this one may be
	// sooner (a late probe whose next slot has begun already).
	if planned := w.sleepUntil.Load(); planned != 0 && next.UnixNano() < planned {
		w.Wake()
	}
}

// DefaultAlertTimeout bounds the alert engine's judgement of one run: it holds the run's slot
// open (not a concurrency slot), so it must end well within the lease's margin.
const DefaultAlertTimeout = 10 * time.Second

// makeDurable hands rec to the buffer and waits until it is in the database or synced to the
// spool: stored says it is, waited is false when ctx ended first. A run the buffer could not
// keep is logged as lost.
func (w *Worker) makeDurable(ctx context.Context, rec store.RunRecord, server string) (stored, waited bool) {
	durable := make(chan error, 1)
	w.buf.Add(rec, func(err error) { durable <- err })
	select {
	case err := <-durable:
		if err != nil {
			w.log.Error("run lost", "server", server, "err", err)
			return false, true
		}
		return true, true
	case <-ctx.Done():
		return false, false
	}
}

// judge hands a durable run to the alert engine. Alerts are a consequence of runs, never a
// condition of them: the run is stored whatever happens here, and a failure costs the alerts
// this one run, which the engine's state survives (a down alert needs failure-threshold runs
// in a row, and the next run is judged against the state the last judged one left).
func (w *Worker) judge(ctx context.Context, obs alert.Observation, lease store.Lease) {
	log := w.log.With("server", obs.Server, "run", obs.RunID)
	if w.buf != nil && w.buf.Stats().Away {
		// The run waits in the spool for the database, which the engine needs as well: so
		// does its observation, to be judged once the runs are written.
		log.Debug("run judged for alerts once the database is back")
		w.queueForAlerts(obs)
		return
	}
	// The runs of this server made while the database was away go first: the engine
	// ignores a run older than the last one it judged.
	if w.catchUp.n.Load() > 0 || w.catchUp.draining.Load() {
		w.catchUp.turn.Lock()
		defer w.catchUp.turn.Unlock()
		cctx, cancel := context.WithTimeout(ctx, time.Until(lease.Until)/2)
		w.catchUpServer(cctx, obs.ServerID)
		cancel()
		if w.catchUp.has(obs.ServerID) {
			w.queueForAlerts(obs)
			return
		}
	}
	// Half of what is left of the lease at most, the rest being for completing it: a slot
	// whose lease ran out would be probed again by another worker.
	timeout := min(w.cfg.AlertTimeout, time.Until(lease.Until)/2)
	if timeout < minTimeout {
		log.Warn("run not judged for alerts: the lease is about to end", "outcome", obs.Outcome)
		w.cfg.Metrics.judged(judgedSkipped)
		return
	}
	w.observe(ctx, obs, timeout)
}

// releaseSlot gives a concurrency slot back and tells the claim loop.
func (w *Worker) releaseSlot() {
	<-w.slots
	select {
	case w.freed <- struct{}{}:
	default:
	}
}

func withKind(e Event, k EventKind) Event {
	e.Kind = k
	return e
}

// spreadAfter is how late an off-grid slot may be claimed and still be probed at once;
// maxSpread is the furthest such a slot is put off.
const (
	spreadAfter = time.Second
	maxSpread   = 5 * time.Minute
)

// spreadFirst decides whether a slot is put off to the server's own slot on its grid
// instead of probed now, and to when. A slot off the grid was made due at once by the store
// (a server just added or rescheduled, a region just announced); when many come at once, say
// 10,000 servers of a new configuration, probing them all at once is a burst that takes
// minutes to catch up from. So an off-grid slot that the worker reaches late, which is what a
// burst looks like from here, is moved to the server's next slot on its grid when that is at
// most maxSpread away, which spreads the burst the way the schedule spreads everything else.
// One claimed promptly (a server added on its own), or whose next slot is far (an hourly
// server waits for no hour), is probed at once.
func (w *Worker) spreadFirst(c store.Claimed, lag time.Duration) (time.Time, bool) {
	if lag < spreadAfter {
		return time.Time{}, false
	}
	sched, err := ParseSchedule(c.Server.Schedule, w.cfg.MaxJitter)
	if err != nil {
		return time.Time{}, false
	}
	due := c.Lease.Due
	if sched.Next(c.Server.Name, due.Add(-time.Microsecond)).Equal(due) {
		return time.Time{}, false // on the grid: a slot of its own, due and late
	}
	now := time.Now()
	next := sched.Next(c.Server.Name, now)
	if next.IsZero() || next.Sub(now) > min(sched.Interval(now), maxSpread) {
		return time.Time{}, false
	}
	return next, true
}

// fallbackInterval schedules a server whose schedule the worker cannot read (written to the
// database by something that did not validate it).
const fallbackInterval = time.Hour

func (w *Worker) nextDue(c store.Claimed, started time.Time) time.Time {
	now := time.Now()
	sched, err := ParseSchedule(c.Server.Schedule, w.cfg.MaxJitter)
	if err != nil {
		w.log.Error("unreadable schedule; probing hourly", "server", c.Server.Name, "err", err)
		return now.Add(fallbackInterval)
	}
	next := sched.NextDue(c.Server.Name, c.Lease.Due, started, now)
	if next.IsZero() {
		return now.Add(100 * 365 * 24 * time.Hour) // the schedule never fires again
	}
	return next
}

// complete ends the lease with the next due time and the outcome of the run it made ("" for
// none), retrying while the database is away and the lease lasts. It reports whether the
// lease had been lost, and whether it was completed.
func (w *Worker) complete(ctx context.Context, c store.Claimed, next time.Time, outcome string) (lost, completed bool) {
	backoff := 100 * time.Millisecond
	for {
		err := w.completer.complete(ctx, store.Completion{Lease: c.Lease, NextDue: next, Outcome: outcome})
		switch {
		case err == nil:
			return false, true
		case errors.Is(err, store.ErrLeaseLost):
			w.cfg.Metrics.leaseLost()
			w.log.Warn("lease lost before completing: another worker took the slot over", "server", c.Server.Name)
			return true, false
		case ctx.Err() != nil:
			return false, false
		case time.Now().After(c.Lease.Until):
			w.log.Warn("gave up completing the lease: it expired", "server", c.Server.Name, "err", err)
			return false, false
		}
		if !sleep(ctx, nil, nil, backoff) {
			return false, false
		}
		backoff = min(2*backoff, 5*time.Second)
	}
}

// release gives back the lease of a probe cut short by shutdown, so another worker probes the
// slot at once rather than when the lease expires.
func (w *Worker) release(ctx context.Context, l store.Lease) {
	rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := w.st.Release(rctx, l); errors.Is(err, store.ErrLeaseLost) {
		w.cfg.Metrics.leaseLost()
	} else if err != nil {
		w.log.Warn("cannot release a lease; it will expire", "server", l.ServerID, "err", err)
	}
}
