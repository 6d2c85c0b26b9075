package monitor

import (
	"sync"
	"time"
)

// runnerIdle is how long a runner waits for another run before it ends.
const runnerIdle = 10 * time.Second

// runners runs the worker's runs on goroutines that outlive them. A run probes down a deep
// call stack, which a new goroutine grows to, in copies, on every run (runtime.morestack);
// a runner keeps the stack it grew for the next run. The one that ended last runs the next,
// so that a few stay busy and their stacks in use, while the rest end after runnerIdle.
type runners struct {
	mu   sync.Mutex
	idle []chan func() // waiting runners, the one that ended last at the end
	quit chan struct{}
}

func newRunners() *runners { return &runners{quit: make(chan struct{})} }

// run runs f on an idle runner, or on a new one.
func (r *runners) run(f func()) {
	r.mu.Lock()
	if n := len(r.idle); n > 0 {
		next := r.idle[n-1]
		r.idle = r.idle[:n-1]
		r.mu.Unlock()
		next <- f // never blocks: the runner waits on it, alone
		return
	}
	r.mu.Unlock()
	go r.loop(f)
}

// stop ends the idle runners, and each busy one when its run ends.
func (r *runners) stop() { close(r.quit) }

func (r *runners) loop(f func()) {
	next := make(chan func(), 1)
	timer := time.NewTimer(runnerIdle)
	defer timer.Stop()
	for {
		f()
		select {
		case <-r.quit:
			return
		default:
		}
		r.mu.Lock()
		r.idle = append(r.idle, next)
		r.mu.Unlock()
		timer.Reset(runnerIdle)
		select {
		case f = <-next:
			continue
		case <-timer.C:
		case <-r.quit:
		}
		if !r.leave(next) {
			f = <-next // taken off the idle list by run, which sends
			continue
		}
		return
	}
}

// leave takes a runner off the idle list; false if run took it first.
func (r *runners) leave(next chan func()) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, c := range r.idle {
		if c == next {
			r.idle = append(r.idle[:i], r.idle[i+1:]...)
			return true
		}
	}
	return false
}
