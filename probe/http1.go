package probe

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"sync"
)

// http1Transport is the round tripper of the probe's plain-http connections: HTTP/1.1 on
// connections it dials itself, each request written and its response head read on the
// calling goroutine.
//
// Why not http.Transport: for plain http the probe uses nothing it adds over this (no proxy,
// no compression, no HTTP/2 without TLS), and it costs two goroutines per connection and a
// hand-off between them on every request. A probe makes about forty requests on eight short
// connections (which now share their sockets, see http1Shared); without that machinery it spends about 0.6 ms less CPU (of 5.5) and runs 7%
// faster (BenchmarkHTTPProbe). The wire format is still net/http's own: responses are read
// by http.ReadResponse, and requests written byte for byte as Request.Write writes them
// (writeRequestHead, which leaves to Request.Write whatever it does not reproduce), except
// for the one request of a rule probe that pads header values (see writeRequest). https
// targets keep http.Transport, which brings HTTP/2.
type http1Transport struct {
	dial           func(ctx context.Context, network, addr string) (net.Conn, error)
	maxHeaderBytes int64
	// other carries what is not plain http: a protected resource metadata document the
	// server names at an https URL (the client follows no redirect to another scheme).
	other interface {
		http.RoundTripper
		CloseIdleConnections()
	}

	// idle holds the connections kept alive between requests: the transport's own, or those
	// the probe's rule connections share (see http1Shared).
	idle *http1Idle
	// owner is the probe connection (Conn) the transport serves: a socket it dials is
	// recorded as opened by it, so that another connection's exchange over it says so.
	owner int
	// shared: idle belongs to the probe, which closes it once every connection is done.
	shared bool
}

// http1Idle is a set of idle keep-alive connections.
type http1Idle struct {
	mu    sync.Mutex
	conns []*http1Conn
}

var _ http.RoundTripper = (*http1Transport)(nil)

// Bounds of http1Transport.
const (
	http1MaxIdle    = 4
	http1BufferSize = 4 << 10
	// http1MaxInterim bounds the 1xx answers before the real one, as http.Transport does: a
	// server that sends nothing else would otherwise hold the probe until its deadline.
	http1MaxInterim = 5
)

// Errors of a response head the probe does not read to its end.
var (
	errHeaderTooLarge = errors.New("the response head is longer than the probe reads")
	errTooManyInterim = fmt.Errorf("more than %d interim (1xx) responses", http1MaxInterim)
)

// http1Conn is one connection. Its reader counts what the response head may still take.
type http1Conn struct {
	addr   string // host:port it was dialled to
	opener int    // the probe connection (Conn) whose request dialled it
	nc     net.Conn
	idle   *idlePeek // made when the connection first goes idle
	head   headBudget
	br     *bufio.Reader
	bw     *bufio.Writer
}

// headBudget stops a response head that never ends: left is what it may still read, or
// negative while a body is read (a body's bounds are the caller's).
type headBudget struct {
	r    io.Reader
	left int64
}

func (h *headBudget) Read(p []byte) (int, error) {
	if h.left == 0 {
		return 0, errHeaderTooLarge
	}
	if h.left > 0 && int64(len(p)) > h.left {
		p = p[:h.left]
	}
	n, err := h.r.Read(p)
	if h.left > 0 {
		h.left -= int64(n)
	}
	return n, err
}

// RoundTrip sends req on an idle connection to its host or a new one. An idle connection
// the server closed meanwhile is not used (see idlePeek); one it closed just as the
// request went out is retried on a fresh connection only when the request could not be
// written, as http.Transport does for a request that is not idempotent.
func (t *http1Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.Scheme != "http" {
		return t.other.RoundTrip(req)
	}
	ctx := req.Context()
	trace := traceOf(ctx)
	sent := req
	for {
		c, reused, err := t.conn(ctx, req, trace)
		if err != nil {
			closeRequestBody(sent)
			return nil, err
		}
		trace.gotConn(c, t.owner, reused)
		resp, written, err := t.exchange(ctx, c, sent, req, trace)
		if err == nil {
			return resp, nil
		}
		if !reused || written || ctx.Err() != nil {
			return nil, err
		}
		retry, rerr := rewound(req)
		if rerr != nil {
			return nil, err
		}
		sent = retry
	}
}

// http1Trace is where the transport reports an exchange's phases: the probe's exchangeTrace
// when the request carries one (withExchangeTrace), else the request's httptrace hooks, if
// any.
type http1Trace struct {
	x  *exchangeTrace
	ct *httptrace.ClientTrace
}

