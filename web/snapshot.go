package web

import (
	"context"
	"sync"
	"time"

	"github.com/mcpwatch/mcpwatch/store"
)

// defaultStatusTTL is how long the status page reuses the statuses of every server. Reading
// them for a large fleet costs tens of milliseconds of database time; a page that refreshes
// every 30 seconds gains nothing from fresher ones, and a crowd of readers (an outage brings
// one) then costs one read per period rather than one per reader.
const defaultStatusTTL = 10 * time.Second

// statusSnapshot holds the latest statuses of every server. One reader at a time refreshes
// them; the others wait for that read rather than start their own.
type statusSnapshot struct {
	ttl  time.Duration // <= 0: every call reads
	read func(ctx context.Context, now time.Time) ([]store.ServerStatus, error)

	mu      sync.Mutex
	at      time.Time // clock reading of the read (the statuses' AsOf)
	taken   time.Time // wall time of the read, for the TTL
	value   []store.ServerStatus
	reading chan struct{} // closed when the read in flight ends; nil when none is
}

// get returns statuses no older than the TTL, and the instant they describe.
func (s *statusSnapshot) get(ctx context.Context, now time.Time) ([]store.ServerStatus, time.Time, error) {
	if s.ttl <= 0 {
		v, err := s.read(ctx, now)
		return v, now, err
	}
	for {
		s.mu.Lock()
		if s.value != nil && time.Since(s.taken) < s.ttl {
			v, at := s.value, s.at
			s.mu.Unlock()
			return v, at, nil
		}
		if wait := s.reading; wait != nil {
			s.mu.Unlock()
			select {
			case <-wait:
				continue // the read ended: take its result, or read if it failed
			case <-ctx.Done():
				return nil, time.Time{}, ctx.Err()
			}
		}
		done := make(chan struct{})
		s.reading = done
		s.mu.Unlock()

		v, err := s.read(ctx, now)
		s.mu.Lock()
		if err == nil {
			if v == nil {
				v = []store.ServerStatus{}
			}
			s.value, s.at, s.taken = v, now, time.Now()
		}
		s.reading = nil
		close(done)
		s.mu.Unlock()
		return v, now, err
	}
}
