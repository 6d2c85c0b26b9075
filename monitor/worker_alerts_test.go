package monitor

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/internal/testkit/syncbuf"

	"github.com/mcpwatch/mcpwatch/alert"
	"github.com/mcpwatch/mcpwatch/store"
)

// fakeEngine stands for the alert engine: it records what it is handed and answers as told.
type fakeEngine struct {
	answer func(ctx context.Context) error
	mu     sync.Mutex
	seen   []alert.Observation
}

func (f *fakeEngine) Observe(ctx context.Context, obs alert.Observation) error {
	f.mu.Lock()
	f.seen = append(f.seen, obs)
	f.mu.Unlock()
	return f.answer(ctx)
}

func (f *fakeEngine) observed() []alert.Observation {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]alert.Observation(nil), f.seen...)
}

// Whatever the alert engine does, every run is stored and its slot completed on time: an
// engine that fails, refuses the run or hangs costs alerts, never runs or schedules.
func TestWorkerHandsEveryStoredRunToTheAlertEngine(t *testing.T) {
	t.Parallel()
	const alertTimeout = 300 * time.Millisecond
	tests := []struct {
		name   string
		answer func(ctx context.Context) error
		log    string // in the worker's log
	}{
		{"it judges", func(context.Context) error { return nil }, ""},
		{"it fails", func(context.Context) error { return errors.New("alert: observe: connection reset") },
			"run not judged for alerts"},
		{"it cannot read the run", func(context.Context) error {
			return fmt.Errorf("%w: no region", alert.ErrInvalidObservation)
		}, "run not judged for alerts: the engine cannot read it"},
		{"it hangs", func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() },
			"context deadline exceeded"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			db := newTestDB(t)
			farm := newFixtureFarm(t, 0)
			syncServers(t, db.direct, "eu", farm.servers("srv", 2, "@every 1s", 5*time.Second))
			engine := &fakeEngine{answer: tt.answer}
			logs := &syncbuf.Buffer{}
			rec := newRecorder()
			w := startWorker(t, openStore(t, db.URL), WorkerConfig{Name: "w", Concurrency: 2, MaxTimeout: 5 * time.Second,
				MaxJitter: -1, Alerts: engine, AlertTimeout: alertTimeout, Trace: rec.trace,
				Logger: slog.New(slog.NewTextHandler(logs, nil))})
			rec.waitFor(t, time.Minute, "6 runs", func(r *recorder) bool { return len(r.of(EventProbeFinished)) >= 6 })
			w.stop(t)

			finished := rec.of(EventProbeFinished)
			stored := storedIDs(t, db.direct)
			judged := map[string]alert.Observation{}
			for _, o := range engine.observed() {
				judged[o.RunID] = o
			}
			for _, e := range finished {
				if stored[e.Run] != 1 {
					t.Errorf("run %s of %s stored %d times, want once", e.Run, e.Server, stored[e.Run])
				}
				o, ok := judged[e.Run.String()]
				if !ok {
					t.Errorf("run %s of %s was not handed to the engine", e.Run, e.Server)
					continue
				}
				if o.ServerID != e.ServerID || o.Server != e.Server || o.Region != "eu" || o.Outcome != e.Outcome || o.Outcome != store.OutcomeUp {
					t.Errorf("observation %+v of the run %+v", o, e.Event)
				}
			}
			if len(judged) != len(finished) {
				t.Errorf("%d runs judged, %d finished: each once", len(judged), len(finished))
			}
			// A hanging engine holds the slot for the alert timeout, not longer: the next
			// slots of a server come one second apart whatever the engine does.
			for _, e := range finished {
				if e.Lag > time.Second+alertTimeout {
					t.Errorf("%s: a slot started %v late", e.Server, e.Lag)
				}
			}
			if !strings.Contains(logs.String(), tt.log) {
				t.Errorf("the log lacks %q:\n%s", tt.log, logs.String())
			}
		})
	}
}
