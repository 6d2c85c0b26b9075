package web

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/store"
)

func TestStatusSnapshotReadsOncePerPeriodForManyReaders(t *testing.T) {
	t.Parallel()
	var reads atomic.Int32
	release := make(chan struct{})
	s := &statusSnapshot{ttl: time.Hour, read: func(ctx context.Context, now time.Time) ([]store.ServerStatus, error) {
		reads.Add(1)
		<-release
		return []store.ServerStatus{{State: store.StateUp}}, nil
	}}
	now := time.Date(2025, 11, 20, 12, 0, 0, 0, time.UTC)
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			v, at, err := s.get(context.Background(), now)
			if err != nil || len(v) != 1 || !at.Equal(now) {
				t.Errorf("get = %v, %v, %v", v, at, err)
			}
		})
	}
	// Let the readers pile up behind the first read, then let it finish.
	time.Sleep(20 * time.Millisecond)
	close(release)
	wg.Wait()
	if n := reads.Load(); n != 1 {
		t.Errorf("%d reads for 20 readers, want 1", n)
	}
	// Within the period, a later clock still gets the statuses of the read and their instant.
	if _, at, _ := s.get(context.Background(), now.Add(time.Minute)); !at.Equal(now) || reads.Load() != 1 {
		t.Errorf("a reader within the period read again or lost the instant (%v)", at)
	}
}

func TestStatusSnapshotRetriesAfterAFailedRead(t *testing.T) {
	t.Parallel()
	fail := errors.New("database away")
	var calls atomic.Int32
	s := &statusSnapshot{ttl: time.Hour, read: func(context.Context, time.Time) ([]store.ServerStatus, error) {
		if calls.Add(1) == 1 {
			return nil, fail
		}
		return nil, nil
	}}
	if _, _, err := s.get(context.Background(), time.Now()); !errors.Is(err, fail) {
		t.Fatalf("first get: %v, want the read's error", err)
	}
	v, _, err := s.get(context.Background(), time.Now())
	if err != nil || v == nil || calls.Load() != 2 {
		t.Errorf("second get = %v, %v after %d reads; want an empty, kept result", v, err, calls.Load())
	}
	if _, _, _ = s.get(context.Background(), time.Now()); calls.Load() != 2 {
		t.Error("an empty fleet is read again within the period")
	}
}

func TestStatusSnapshotWithoutTTLAlwaysReads(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	s := &statusSnapshot{read: func(context.Context, time.Time) ([]store.ServerStatus, error) {
		calls.Add(1)
		return nil, nil
	}}
	for range 3 {
		if _, _, err := s.get(context.Background(), time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	if calls.Load() != 3 {
		t.Errorf("%d reads, want 3", calls.Load())
	}
}
