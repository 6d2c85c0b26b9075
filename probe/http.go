package probe

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpwatch/mcpwatch/internal/redact"
	"github.com/mcpwatch/mcpwatch/protocol"
)

// What the Streamable HTTP transport puts in headers besides the names of package protocol.
const (
	acceptBoth = "application/json, text/event-stream"
	// canonicalProtocolVersion is protocol.HeaderProtocolVersion as a Header map key.
	canonicalProtocolVersion = "Mcp-Protocol-Version"
)

// httpDeleteTimeout bounds the DELETE that ends a session on Close.
const httpDeleteTimeout = 3 * time.Second

// httpTransport is one Streamable HTTP connection (basic/transports, Streamable HTTP): every message is a POST to
// the endpoint, answered by one JSON body or by an event stream. A "connection" is the
// probe's notion, not TCP's: it owns a session id, a negotiated revision and an exchange
// counter, and (unless the caller gave a client) an HTTP client of its own.
type httpTransport struct {
	conn     int
	url      string // as requested
	shownURL string // as recorded (no password)
	host     string
	phases   tracedPhases // of a request to url
	// endpoint is endpointRaw as http.NewRequest parses it, for the requests to it while it is
	// url (a copy each; legacy HTTP+SSE moves url to the endpoint the stream names): parsing
	// it again for each of a probe's forty requests showed in its profile. endpointShown is
	// its Redacted form, for responseInfo.
	endpoint      *url.URL
	endpointRaw   string
	endpointShown string
	header        http.Header // the user's headers (secrets)
	w             Wire
	o             Options
	client        *http.Client
	ownClient     bool
	secrets       *redact.Redactor
	certs         *certChecker

	// base ends with Close or the dial context: every exchange and event stream hangs off it.
	base context.Context
	stop context.CancelFunc

	outMu     sync.Mutex   // orders the recording of requests with their numbering
	exchanges int          // the last exchange number handed out (1-based)
	read      atomic.Int64 // bytes read from the server on this connection

	mu        sync.Mutex
	closed    bool
	sessionID string
	version   string
	active    sync.WaitGroup // running Sends and event-stream readers
	// streams end the open event streams of POSTs by exchange number (see EndStream).
	streams map[int]context.CancelFunc

	closeOnce sync.Once
	closeErr  error
}

var (
	_ Transport    = (*httpTransport)(nil)
	_ VersionAware = (*httpTransport)(nil)
	_ streamEnder  = (*httpTransport)(nil)
)

// streamEnder is implemented by a transport that answers a request on a stream of its own
// (Streamable HTTP): the probe closes the stream of a request it gave up on, which 2026-07-28
// makes the cancellation of that request.
type streamEnder interface {
	// EndStream closes the open event stream of the exchange, reporting whether there was
	// one.
	EndStream(exchange int) bool
}

// EndStream closes the event stream the POST of the exchange opened, if it is still open.
func (t *httpTransport) EndStream(exchange int) bool {
	t.mu.Lock()
	end, ok := t.streams[exchange]
	delete(t.streams, exchange)
	t.mu.Unlock()
	if ok {
		end()
	}
	return ok
}

// limitWatcher is implemented by the session's wire: it says when the connection has read all
// it may, so that readers stop.
type limitWatcher interface {
	overLimit() (why string, over bool)
}

// dialHTTP opens a Streamable HTTP connection. Nothing is sent yet: the first exchange is the
// first Send. Event streams and in-flight exchanges end when ctx does, or at Close.
func dialHTTP(ctx context.Context, t Target, conn int, w Wire, o Options) (Transport, error) {
	o = o.WithDefaults()
	u, err := url.Parse(t.URL)
	if err != nil {
		return nil, fmt.Errorf("http transport: %w", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("http transport: URL scheme must be http or https, got %q", u.Scheme)
	}
	secrets := redact.ForHeaders(t.Header)
	tr := &httpTransport{
		conn: conn, url: t.URL, shownURL: u.Redacted(), host: u.Hostname(), phases: phasesOf(t.URL),
		header: t.Header.Clone(), w: w, o: o, secrets: secrets, certs: &certChecker{roots: o.RootCAs, skip: o.InsecureSkipVerify},
	}
	if tmpl, err := http.NewRequest(http.MethodGet, t.URL, nil); err == nil {
		tr.endpoint, tr.endpointRaw, tr.endpointShown = tmpl.URL, t.URL, tmpl.URL.Redacted()
	}
	if o.HTTPClient != nil {
		tr.client = withProbePolicy(o.HTTPClient)
	} else {
		hasCredentials := len(t.Header) > 0 || u.User != nil
		tr.client = newProbeClient(o, u, conn, hasCredentials, tr.certs)
		tr.ownClient = true
	}
	// The dial context bounds the connection's life; Close's DELETE runs on Close's context.
	tr.base, tr.stop = context.WithCancel(ctx)
	return tr, nil
}

// SetProtocolVersion is the negotiated revision: from 2025-06-18 on, every later request
// carries it in MCP-Protocol-Version.
func (t *httpTransport) SetProtocolVersion(v string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.version = v
}

// Send POSTs one message and records the answer (see Transport). The exchange is bounded by
// InitTimeout for initialize and RequestTimeout otherwise, up to the response head for an
// event stream and up to the whole body else.
func (t *httpTransport) Send(ctx context.Context, msg []byte) (int, error) {
	return t.post(ctx, msg, exchangeTarget{})
}

// post is Send with the headers of this one request as to says (its url is ignored).
func (t *httpTransport) post(ctx context.Context, msg []byte, to exchangeTarget) (int, error) {
	if err := t.enter(); err != nil {
		return -1, err
	}
	defer t.active.Done()
	if t.overLimit() {
		return -1, t.notSending("http transport")
	}
	deadline := t.deadlineFor(msg)
	if d := requestOptionsOf(ctx).deadline; d > 0 {
		deadline = d
	}
	x := t.newExchangeTo(t.base, ctx, http.MethodPost, to, msg, deadline)
	resp, err := x.do()
	if err != nil {
		x.release()
		return x.outSeq, t.exchangeFailed(x, err)
	}
	t.noteSession(resp.Header)
	info := t.responseInfo(resp)
	if resp.StatusCode == http.StatusOK && isMediaType(info.ContentType, "text/event-stream") && contentCoding(resp.Header) == "" {
		return x.outSeq, t.openStream(x, resp, info)
	}
	defer x.release()
	defer resp.Body.Close()
	return x.outSeq, t.recordBody(x, resp, info)
}

// enter registers a Send, unless the connection is closed.
func (t *httpTransport) enter() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return fmt.Errorf("http transport: %w", ErrClosed)
	}
	t.active.Add(1)
	return nil
}