func traceOf(ctx context.Context) http1Trace {
	if x := exchangeTraceOf(ctx); x != nil {
		return http1Trace{x: x}
	}
	return http1Trace{ct: httptrace.ContextClientTrace(ctx)}
}

// dialing brackets a dial: net reports it to httptrace hooks itself, not to an exchangeTrace.
func (tr http1Trace) dialing() (done func()) {
	if tr.x == nil {
		return func() {}
	}
	tr.x.connectStart()
	return func() { tr.x.set(&tr.x.connEnd) }
}

func (tr http1Trace) gotConn(c *http1Conn, owner int, reused bool) {
	borrowed := c.opener != owner
	switch {
	case tr.x != nil:
		tr.x.gotConn(reused, borrowed, c.opener)
	case tr.ct != nil && tr.ct.GotConn != nil:
		var nc net.Conn = c.nc
		if borrowed {
			nc = borrowedConn{Conn: c.nc, opener: c.opener}
		}
		tr.ct.GotConn(httptrace.GotConnInfo{Conn: nc, Reused: reused})
	}
}

// wroteRequest reports the request written; byNetHTTP says net/http's Request.Write wrote
// it, which has reported it to the httptrace hooks itself.
func (tr http1Trace) wroteRequest(err error, byNetHTTP bool) {
	switch {
	case tr.x != nil:
		tr.x.wroteRequest(err)
	case tr.ct != nil && tr.ct.WroteRequest != nil && !byNetHTTP:
		tr.ct.WroteRequest(httptrace.WroteRequestInfo{Err: err})
	}
}

func (tr http1Trace) gotFirstResponseByte() {
	switch {
	case tr.x != nil:
		tr.x.set(&tr.x.firstByte)
	case tr.ct != nil && tr.ct.GotFirstResponseByte != nil:
		tr.ct.GotFirstResponseByte()
	}
}

// rewound is req with a fresh copy of its body, for sending it once more.
func rewound(req *http.Request) (*http.Request, error) {
	if req.Body == nil || req.Body == http.NoBody {
		return req, nil
	}
	if req.GetBody == nil {
		return nil, errors.New("the request body cannot be sent twice")
	}
	body, err := req.GetBody()
	if err != nil {
		return nil, err
	}
	r := *req
	r.Body = body
	return &r, nil
}

func closeRequestBody(req *http.Request) {
	if req.Body != nil {
		_ = req.Body.Close()
	}
}

// conn takes an idle connection to the request's host or dials one.
func (t *http1Transport) conn(ctx context.Context, req *http.Request, trace http1Trace) (*http1Conn, bool, error) {
	port := req.URL.Port()
	if port == "" {
		port = "80"
	}
	addr := net.JoinHostPort(req.URL.Hostname(), port)
	if c := t.idle.take(addr); c != nil {
		return c, true, nil
	}
	dialed := trace.dialing()
	nc, err := t.dial(ctx, "tcp", addr)
	dialed()
	if err != nil {
		return nil, false, err
	}
	c := &http1Conn{addr: addr, opener: t.owner, nc: nc, head: headBudget{r: nc, left: -1}}
	c.br = bufio.NewReaderSize(&c.head, http1BufferSize)
	c.bw = bufio.NewWriterSize(nc, http1BufferSize)
	return c, false, nil
}

// take takes the newest idle connection to addr that can carry a request, closing those
// that cannot; nil if there is none.
func (p *http1Idle) take(addr string) *http1Conn {
	for {
		var c *http1Conn
		p.mu.Lock()
		for i := len(p.conns) - 1; i >= 0; i-- {
			if p.conns[i].addr == addr {
				c = p.conns[i]
				p.conns = append(p.conns[:i], p.conns[i+1:]...)
				break
			}
		}
		p.mu.Unlock()
		if c == nil {
			return nil
		}
		if c.br.Buffered() == 0 && !c.idle.connUnusable() {
			return c
		}
		_ = c.nc.Close()
	}
}

// put keeps c for the next request; the oldest idle connection makes room if need be.
func (p *http1Idle) put(c *http1Conn) {
	if c.idle == nil {
		c.idle = newIdlePeek(c.nc)
	}
	var evicted *http1Conn
	p.mu.Lock()
	if len(p.conns) == http1MaxIdle {
		evicted = p.conns[0]
		p.conns = p.conns[1:]
	}
	p.conns = append(p.conns, c)
	p.mu.Unlock()
	if evicted != nil {
		_ = evicted.nc.Close()
	}
}

