package monitor

import (
	"container/heap"
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpwatch/mcpwatch/alert"
	"github.com/mcpwatch/mcpwatch/store"
)

// heldServer is one server whose slot this worker held last: enough to go on probing it on its
// grid while the database is away.
type heldServer struct {
	server store.Server
	// next is the server's next slot as this worker left it.
	next time.Time
	// probed is the last slot this worker probed; handBack says that the schedule in the
	// database does not know it yet (probed offline, or the lease could not be completed).
	probed   time.Time
	handBack bool
	// busy: a probe of the server runs (leased or offline).
	busy bool
}

// scheduleCache holds the servers this worker held last, by id. A server another worker
// holds drops out of it: one whose slot passed by more than a lease while this worker's
// claims succeeded without it.
//
// The claim loop asks it after every claim what to forget and what to hand back: with
// 10,000 servers held, walking all of them each time cost some 3% of the worker's CPU. So it
// keeps the servers that could be forgotten ordered by their next slot (forgettable), and
// the number of slots to hand back (handingBack).
type scheduleCache struct {
	mu      sync.Mutex
	servers map[int64]*heldServer
	// forgettable holds a (next slot, id) item for every server neither busy nor waiting to
	// be handed back, at that server's next slot, soonest first; an item whose server has
	// moved on (another next slot, busy, gone) is stale and dropped when it comes up.
	forgettable forgetQueue
	handingBack int // servers whose handBack is set
}

// forgetItem is a server that may be forgotten once its next slot has passed by a lease.
type forgetItem struct {
	next time.Time
	id   int64
}

// forgetQueue is a min-heap of forgetItems by next slot (container/heap).
type forgetQueue []forgetItem

func (q forgetQueue) Len() int           { return len(q) }
func (q forgetQueue) Less(i, j int) bool { return q[i].next.Before(q[j].next) }
func (q forgetQueue) Swap(i, j int)      { q[i], q[j] = q[j], q[i] }
func (q *forgetQueue) Push(x any)        { *q = append(*q, x.(forgetItem)) }
func (q *forgetQueue) Pop() any {
	old := *q
	it := old[len(old)-1]
	*q = old[:len(old)-1]
	return it
}

// settled notes that h may have become forgettable (its next slot moved, or it stopped
// being busy or waiting to be handed back). The caller holds mu.
func (c *scheduleCache) settled(id int64, h *heldServer) {
	if !h.busy && !h.handBack {
		heap.Push(&c.forgettable, forgetItem{next: h.next, id: id})
	}
}

// setHandBack sets h.handBack, keeping count. The caller holds mu.
func (c *scheduleCache) setHandBack(h *heldServer, v bool) {
	switch {
	case v && !h.handBack:
		c.handingBack++
	case !v && h.handBack:
		c.handingBack--
	}
	h.handBack = v
}

func (c *scheduleCache) claimed(s store.Server, due time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.servers == nil {
		c.servers = map[int64]*heldServer{}
	}
	h := c.servers[s.ID]
	if h == nil {
		h = &heldServer{next: due}
		c.servers[s.ID] = h
	}
	h.server, h.busy = s, true
}

// ended records the end of a leased slot: probed (zero when the slot was moved unprobed) and
// the next slot. completed says that the database has it; lost, that another worker does.
func (c *scheduleCache) ended(id int64, probed, next time.Time, completed, lost bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	h := c.servers[id]
	switch {
	case h == nil:
	case lost:
		c.setHandBack(h, false)
		delete(c.servers, id)
	default:
		h.busy, h.next = false, next
		if !probed.IsZero() {
			h.probed = probed
			c.setHandBack(h, !completed)
		}
		c.settled(id, h)
	}
}

// probedOffline records a slot probed without a lease.
func (c *scheduleCache) probedOffline(id int64, due, next time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if h := c.servers[id]; h != nil {
		h.busy, h.next, h.probed = false, next, due
		c.setHandBack(h, true)
	}
}

