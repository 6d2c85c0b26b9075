package probe

import (
	"sync"
	"time"
)

// sendClock keeps the frame times of stdin writes and stdout reads in causal order. An Out
// frame is stamped when its write returned (latency counts from the last byte sent), but the
// writing goroutine may be descheduled between the write and its clock reading while the
// reader already stamps the answer; the answer would then seem to precede its request. So
// when a read returns while a write is in flight, that write is stamped when it started
// instead (the true end of the write lies between the two, so the latency stays positive and
// errs by at most the write's own duration), and a read after the write is never stamped
// before it. Nothing here blocks: the lock only covers clock readings, never I/O.
type sendClock struct {
	now func() time.Duration

	mu         sync.Mutex
	inflight   bool
	start      time.Duration // when the write in flight started
	readDuring bool          // a read returned while it was in flight
	lastOut    time.Duration
}

// writeStarted is called before the write of a message begins.
func (c *sendClock) writeStarted() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.inflight = true
	c.start = max(c.now(), c.lastOut)
	c.readDuring = false
}

// writeDone is called once the write returned; it gives the Out frame's time.
func (c *sendClock) writeDone() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	at := c.now()
	if c.readDuring {
		at = c.start
	}
	c.inflight = false
	c.lastOut = max(c.lastOut, at)
	return at
}

// writeFailed ends an in-flight write that produced no frame.
func (c *sendClock) writeFailed() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.inflight = false
}

// read gives the time of data that a read has just returned.
func (c *sendClock) read() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	at := max(c.now(), c.lastOut)
	if c.inflight {
		c.readDuring = true
	}
	return at
}