// close closes every idle connection.
func (p *http1Idle) close() {
	p.mu.Lock()
	idle := p.conns
	p.conns = nil
	p.mu.Unlock()
	for _, c := range idle {
		_ = c.nc.Close()
	}
}

// CloseIdleConnections closes the idle connections (http.Client.CloseIdleConnections calls
// it when the probe closes its connection), except those the probe's connections share:
// the others may still use them, and the probe closes them at its end.
func (t *http1Transport) CloseIdleConnections() {
	t.other.CloseIdleConnections()
	if !t.shared {
		t.idle.close()
	}
}

// borrowedConn is the connection a GotConn hook is given for a socket another probe
// connection dialled: the exchange is recorded as carried by it (HTTPTiming.OpenedBy).
type borrowedConn struct {
	net.Conn
	opener int
}

// exchange writes sent on c and reads the response head; written says the request went
// out whole (a failure after that is not retried). orig is the request the response belongs
// to. The connection is given up on any error.
func (t *http1Transport) exchange(ctx context.Context, c *http1Conn, sent, orig *http.Request, trace http1Trace) (resp *http.Response, written bool, err error) {
	// Cancelling the request closes its connection at once, as http.Transport does: pending
	// I/O ends, and the server sees the hang-up even if nobody reads or closes the body.
	// Once the body is done the hook is removed.
	stop := context.AfterFunc(ctx, func() { _ = c.nc.Close() })
	fail := func(err error) (*http.Response, bool, error) {
		stop()
		_ = c.nc.Close()
		if cerr := ctx.Err(); cerr != nil {
			err = cerr
		}
		return nil, written, err
	}
	// As Request.Write did, the request is reported written once it is in the buffer (the
	// Out frame's time), and again once it went out (the start of the wait for the answer).
	byNetHTTP, err := writeRequest(c.bw, sent)
	trace.wroteRequest(err, byNetHTTP)
	if err == nil {
		err = c.bw.Flush()
	}
	trace.wroteRequest(err, false)
	if err != nil {
		return fail(err)
	}
	written = true
	first := true
	for interim := 0; ; interim++ {
		if interim > http1MaxInterim {
			return fail(errTooManyInterim)
		}
		c.head.left = t.maxHeaderBytes
		if _, err := c.br.Peek(1); err != nil {
			return fail(err)
		}
		if first {
			trace.gotFirstResponseByte()
		}
		first = false
		resp, err = http.ReadResponse(c.br, orig)
		if err != nil {
			if errors.Is(err, errHeaderTooLarge) {
				err = fmt.Errorf("server response headers exceeded %d bytes: %w", t.maxHeaderBytes, err)
			}
			return fail(err)
		}
		// 1xx answers are interim (101 switches protocols, which the probe never asks for).
		if resp.StatusCode < 100 || resp.StatusCode >= 200 || resp.StatusCode == http.StatusSwitchingProtocols {
			break
		}
	}
	c.head.left = -1
	body := &http1Body{rc: resp.Body, c: c, t: t, stop: stop, ctx: ctx, keep: !resp.Close && !orig.Close}
	if resp.Body == http.NoBody {
		body.finish(true)
	}
	resp.Body = body
	return resp, true, nil
}

// http1Body is a response body that gives its connection back when read to the end and
// closes it otherwise.
type http1Body struct {
	rc   io.ReadCloser
	c    *http1Conn
	t    *http1Transport
	stop func() bool
	ctx  context.Context
	keep bool

	mu   sync.Mutex
	done bool
}

func (b *http1Body) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	switch {
	case err == io.EOF:
		b.finish(true)
	case err != nil:
		b.finish(false)
		if cerr := b.ctx.Err(); cerr != nil {
			err = cerr
		}
	}
	return n, err
}

// Close ends the body. One not read to its end may never end (an event stream): the
// connection is closed first, since closing net/http's body would read the rest.
func (b *http1Body) Close() error {
	b.finish(false)
	return b.rc.Close()
}

// finish releases the connection once: back to the pool after a whole body on a connection
// that stays open (and whose request was not cancelled meanwhile), closed otherwise.
func (b *http1Body) finish(whole bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.done {
		return
	}
	b.done = true
	if b.stop() && whole && b.keep {
		b.t.idle.put(b.c)
		return
	}
	_ = b.c.nc.Close()
}
