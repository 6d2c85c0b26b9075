package monitor

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/store"
)

// batchClaimer completes leases as a database would, recording each batch: the leases of
// even sequence are held, the others lost. fail makes every batch fail.
type batchClaimer struct {
	SlotClaimer
	fail    error
	mu      sync.Mutex
	batches [][]store.Completion
}

func (b *batchClaimer) CompleteLeases(_ context.Context, cs []store.Completion) ([]bool, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.batches = append(b.batches, cs)
	if b.fail != nil {
		return nil, b.fail
	}
	done := make([]bool, len(cs))
	for i, c := range cs {
		done[i] = c.Lease.Seq%2 == 0
	}
	return done, nil
}

// The leases that end together are completed in one round trip, and each caller hears about
// its own: completed, lost, or the batch's failure.
func TestLeasesEndingTogetherAreCompletedInOneBatch(t *testing.T) {
	t.Parallel()
	failure := errors.New("database away")
	for _, tc := range []struct {
		name string
		fail error
	}{
		{"the database answers", nil},
		{"the database is away", failure},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			const leases = 40
			st := &batchClaimer{fail: tc.fail}
			q := newCompleter(st)
			errs := make([]error, leases)
			var wg sync.WaitGroup
			for i := range leases {
				wg.Go(func() {
					errs[i] = q.complete(t.Context(), store.Completion{Lease: store.Lease{ServerID: int64(i), Region: "eu", Seq: int64(i)}, NextDue: time.Now()})
				})
			}
			// Every lease is queued before the completer starts: they end together.
			for {
				q.mu.Lock()
				n := len(q.queue)
				q.mu.Unlock()
				if n == leases {
					break
				}
				time.Sleep(time.Millisecond)
			}
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			go q.run(ctx)
			wg.Wait()

			if len(st.batches) != 1 || len(st.batches[0]) != leases {
				t.Errorf("%d batches; want 1 of all %d leases", len(st.batches), leases)
			}
			for i, err := range errs {
				switch {
				case tc.fail != nil:
					if !errors.Is(err, tc.fail) {
						t.Errorf("lease %d: %v, want the batch's failure", i, err)
					}
				case i%2 == 0 && err != nil:
					t.Errorf("lease %d (held): %v, want completed", i, err)
				case i%2 == 1 && !errors.Is(err, store.ErrLeaseLost):
					t.Errorf("lease %d (lost): %v, want ErrLeaseLost", i, err)
				}
			}
		})
	}
}
