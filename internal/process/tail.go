package process

import "sync"

// Tail keeps the last bytes written to it and counts the bytes that fell out: the stderr
// of a child process, which may log without end, where the tail is what explains a crash.
// It is safe for one writer and concurrent readers.
type Tail struct {
	max int

	mu      sync.Mutex
	buf     []byte // grows to max, then is overwritten in a circle
	head    int    // once len(buf) == max: index of the oldest byte
	dropped int64
}

// NewTail keeps up to limit bytes; with limit 0 or less it keeps none and counts them all.
func NewTail(limit int) *Tail {
	return &Tail{max: limit}
}

// Write keeps p (or its tail) and never fails, so that it can sit behind an io.Copy.
func (r *Tail) Write(p []byte) (int, error) {
	n := len(p)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.max <= 0 {
		r.dropped += int64(n)
		return n, nil
	}
	if len(p) >= r.max {
		// Everything held so far and the front of p fall out.
		r.dropped += int64(len(r.buf)) + int64(len(p)-r.max)
		r.buf = append(r.buf[:0], p[len(p)-r.max:]...)
		r.head = 0
		return n, nil
	}
	if room := r.max - len(r.buf); room > 0 {
		k := min(room, len(p))
		r.buf = append(r.buf, p[:k]...)
		p = p[k:]
	}
	for len(p) > 0 {
		k := copy(r.buf[r.head:], p)
		r.head = (r.head + k) % r.max
		r.dropped += int64(k)
		p = p[k:]
	}
	return n, nil
}

// Bytes returns a copy of the kept tail, oldest byte first.
func (r *Tail) Bytes() []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]byte, 0, len(r.buf))
	out = append(out, r.buf[r.head:]...)
	return append(out, r.buf[:r.head]...)
}

// Dropped is the number of bytes written but no longer kept.
func (r *Tail) Dropped() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.dropped
}
