package probe

import (
	"context"
	"crypto/tls"
	"net"
	"net/http/httptrace"
	"net/url"
	"sync"
	"time"
)

// exchangeTrace collects the phase times of one HTTP exchange from net/http/httptrace. The
// hooks run on the transport's goroutines, hence the lock. Times are frame times (offsets
// from the transcript start), so they compare directly with frames' At.
type exchangeTrace struct {
	clock func() time.Duration
	// onWrote is called once the request was written without error (it may be called again
	// when net/http retries on a fresh connection).
	onWrote func(at time.Duration)

	mu                 sync.Mutex
	start              time.Duration
	dnsStart, dnsDone  time.Duration
	connStart, connEnd time.Duration
	tlsStart, tlsEnd   time.Duration
	wrote, firstByte   time.Duration
	reused             bool
	openedBy           int // see HTTPTiming.OpenedBy
}

func newExchangeTrace(clock func() time.Duration, onWrote func(time.Duration)) *exchangeTrace {
	return &exchangeTrace{clock: clock, onWrote: onWrote, start: clock()}
}

func (x *exchangeTrace) set(field *time.Duration) {
	now := x.clock()
	x.mu.Lock()
	*field = now
	x.mu.Unlock()
}

// tracedPhases says which optional phases a request to a URL goes through. A request to an
// IP address does no DNS lookup and a plain-http one no handshake, so those hooks are left
// out: each is an allocation, on every request the probe makes.
type tracedPhases struct{ dns, tls bool }

// phasesOf is the tracedPhases of a request to target. A connection works it out once for
// its own URL: parsing it again on every request showed in the probe's profile.
func phasesOf(target string) tracedPhases {
	u, err := url.Parse(target)
	if err != nil {
		return tracedPhases{dns: true, tls: true}
	}
	return tracedPhases{dns: net.ParseIP(u.Hostname()) == nil, tls: u.Scheme != "http"}
}

// hooks are the trace's callbacks for a request that goes through phases, for a request
// net/http carries (https, or redirects followed). A plain-http request of the probe's own
// transport reports to the trace directly instead (see withExchangeTrace).
func (x *exchangeTrace) hooks(phases tracedPhases) *httptrace.ClientTrace {
	ct := &httptrace.ClientTrace{
		GotConn: func(info httptrace.GotConnInfo) {
			b, borrowed := info.Conn.(borrowedConn)
			x.gotConn(info.Reused, borrowed, b.opener)
		},
		ConnectStart:         func(string, string) { x.connectStart() },
		ConnectDone:          func(string, string, error) { x.set(&x.connEnd) },
		WroteRequest:         func(info httptrace.WroteRequestInfo) { x.wroteRequest(info.Err) },
		GotFirstResponseByte: func() { x.set(&x.firstByte) },
	}
	if phases.tls {
		ct.TLSHandshakeStart = func() { x.set(&x.tlsStart) }
		ct.TLSHandshakeDone = func(tls.ConnectionState, error) { x.set(&x.tlsEnd) }
	}
	if phases.dns {
		ct.DNSStart = func(httptrace.DNSStartInfo) { x.set(&x.dnsStart) }
		ct.DNSDone = func(httptrace.DNSDoneInfo) { x.set(&x.dnsDone) }
	}
	return ct
}

// gotConn notes the socket an exchange goes out on: reused or new, and the probe connection
// that opened it when it was borrowed.
func (x *exchangeTrace) gotConn(reused, borrowed bool, opener int) {
	x.mu.Lock()
	x.reused = reused
	if borrowed {
		x.openedBy = opener
	}
	x.mu.Unlock()
}

// connectStart notes a dial starting; several addresses may be tried, and the phase starts
// with the first.
func (x *exchangeTrace) connectStart() {
	now := x.clock()
	x.mu.Lock()
	if x.connStart == 0 {
		x.connStart = now
	}
	x.mu.Unlock()
}

// wroteRequest notes the request written, unless writing it failed.
func (x *exchangeTrace) wroteRequest(err error) {
	if err != nil {
		return
	}
	now := x.clock()
	x.mu.Lock()
	x.wrote = now
	x.mu.Unlock()
	if x.onWrote != nil {
		x.onWrote(now)
	}
}

// exchangeTraceKey is the context key of the trace a request reports to directly.
type exchangeTraceKey struct{}

// withExchangeTrace makes the requests of ctx report their phases to x directly, for the
// probe's plain-http transport: net/http's hooks cost a closure each and the context that
// carries them on every request, a tenth of the allocations of an exchange. Only for a
// request to an IP address: a name's lookup is timed by net's own hooks (httptrace).
func withExchangeTrace(ctx context.Context, x *exchangeTrace) context.Context {
	return context.WithValue(ctx, exchangeTraceKey{}, x)
}

// exchangeTraceOf is the trace the request of ctx reports to directly (nil for none).
func exchangeTraceOf(ctx context.Context) *exchangeTrace {
	x, _ := ctx.Value(exchangeTraceKey{}).(*exchangeTrace)
	return x
}

// wroteAt is when the request was written (0 if that was not observed).
func (x *exchangeTrace) wroteAt() time.Duration {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.wrote
}

// firstByteAt is when the first response byte arrived, or now if that was not observed.
func (x *exchangeTrace) firstByteAt() time.Duration {
	x.mu.Lock()
	at := x.firstByte
	x.mu.Unlock()
	if at == 0 {
		at = x.clock()
	}
	return at
}

// timing is the phase split of the exchange, ending at end.
func (x *exchangeTrace) timing(end time.Duration) *HTTPTiming {
	x.mu.Lock()
	defer x.mu.Unlock()
	span := func(from, to time.Duration) time.Duration {
		if from == 0 || to < from {
			return 0
		}
		return to - from
	}
	return &HTTPTiming{
		DNS:       span(x.dnsStart, x.dnsDone),
		Connect:   span(x.connStart, x.connEnd),
		TLS:       span(x.tlsStart, x.tlsEnd),
		Wrote:     span(x.start, x.wrote),
		FirstByte: span(x.wrote, x.firstByte),
		Total:     span(x.start, end),
		Reused:    x.reused,
		OpenedBy:  x.openedBy,
	}
}