// idle records a probe that ended without a run (cut short, or the worker killed).
func (c *scheduleCache) idle(id int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if h := c.servers[id]; h != nil {
		h.busy = false
		c.settled(id, h)
	}
}

// forgetPassed drops the servers whose slot passed by more than a lease without this worker
// claiming it: another worker holds them, or they are no longer claimable (disabled, deleted).
// Called after a claim succeeded, and never for a slot this worker has yet to hand back.
func (c *scheduleCache) forgetPassed(now time.Time, lease time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for len(c.forgettable) > 0 && c.forgettable[0].next.Add(lease).Before(now) {
		it := heap.Pop(&c.forgettable).(forgetItem)
		if h := c.servers[it.id]; h != nil && !h.busy && !h.handBack && h.next.Equal(it.next) {
			delete(c.servers, it.id)
		}
	}
}

// due takes up to n servers whose next slot has come, marking them busy.
func (c *scheduleCache) due(now time.Time, n int) []store.Claimed {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []store.Claimed
	for _, h := range c.servers {
		if len(out) == n {
			break
		}
		if !h.busy && !h.next.After(now) {
			h.busy = true
			out = append(out, store.Claimed{Server: h.server, Lease: store.Lease{ServerID: h.server.ID, Due: h.next}})
		}
	}
	return out
}

// soonest is the earliest next slot of a server not being probed.
func (c *scheduleCache) soonest() (time.Time, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var at time.Time
	for _, h := range c.servers {
		if !h.busy && (at.IsZero() || h.next.Before(at)) {
			at = h.next
		}
	}
	return at, !at.IsZero()
}

// probing reports whether a probe of a held server runs (leased or offline).
func (c *scheduleCache) probing() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, h := range c.servers {
		if h.busy {
			return true
		}
	}
	return false
}

func (c *scheduleCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.servers)
}

// toHandBack lists the slots the database does not know were probed.
func (c *scheduleCache) toHandBack() []store.ProbedSlot {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.handingBack == 0 {
		return nil
	}
	out := make([]store.ProbedSlot, 0, c.handingBack)
	for id, h := range c.servers {
		if h.handBack {
			out = append(out, store.ProbedSlot{ServerID: id, Due: h.probed, Next: h.next})
		}
	}
	return out
}

// handedBack clears the slots the database was told of, unless one was probed again since.
func (c *scheduleCache) handedBack(slots []store.ProbedSlot) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, p := range slots {
		if h := c.servers[p.ServerID]; h != nil && h.probed.Equal(p.Due) && h.handBack {
			c.setHandBack(h, false)
			c.settled(p.ServerID, h)
		}
	}
}

// maxCatchUp bounds the observations waiting for the alert engine while the database is
// away; beyond it the oldest are dropped (and counted as judgements "dropped").
const maxCatchUp = 1000

// catchUpQueue holds, in the order they were made, the observations of runs made while the
// database was away, until their runs are written.
type catchUpQueue struct {
	mu  sync.Mutex
	obs []alert.Observation
	n   atomic.Int64 // len(obs), read without the lock
	// turn is held while an observation is handed over, so that those of one server reach
	// the engine one at a time and in order, queued ones before newer ones.
	turn     sync.Mutex
	draining atomic.Bool
}

// add queues obs and reports whether an older one was dropped for it.
func (q *catchUpQueue) add(obs alert.Observation) (dropped bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.obs) >= maxCatchUp {
		q.obs = q.obs[1:]
		dropped = true
	}
	q.obs = append(q.obs, obs)
	q.n.Store(int64(len(q.obs)))
	return dropped
}

// pop takes the oldest observation (of server only, when only is not 0).
func (q *catchUpQueue) pop(only int64) (alert.Observation, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for i, o := range q.obs {
		if only == 0 || o.ServerID == only {
			q.obs = append(q.obs[:i:i], q.obs[i+1:]...)
			q.n.Store(int64(len(q.obs)))
			return o, true
		}
	}
	return alert.Observation{}, false
}

func (q *catchUpQueue) has(server int64) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, o := range q.obs {
		if o.ServerID == server {
			return true
		}
	}
	return false
}

