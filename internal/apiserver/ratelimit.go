package apiserver

import (
	"net"
	"net/http"
	"net/netip"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// maxLimitedClients bounds the buckets a limiter keeps; past it, idle ones are dropped.
const maxLimitedClients = 10000

// clientLimiter is a token bucket per client address.
type clientLimiter struct {
	every rate.Limit
	burst int
	now   func() time.Time

	mu      sync.Mutex
	buckets map[string]*clientBucket
}

type clientBucket struct {
	lim  *rate.Limiter
	seen time.Time
}

func newClientLimiter(every rate.Limit, burst int, now func() time.Time) *clientLimiter {
	return &clientLimiter{every: every, burst: burst, now: now, buckets: map[string]*clientBucket{}}
}

// allow takes a token from the client's bucket and reports whether there was one.
func (l *clientLimiter) allow(client string) bool {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.buckets[client]
	if b == nil {
		if len(l.buckets) >= maxLimitedClients {
			l.prune(now)
		}
		b = &clientBucket{lim: rate.NewLimiter(l.every, l.burst)}
		l.buckets[client] = b
	}
	b.seen = now
	return b.lim.AllowN(now, 1)
}

// prune drops the buckets of clients idle long enough for their bucket to be full again (they
// lose nothing), and if that frees too little, every bucket: a flood of new addresses must not
// grow memory without bound.
func (l *clientLimiter) prune(now time.Time) {
	refill := time.Minute
	if l.every > 0 {
		refill = max(refill, time.Duration(float64(l.burst)/float64(l.every)*float64(time.Second)))
	}
	for k, b := range l.buckets {
		if now.Sub(b.seen) > refill {
			delete(l.buckets, k)
		}
	}
	if len(l.buckets) >= maxLimitedClients*9/10 {
		clear(l.buckets)
	}
}

// clientKey names the client a request came from: its IP address, IPv6 by /64 since one
// host commonly holds a whole /64. Forwarding headers are not trusted: a proxy in front
// should limit on its own.
func clientKey(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	a, err := netip.ParseAddr(host)
	if err != nil {
		return host
	}
	a = a.Unmap()
	if a.Is6() {
		p, _ := a.Prefix(64)
		return p.String()
	}
	return a.String()
}
