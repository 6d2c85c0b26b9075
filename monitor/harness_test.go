package monitor

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/internal/testkit/fixture"
	"github.com/mcpwatch/mcpwatch/protocol"
	"github.com/mcpwatch/mcpwatch/store"
)

// recorder keeps the events of every worker of a test, with the time each was heard.
type recorder struct {
	mu     sync.Mutex
	events []timedEvent
	signal chan struct{}
}

type timedEvent struct {
	Event
	at time.Time
}

func newRecorder() *recorder { return &recorder{signal: make(chan struct{}, 1)} }

func (r *recorder) trace(e Event) {
	r.mu.Lock()
	r.events = append(r.events, timedEvent{Event: e, at: time.Now()})
	r.mu.Unlock()
	select {
	case r.signal <- struct{}{}:
	default:
	}
}

func (r *recorder) of(kind EventKind) []timedEvent {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []timedEvent
	for _, e := range r.events {
		if e.Kind == kind {
			out = append(out, e)
		}
	}
	return out
}

// waitFor waits until cond holds over the events, re-checking whenever an event arrives.
func (r *recorder) waitFor(t testing.TB, within time.Duration, what string, cond func(*recorder) bool) {
	t.Helper()
	deadline := time.NewTimer(within)
	defer deadline.Stop()
	for !cond(r) {
		select {
		case <-r.signal:
		case <-deadline.C:
			t.Fatalf("not within %v: %s", within, what)
		}
	}
}

// perServer counts finished probes by server.
func (r *recorder) perServer() map[int64]int {
	out := map[int64]int{}
	for _, e := range r.of(EventProbeFinished) {
		out[e.ServerID]++
	}
	return out
}

// fixtureFarm is one MCP fixture served on loopback, reachable under any path, so that many
// servers (one path each) cost one listener.
type fixtureFarm struct {
	url string
	// hold, while set, keeps every request waiting (a server that is slow to answer).
	mu   sync.Mutex
	hold chan struct{}
}

func newFixtureFarm(t testing.TB, delay time.Duration) *fixtureFarm {
	t.Helper()
	srv, err := fixture.New(fixture.Config{})
	if err != nil {
		t.Fatal(err)
	}
	f := &fixtureFarm{}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		hold := f.hold
		f.mu.Unlock()
		if hold != nil {
			select {
			case <-hold:
			case <-r.Context().Done():
				return
			}
		}
		if delay > 0 {
			time.Sleep(delay)
		}
		srv.Handler().ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	f.url = ts.URL
	return f
}

func (f *fixtureFarm) holdRequests() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.hold = make(chan struct{})
}

func (f *fixtureFarm) release() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.hold != nil {
		close(f.hold)
		f.hold = nil
	}
}

// servers makes n HTTP servers on the farm, named prefix-000..., one path each.
func (f *fixtureFarm) servers(prefix string, n int, schedule string, timeout time.Duration) []store.Server {
	out := make([]store.Server, n)
	for i := range out {
		name := fmt.Sprintf("%s-%03d", prefix, i)
		out[i] = store.Server{Name: name, Source: store.SourceConfig, Transport: protocol.TransportHTTP,
			URL: f.url + "/" + name, Schedule: schedule, Timeout: timeout, Enabled: true}
	}
	return out
}

// syncServers writes servers as the config file's and announces the region.
func syncServers(t testing.TB, st *store.Store, region string, servers []store.Server) map[int64]store.Server {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := st.RegisterRegion(ctx, region); err != nil {
		t.Fatal(err)
	}
	if _, err := st.SyncServers(ctx, store.SourceConfig, servers); err != nil {
		t.Fatal(err)
	}
	stored, err := st.Servers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	byID := map[int64]store.Server{}
	for _, s := range stored {
		byID[s.ID] = s
	}
	return byID
}

// runningWorker is a worker in its own goroutine with its own buffer, as a process would be.
type runningWorker struct {
	w      *Worker
	buf    *Buffer
	stopCh chan struct{}
	cancel context.CancelFunc
	done   chan error
	once   sync.Once
}

func startWorker(t testing.TB, st *store.Store, cfg WorkerConfig) *runningWorker {
	t.Helper()
	return startWorkerKeeping(t, st, cfg, TranscriptsFailing)
}

// startWorkerKeeping is startWorker with the transcripts policy given.
func startWorkerKeeping(t testing.TB, st *store.Store, cfg WorkerConfig, transcripts string) *runningWorker {
	t.Helper()
	buf := openBuffer(t, st, BufferConfig{Dir: t.TempDir(), Name: cfg.Name})
	if cfg.Region == "" {
		cfg.Region = "eu"
	}
	if cfg.ClaimInterval == 0 {
		cfg.ClaimInterval = 20 * time.Millisecond
	}
	if cfg.PollInterval == 0 {
		cfg.PollInterval = 250 * time.Millisecond
	}
	// The workers' tests are about scheduling and storing: their probes leave the rule probes
	// out (as a monitor does but once a day here), which makes them light enough that a
	// machine busy with other tests still keeps every schedule.
	p := testProberWith(t, nil, ProberConfig{Transcripts: transcripts, RuleProbes: 24 * time.Hour})
	w, err := NewWorker(st, p, buf, cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	rw := &runningWorker{w: w, buf: buf, stopCh: make(chan struct{}), cancel: cancel, done: make(chan error, 1)}
	go func() { rw.done <- w.run(ctx, rw.stopCh) }()
	t.Cleanup(func() { rw.kill(t) })
	return rw
}

// stop shuts the worker down gracefully and closes its buffer.
func (rw *runningWorker) stop(t testing.TB) {
	t.Helper()
	rw.once.Do(func() {
		close(rw.stopCh)
		rw.wait(t, nil)
		closeBuffer(t, rw.buf, 30*time.Second)
		rw.cancel()
	})
}

// kill ends the worker as if its process died: nothing completed, released or flushed.
func (rw *runningWorker) kill(t testing.TB) {
	t.Helper()
	rw.once.Do(func() {
		rw.cancel()
		rw.wait(t, context.Canceled)
		ctx, cancel := context.WithCancel(context.Background())
		cancel() // the buffer is abandoned, not flushed: it only lets go of its spool file
		_ = rw.buf.Close(ctx)
	})
}

func (rw *runningWorker) wait(t testing.TB, want error) {
	t.Helper()
	select {
	case err := <-rw.done:
		if err != want {
			t.Errorf("worker Run returned %v, want %v", err, want)
		}
	case <-time.After(time.Minute):
		t.Fatal("worker did not return within a minute")
	}
}
