package store

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// countingReader answers the statuses of one server whose state names the reading ("1",
// "2", ...), counting calls; gate, when set, holds each reading until it is closed or sent on.
type countingReader struct {
	calls atomic.Int32
	gate  chan struct{}
	fail  func(call int32) error
}

func (c *countingReader) read(ctx context.Context, now time.Time) ([]ServerStatus, error) {
	n := c.calls.Add(1)
	if c.gate != nil {
		select {
		case <-c.gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if c.fail != nil {
		if err := c.fail(n); err != nil {
			return nil, err
		}
	}
	return []ServerStatus{{State: string(rune('0' + n)), AsOf: now}}, nil
}

func mustGet(t *testing.T, s *StatusSnapshot, now time.Time) Statuses {
	t.Helper()
	v, err := s.Get(context.Background(), now)
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	return v
}

func TestStatusSnapshotReadsOnceForManyReaders(t *testing.T) {
	t.Parallel()
	c := &countingReader{gate: make(chan struct{})}
	s := NewStatusSnapshot(c.read, time.Hour, 0)
	now := time.Date(2025, 11, 20, 12, 0, 0, 0, time.UTC)
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			v, err := s.Get(context.Background(), now)
			if err != nil || len(v.List) != 1 || !v.AsOf.Equal(now) || v.Seq != 1 {
				t.Errorf("Get = %+v, %v", v, err)
			}
		})
	}
	// Let the readers pile up behind the first reading, then let it finish.
	time.Sleep(20 * time.Millisecond)
	close(c.gate)
	wg.Wait()
	if n := c.calls.Load(); n != 1 {
		t.Errorf("%d readings for 20 readers, want 1", n)
	}
	// Within the TTL a later clock still gets that reading and its instant.
	if v := mustGet(t, s, now.Add(time.Minute)); !v.AsOf.Equal(now) || c.calls.Load() != 1 {
		t.Errorf("a reader within the TTL read again or lost the instant (%v)", v.AsOf)
	}
}

func TestStatusSnapshotServesStaleWhileReadingAfresh(t *testing.T) {
	t.Parallel()
	c := &countingReader{}
	s := NewStatusSnapshot(c.read, 30*time.Millisecond, time.Hour)
	first := mustGet(t, s, time.Now())
	time.Sleep(40 * time.Millisecond)
	// Past the TTL: the old reading comes back at once and a fresh one starts.
	if v := mustGet(t, s, time.Now()); v.Seq != first.Seq {
		t.Errorf("past the TTL got reading %d, want the stale %d without waiting", v.Seq, first.Seq)
	}
	deadline := time.Now().Add(5 * time.Second)
	for mustGet(t, s, time.Now()).Seq == first.Seq {
		if time.Now().After(deadline) {
			t.Fatal("the background reading never replaced the stale one")
		}
		time.Sleep(time.Millisecond)
	}
	if n := c.calls.Load(); n != 2 {
		t.Errorf("%d readings, want 2", n)
	}
}

func TestStatusSnapshotWaitsWhenTooStale(t *testing.T) {
	t.Parallel()
	c := &countingReader{}
	s := NewStatusSnapshot(c.read, 10*time.Millisecond, 10*time.Millisecond)
	first := mustGet(t, s, time.Now())
	time.Sleep(30 * time.Millisecond)
	if v := mustGet(t, s, time.Now()); v.Seq == first.Seq {
		t.Error("a reading older than TTL and stale together was served")
	}
}

func TestStatusSnapshotInvalidateWaitsForAReadingBegunLater(t *testing.T) {
	t.Parallel()
	c := &countingReader{gate: make(chan struct{}, 10)}
	s := NewStatusSnapshot(c.read, time.Hour, time.Hour)
	c.gate <- struct{}{}
	first := mustGet(t, s, time.Now())

	// A reading in flight when Invalidate comes is not enough: a second one must follow.
	done := make(chan Statuses)
	s.Invalidate()
	go func() { done <- mustGet(t, s, time.Now()) }()
	for c.calls.Load() < 2 {
		time.Sleep(time.Millisecond)
	}
	s.Invalidate()
	c.gate <- struct{}{} // the reading begun before the second Invalidate
	c.gate <- struct{}{} // the one after it
	v := <-done
	if v.Seq <= first.Seq || c.calls.Load() != 3 {
		t.Errorf("after Invalidate got reading %d after %d calls, want a third reading", v.Seq, c.calls.Load())
	}
	if again := mustGet(t, s, time.Now()); again.Seq != v.Seq {
		t.Errorf("the reading after Invalidate is not kept: %d then %d", v.Seq, again.Seq)
	}
}

func TestStatusSnapshotErrors(t *testing.T) {
	t.Parallel()
	down := errors.New("database away")
	for _, tc := range []struct {
		name string
		ttl  time.Duration
	}{
		{"cached", time.Hour},
		{"uncached", -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := &countingReader{fail: func(n int32) error {
				if n == 1 {
					return down
				}
				return nil
			}}
			s := NewStatusSnapshot(c.read, tc.ttl, time.Hour)
			if _, err := s.Get(context.Background(), time.Now()); !errors.Is(err, down) {
				t.Fatalf("first Get: %v, want the reading's error", err)
			}
			v, err := s.Get(context.Background(), time.Now())
			if err != nil || len(v.List) != 1 || c.calls.Load() != 2 {
				t.Errorf("second Get = %+v, %v after %d readings; want a fresh reading", v, err, c.calls.Load())
			}
		})
	}
}

func TestStatusSnapshotWithoutTTLAlwaysReads(t *testing.T) {
	t.Parallel()
	c := &countingReader{}
	s := NewStatusSnapshot(c.read, 0, time.Hour)
	var last uint64
	for range 3 {
		v := mustGet(t, s, time.Now())
		if v.Seq <= last {
			t.Errorf("reading %d after %d: readings are not numbered apart", v.Seq, last)
		}
		last = v.Seq
	}
	if c.calls.Load() != 3 {
		t.Errorf("%d readings, want 3", c.calls.Load())
	}
}

func TestStatusSnapshotReaderGoingAwayLeavesTheReadingToOthers(t *testing.T) {
	t.Parallel()
	c := &countingReader{gate: make(chan struct{})}
	s := NewStatusSnapshot(c.read, time.Hour, 0)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error)
	go func() {
		_, err := s.Get(ctx, time.Now())
		errc <- err
	}()
	for c.calls.Load() < 1 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Errorf("the reader that went away got %v", err)
	}
	close(c.gate)
	if v := mustGet(t, s, time.Now()); len(v.List) != 1 || c.calls.Load() != 1 {
		t.Errorf("another reader got %+v after %d readings; want the first reading, finished", v, c.calls.Load())
	}
}

func TestStatusSnapshotGivesAnEmptyFleetAList(t *testing.T) {
	t.Parallel()
	s := NewStatusSnapshot(func(context.Context, time.Time) ([]ServerStatus, error) { return nil, nil }, time.Hour, 0)
	if v := mustGet(t, s, time.Now()); v.List == nil || v.Seq != 1 {
		t.Errorf("empty fleet: %+v", v)
	}
}
