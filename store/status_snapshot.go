package store

import (
	"context"
	"sync"
	"time"
)

// Reading the statuses of every server costs tens of milliseconds of database time for a
// large fleet, more under load; the status page and GET /api/v1/servers both want them, and
// a crowd of readers (an outage brings one) would otherwise pay that once each. A
// StatusSnapshot shares one reading among them.

// Default periods of a StatusSnapshot: a reading is served as it is for DefaultStatusTTL,
// then for DefaultStatusStale more while a fresh one is read in the background. Runs arrive
// about once a minute per server and open pages refresh every 30 s, so a reader sees
// nothing older than it would with a fresh reading at its previous refresh.
const (
	DefaultStatusTTL   = 5 * time.Second
	DefaultStatusStale = 25 * time.Second
)

// statusReadTimeout bounds one reading: it runs apart from the request that started it (so
// that the request going away does not fail everyone waiting for it).
const statusReadTimeout = 30 * time.Second

// Statuses is one reading of the statuses of every server. Its slices are shared by every
// reader of the snapshot: do not modify them.
type Statuses struct {
	List []ServerStatus
	// AsOf is the instant the reading describes (the clock of the request that started it).
	AsOf time.Time
	// Seq numbers the readings of a snapshot from 1: equal numbers, the same reading.
	Seq uint64
}

// StatusReader reads the statuses of every server at now (Store.ServerStatuses).
type StatusReader func(ctx context.Context, now time.Time) ([]ServerStatus, error)

// StatusSnapshot shares readings of every server's status among readers. Safe for
// concurrent use; at most one reading is in flight at a time.
type StatusSnapshot struct {
	read       StatusReader
	ttl, stale time.Duration

	mu sync.Mutex
	// cur is the latest reading (Seq 0: none yet), taken at wall time taken with epoch
	// curEpoch.
	cur      Statuses
	taken    time.Time
	curEpoch uint64
	// epoch counts Invalidate calls: a reading begun before the latest one is not served.
	epoch   uint64
	seq     uint64
	reading *statusRead // nil when none is in flight
}

// statusRead is a reading in flight; done is closed when val and err are set.
type statusRead struct {
	epoch uint64
	done  chan struct{}
	val   Statuses
	err   error
}

// NewStatusSnapshot shares the readings of read: each is served for ttl, then for stale
// more while the next is read in the background; readers wait for a reading only when there
// is none that young. ttl <= 0 makes every call read (stale is then ignored).
func NewStatusSnapshot(read StatusReader, ttl, stale time.Duration) *StatusSnapshot {
	return &StatusSnapshot{read: read, ttl: ttl, stale: max(stale, 0)}
}

// Get returns a reading no older than the TTL, or no older than TTL and stale together while
// a fresh one is being read. A reading started for this call describes now.
func (s *StatusSnapshot) Get(ctx context.Context, now time.Time) (Statuses, error) {
	if s.ttl <= 0 {
		list, err := s.read(ctx, now)
		if err != nil {
			return Statuses{}, err
		}
		s.mu.Lock()
		s.seq++
		seq := s.seq
		s.mu.Unlock()
		return Statuses{List: nonNilStatuses(list), AsOf: now, Seq: seq}, nil
	}
	for {
		s.mu.Lock()
		usable := s.cur.Seq != 0 && s.curEpoch == s.epoch
		age := time.Since(s.taken)
		if usable && age < s.ttl {
			v := s.cur
			s.mu.Unlock()
			return v, nil
		}
		if usable && age < s.ttl+s.stale {
			if s.reading == nil {
				s.startLocked(ctx, now)
			}
			v := s.cur
			s.mu.Unlock()
			return v, nil
		}
		r := s.reading
		if r == nil {
			r = s.startLocked(ctx, now)
		}
		s.mu.Unlock()
		select {
		case <-r.done:
		case <-ctx.Done():
			return Statuses{}, ctx.Err()
		}
		if r.err != nil {
			return Statuses{}, r.err
		}
		s.mu.Lock()
		current := r.epoch == s.epoch
		s.mu.Unlock()
		if current {
			return r.val, nil
		}
		// An Invalidate came after this reading began: what it changed may be missing.
	}
}

// Invalidate makes the next Get wait for a reading that begins after this call: a writer
// calls it so that its own next read shows its write.
func (s *StatusSnapshot) Invalidate() {
	s.mu.Lock()
	s.epoch++
	s.mu.Unlock()
}

// startLocked begins a reading at now in the background; s.mu is held.
func (s *StatusSnapshot) startLocked(ctx context.Context, now time.Time) *statusRead {
	r := &statusRead{epoch: s.epoch, done: make(chan struct{})}
	s.reading = r
	readCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), statusReadTimeout)
	go func() {
		defer cancel()
		list, err := s.read(readCtx, now)
		s.mu.Lock()
		defer s.mu.Unlock()
		if err == nil {
			s.seq++
			r.val = Statuses{List: nonNilStatuses(list), AsOf: now, Seq: s.seq}
			s.cur, s.taken, s.curEpoch = r.val, time.Now(), r.epoch
		}
		r.err = err
		s.reading = nil
		close(r.done)
	}()
	return r
}

// nonNilStatuses gives an empty fleet an empty list: Seq, not the list, tells a reading from
// none, but callers encode the list.
func nonNilStatuses(list []ServerStatus) []ServerStatus {
	if list == nil {
		return []ServerStatus{}
	}
	return list
}