// overLimit reports whether the connection has read all it may.
func (t *httpTransport) overLimit() bool {
	_, over := t.limitReached()
	return over
}

// limitReached says which limit the connection reached, if it did.
func (t *httpTransport) limitReached() (why string, over bool) {
	if t.read.Load() > t.o.Limits.MaxTotalBytes {
		return fmt.Sprintf("the connection read more than %d bytes", t.o.Limits.MaxTotalBytes), true
	}
	if lw, ok := t.w.(limitWatcher); ok {
		return lw.overLimit()
	}
	return "", false
}

// notSending is the error of a request not sent because the connection reached a limit
// earlier: it names the limit, since the request itself did nothing wrong.
func (t *httpTransport) notSending(transport string) error {
	why, _ := t.limitReached()
	if why == "" {
		why = "it reached a limit"
	}
	return fmt.Errorf("%s: not sending: the connection was given up after an earlier answer: %s: %w", transport, why, ErrLimit)
}

// deadlineFor is the time an exchange carrying msg may take: initialize may meet a server
// that is still starting.
func (t *httpTransport) deadlineFor(msg []byte) time.Duration {
	if env, ok := peekEnvelope(msg); ok && env.hasMethod && (env.method == "initialize" || env.method == methodDiscover) {
		return t.o.InitTimeout
	}
	return t.o.RequestTimeout
}

// requestHeader is what every request carries: the user's headers, then the transport's.
// The user's value slices are shared, capped so that an append copies: nothing changes a
// value in place, and a request is the most frequent thing the probe makes.
func (t *httpTransport) requestHeader(method string) http.Header {
	h := make(http.Header, len(t.header)+6)
	for name, vs := range t.header {
		h[name] = vs[:len(vs):len(vs)]
	}
	t.mu.Lock()
	sessionID, version := t.sessionID, t.version
	t.mu.Unlock()
	// One backing array for the transport's own values.
	own := make([]string, 0, 6)
	set := func(name, value string) {
		own = append(own, value)
		h[name] = own[len(own)-1 : len(own) : len(own)]
	}
	if headerValue(h, "User-Agent") == "" {
		set("User-Agent", t.o.ClientName+"/"+t.o.ClientVersion)
	}
	// The probe reads bodies as they travel and bounds them in wire bytes, so it decodes no
	// content coding; without this header any coding would be acceptable (RFC 9110, 12.5.3).
	if headerValue(h, "Accept-Encoding") == "" {
		set("Accept-Encoding", identityCoding)
	}
	if method == http.MethodPost {
		set("Content-Type", "application/json")
		set("Accept", acceptBoth)
	}
	if sessionID != "" {
		set(protocol.HeaderSessionID, sessionID)
	}
	if protocol.SendsProtocolHeader(version) {
		set(canonicalProtocolVersion, version)
	}
	return h
}

// noteSession keeps the session id of the first response that carries one.
func (t *httpTransport) noteSession(h http.Header) {
	id := headerValue(h, protocol.HeaderSessionID)
	if id == "" {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	// A stateless revision has no sessions (basic/transports, Session Management): an id minted anyway is not echoed.
	if t.sessionID == "" && !protocol.Stateless(t.version) {
		t.sessionID = id
	}
}

// Close stops every event stream and in-flight exchange, ends the session with a DELETE
// when the server issued one, and releases the client's idle connections.
func (t *httpTransport) Close(ctx context.Context) error {
	t.closeOnce.Do(func() { t.closeErr = t.shutdown(ctx) })
	return t.closeErr
}

func (t *httpTransport) shutdown(ctx context.Context) error {
	t.mu.Lock()
	t.closed = true
	sessionID := t.sessionID
	t.mu.Unlock()

	t.stop()
	done := make(chan struct{})
	go func() {
		t.active.Wait()
		close(done)
	}()
	var errs []error
	select {
	case <-done:
	case <-ctx.Done():
		errs = append(errs, fmt.Errorf("http transport: waiting for readers to stop: %w", ctx.Err()))
	}
	if sessionID != "" {
		if err := t.deleteSession(ctx); err != nil {
			errs = append(errs, err)
		}
	}
	if t.ownClient {
		t.client.CloseIdleConnections()
	}
	return errors.Join(errs...)
}

// deleteSession ends the server's session (basic/transports, Session Management), recording the exchange.
func (t *httpTransport) deleteSession(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, min(httpDeleteTimeout, t.o.RequestTimeout))
	defer cancel()
	x := t.newExchange(ctx, nil, http.MethodDelete, nil, min(httpDeleteTimeout, t.o.RequestTimeout))
	defer x.release()
	resp, err := x.do()
	if err != nil {
		return t.exchangeFailed(x, err)
	}
	defer resp.Body.Close()
	t.recordHead(x, resp, t.responseInfo(resp), true)
	return nil
}
