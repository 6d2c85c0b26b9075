package monitor

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func idleRunners(r *runners) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.idle)
}

func waitIdle(t *testing.T, r *runners, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for idleRunners(r) != n {
		if time.Now().After(deadline) {
			t.Fatalf("%d idle runners, want %d", idleRunners(r), n)
		}
		time.Sleep(time.Millisecond)
	}
}

// Runs one after the other go to the same runner, the one that ended last; stopping ends
// the runners that wait.
func TestARunnerThatEndedRunsTheNextRun(t *testing.T) {
	t.Parallel()
	r := newRunners()
	for range 20 {
		done := make(chan struct{})
		r.run(func() { close(done) })
		<-done
		waitIdle(t, r, 1)
	}
	// Two at once need two runners; then both wait.
	release := make(chan struct{})
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		r.run(func() { <-release; wg.Done() })
	}
	close(release)
	wg.Wait()
	waitIdle(t, r, 2)
	r.stop()
	waitIdle(t, r, 0)
}

// Every run handed over is run once, whatever stopping meets.
func TestEveryRunIsRunOnceWhileRunnersStop(t *testing.T) {
	t.Parallel()
	r := newRunners()
	const runs = 2000
	var ran atomic.Int64
	var wg sync.WaitGroup
	for i := range runs {
		wg.Add(1)
		if i == runs/2 {
			r.stop()
		}
		r.run(func() { ran.Add(1); wg.Done() })
	}
	wg.Wait()
	if n := ran.Load(); n != runs {
		t.Errorf("%d runs ran, want %d", n, runs)
	}
}