// handleOffline runs one slot of a cached server without a lease, while the database is away:
// probe, spool the run, queue its observation for the alert engine.
func (w *Worker) handleOffline(ctx, probeCtx, finishCtx context.Context, c store.Claimed, probing, finishing *sync.WaitGroup) {
	defer finishing.Done()
	recorded := false
	defer func() {
		if !recorded {
			w.cache.idle(c.Server.ID)
		}
	}()
	ev := Event{ServerID: c.Server.ID, Server: c.Server.Name, Lease: c.Lease, Lag: time.Since(c.Lease.Due), Offline: true}
	w.cfg.Metrics.probeStarted(ev.Lag)
	w.trace(withKind(ev, EventProbeStarted))
	started := time.Now()
	rec, obs := w.prober.probe(probeCtx, c.Server, c.Lease.Due, c.LastOutcome, c.Server.Timeout, w.cfg.Region, w.cfg.Name, w.cfg.Alerts != nil)
	w.cfg.Metrics.probeEnded()
	w.releaseSlot()
	probing.Done()
	switch {
	case ctx.Err() != nil:
		w.trace(withKind(ev, EventAbandoned))
		return
	case probeCtx.Err() != nil:
		w.trace(withKind(ev, EventReleased))
		return
	}
	w.cfg.Metrics.probeFinished(&rec)

	stored, waited := w.makeDurable(finishCtx, rec, c.Server.Name)
	if !waited {
		return
	}
	if stored && w.cfg.Alerts != nil {
		w.queueForAlerts(obs)
	}
	ev.Run, ev.Outcome = rec.ID, rec.Outcome
	w.trace(withKind(ev, EventProbeFinished))
	w.cache.probedOffline(c.Server.ID, c.Lease.Due, w.nextDue(c, started))
	recorded = true
	w.Wake()
}

func (w *Worker) queueForAlerts(obs alert.Observation) {
	if w.catchUp.add(obs) {
		w.cfg.Metrics.judged(judgedDropped)
		w.log.Warn("too many runs waiting for the alert engine: the oldest is not judged", "limit", maxCatchUp)
	}
}

// runsWritten reports whether every run the buffer took before now is in the database: the
// alert engine's history cites them.
func (w *Worker) runsWritten() bool {
	s := w.buf.Stats()
	return !s.Away && s.Spooled == 0
}

// catchUpAlerts hands the queued observations to the alert engine, oldest first, once their
// runs are written.
func (w *Worker) catchUpAlerts(ctx context.Context) {
	for ctx.Err() == nil && w.catchUp.n.Load() > 0 && w.runsWritten() {
		w.catchUp.turn.Lock()
		if obs, ok := w.catchUp.pop(0); ok {
			w.observe(ctx, obs, w.cfg.AlertTimeout)
		}
		w.catchUp.turn.Unlock()
	}
}

// catchUpServer hands the queued observations of one server to the engine, oldest first,
// once their runs are written. The caller holds catchUp.turn.
func (w *Worker) catchUpServer(ctx context.Context, server int64) {
	for ctx.Err() == nil && w.runsWritten() {
		obs, ok := w.catchUp.pop(server)
		if !ok {
			return
		}
		w.observe(ctx, obs, w.cfg.AlertTimeout)
	}
}

// observe hands one observation to the engine within timeout and counts the result.
func (w *Worker) observe(ctx context.Context, obs alert.Observation, timeout time.Duration) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	log := w.log.With("server", obs.Server, "run", obs.RunID)
	switch err := w.cfg.Alerts.Observe(ctx, obs); {
	case err == nil:
		w.cfg.Metrics.judged(judgedOK)
	case errors.Is(err, alert.ErrInvalidObservation):
		log.Error("run not judged for alerts: the engine cannot read it", "err", err)
		w.cfg.Metrics.judged(judgedInvalid)
	default:
		log.Warn("run not judged for alerts", "err", err)
		w.cfg.Metrics.judged(judgedFailed)
	}
}
