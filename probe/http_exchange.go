package probe

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// errReadBudget: the connection read more than Limits.MaxTotalBytes.
var errReadBudget = fmt.Errorf("read more than the connection may: %w", ErrLimit)

// exchange is one HTTP request/response pair of a connection.
type exchange struct {
	t        *httpTransport
	n        int // the exchange number, set when the request is recorded
	method   string
	deadline time.Duration
	req      *http.Request
	reqErr   error
	trace    *exchangeTrace

	out     Frame
	outOnce sync.Once
	outSeq  int

	onBase   bool // ends with the connection (the DELETE of Close does not)
	cancel   context.CancelFunc
	timer    *time.Timer
	timedOut atomic.Bool
	unwatch  func() bool
}

// newExchange prepares a request whose context is a child of parent, also cancelled when
// watch ends (the caller's context, which must not outlive Send for an event stream) and
// when deadline passes (until the exchange is detached).
func (t *httpTransport) newExchange(parent, watch context.Context, method string, body []byte, deadline time.Duration) *exchange {
	return t.newExchangeTo(parent, watch, method, exchangeTarget{}, body, deadline)
}

// newExchangeTo is newExchange for a request that goes elsewhere or carries other headers
// than the connection's own (see exchangeTarget).
func (t *httpTransport) newExchangeTo(parent, watch context.Context, method string, to exchangeTarget, body []byte, deadline time.Duration) *exchange {
	x := &exchange{t: t, method: method, deadline: deadline, outSeq: -1, onBase: parent == t.base}
	ctx, cancel := context.WithCancel(parent)
	x.cancel = cancel
	if watch != nil {
		x.unwatch = context.AfterFunc(watch, cancel)
	}
	x.timer = time.AfterFunc(deadline, func() {
		x.timedOut.Store(true)
		cancel()
	})

	header := t.requestHeader(method)
	t.statelessHeaders(header, body)
	if watch != nil {
		for _, p := range requestOptionsOf(watch).params {
			header.Set(p.Name, p.Value)
		}
	}
	if to.edit != nil {
		to.edit(header)
	}
	target, shown, phases := t.url, t.shownURL, t.phases
	if to.url != "" {
		target, shown, phases = to.url, redactedURL(to.url), phasesOf(to.url)
	}
	kind := KindHTTPRequest
	var rd io.Reader
	if body != nil {
		kind = KindMessage
		body = bytes.Clone(body)
		rd = bytes.NewReader(body)
	}
	x.out = Frame{Dir: Out, Kind: kind, Raw: body,
		HTTP: &HTTPInfo{Method: method, URL: shown, Header: t.secrets.Header(header)}}
	if to.followRedirects {
		ctx = withRedirectsFollowed(ctx)
	}
	if len(to.pad) > 0 {
		ctx = withPaddedHeaders(ctx, to.pad)
		x.out.HTTP.Header = paddedForShow(x.out.HTTP.Header, to.pad)
	}
	// The Out frame is recorded the moment the request is written, so its time is the start
	// of the latency; do() records it anyway if that moment was not observed.
	x.trace = newExchangeTrace(t.w.Now, x.recordOut)
	if t.tracesDirectly(phases, to) {
		ctx = withExchangeTrace(ctx, x.trace)
	} else {
		ctx = httptrace.WithClientTrace(ctx, x.trace.hooks(phases))
	}
	if to.url == "" && t.endpoint != nil && t.url == t.endpointRaw {
		// The request NewRequest makes of url, from the parse made once.
		x.req, x.reqErr = http.NewRequestWithContext(ctx, method, "", rd)
		if x.reqErr == nil {
			u := *t.endpoint
			x.req.URL, x.req.Host = &u, u.Host
		}
	} else {
		x.req, x.reqErr = http.NewRequestWithContext(ctx, method, target, rd)
	}
	if x.reqErr == nil {
		x.req.Header = header
	}
	return x
}

// tracesDirectly reports whether a request to a URL of phases goes straight to the
// connection's plain-http transport, which then reports its phases to the exchange's trace
// without net/http's hooks (see withExchangeTrace): one to an IP address (no lookup to time)
// whose redirects are not followed (a redirect may lead to https, through http.Transport).
func (t *httpTransport) tracesDirectly(phases tracedPhases, to exchangeTarget) bool {
	_, own := t.client.Transport.(*http1Transport)
	return own && !phases.dns && !phases.tls && !to.followRedirects
}

// do runs the request. The Out frame is recorded before it returns, and before any frame
// of the response.
func (x *exchange) do() (*http.Response, error) {
	if x.reqErr != nil {
		x.recordOut(0)
		return nil, x.reqErr
	}
	resp, err := x.t.roundTrip(x.req)
	x.recordOut(x.trace.wroteAt())
	return resp, err
}

// roundTrip sends req through the connection's client, or straight through its plain-http
// transport when the client would add nothing: a request whose redirects are not followed
// (see redirectPolicy) gets from http.Client.Do exactly the transport's response, at the cost
// of a copy of its headers (kept for redirects) on every request. An error is then not
// wrapped in a *url.Error, which exchangeFailed unwraps anyway.
func (t *httpTransport) roundTrip(req *http.Request) (*http.Response, error) {
	h1, ok := t.client.Transport.(*http1Transport)
	if !ok || req.URL.Scheme != "http" || followsRedirects(req.Context()) {
		return t.client.Do(req)
	}
	resp, err := h1.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	switch resp.StatusCode {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther, http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		// As Client.Do, which reads the Location of a redirect before asking the policy
		// whether to follow it (and gives up a 307 or 308 whose body it could not send
		// again): one it cannot parse fails the request rather than answering it.
		resend := resp.StatusCode < http.StatusTemporaryRedirect || req.GetBody != nil || req.Body == nil || req.Body == http.NoBody
		if loc := resp.Header.Get("Location"); loc != "" && resend {
			if _, perr := req.URL.Parse(loc); perr != nil {
				_ = resp.Body.Close()
				return nil, fmt.Errorf("failed to parse Location header %q: %v", loc, perr)
			}
		}
	}
	return resp, nil
}

// recordOut records the request and gives the exchange its number. Numbers are handed out
// as requests are recorded, not as Sends start, so that they rise along the transcript even
// when a later Send was written first (a reply to a server request dialling a new socket).
func (x *exchange) recordOut(at time.Duration) {
	x.outOnce.Do(func() {
		t := x.t
		t.outMu.Lock()
		defer t.outMu.Unlock()
		t.exchanges++
		x.n = t.exchanges
		f := x.out
		f.At, f.Exchange = at, x.n
		x.outSeq = t.w.Record(f)
	})
}

// detach lets the exchange outlive its deadline and the caller's context: an event stream
// goes on after Send returned, until it ends or the connection is closed.
func (x *exchange) detach() {
	x.timer.Stop()
	if x.unwatch != nil {
		x.unwatch()
	}
}

// release ends the exchange.
func (x *exchange) release() {
	x.detach()
	x.cancel()
}

// why names the sentinel for an exchange that failed with err: the deadline, the closing
// connection or a limit.
func (t *httpTransport) why(x *exchange, err error) error {
	switch {
	case x.timedOut.Load():
		return ErrTimeout
	case errors.Is(err, ErrLimit):
		return ErrLimit
	case x.onBase && t.base.Err() != nil:
		return ErrClosed
	}
	return nil
}

// exchangeFailed records why no response came and returns the error for Send.
func (t *httpTransport) exchangeFailed(x *exchange, err error) error {
	// The client's *url.Error repeats the method and URL this note already names.
	if ue, ok := err.(*url.Error); ok {
		err = ue.Err
	}
	f := Frame{Dir: In, Kind: KindNote, Note: NoteSendError, Exchange: x.n}
	sentinel := t.why(x, err)
	switch sentinel {
	case ErrTimeout:
		f.Note = NoteTimeout
		f.Detail = fmt.Sprintf("%s %s: no response within %s", x.method, t.shownURL, x.deadline)
	case ErrClosed:
		f.Detail = fmt.Sprintf("%s %s: the probe closed the connection", x.method, t.shownURL)
	default:
		f.Detail = fmt.Sprintf("%s %s: %v", x.method, t.shownURL, err)
	}
	f.Detail = t.secrets.String(f.Detail)
	t.w.Record(f)
	t.o.Logger.Debug("http exchange failed", "conn", t.conn, "exchange", x.n, "detail", f.Detail)
	if sentinel != nil {
		return fmt.Errorf("http transport: %s: %w", f.Detail, sentinel)
	}
	return fmt.Errorf("http transport: %s %s: %w", x.method, t.shownURL, err)
}

// responseInfo is the HTTP side of the frames of a response (the Timing is set by the caller).
// URL is set only when a redirect was followed.
func (t *httpTransport) responseInfo(resp *http.Response) *HTTPInfo {
	host, final := t.host, ""
	if u := resp.Request; u != nil && u.URL != nil {
		host = u.URL.Hostname()
		shown := t.endpointShown
		if t.endpoint == nil || *u.URL != *t.endpoint {
			shown = u.URL.Redacted()
		}
		if shown != t.shownURL {
			final = shown // redirected: the answer came from elsewhere
		}
	}
	return &HTTPInfo{
		URL:         final,
		Status:      resp.StatusCode,
		ContentType: headerValue(resp.Header, "Content-Type"),
		Header:      t.secrets.Header(resp.Header),
		TLS:         t.certs.tlsInfo(resp.TLS, host),
	}
}

// recordBody reads a response that is not an event stream and records it: a 200 JSON body
// as one message, anything else as the response head with its body (and an error status's
// JSON body once more as a message, for the checks that judge it).
func (t *httpTransport) recordBody(x *exchange, resp *http.Response, info *HTTPInfo) error {
	body, over, err := t.readBody(resp, t.o.Limits.MaxMessageBytes)
	info.Timing = x.trace.timing(t.w.Now())
	at := x.trace.firstByteAt()
	body = t.secrets.Bytes(body)
	if err != nil {
		t.w.Record(Frame{Dir: In, Kind: KindHTTPResponse, Exchange: x.n, HTTP: info, At: at, Raw: body,
			Detail: t.secrets.String(fmt.Sprintf("reading the body failed after %d bytes: %v", len(body), err))})
		return t.bodyFailed(x, err)
	}
	if coding := contentCoding(resp.Header); coding != "" {
		// Read as it is, a compressed body would be judged as garbage (invalid UTF-8, no
		// JSON): it is kept as the answer's head, and the error says what happened.
		detail := fmt.Sprintf("the body is compressed (Content-Encoding: %s), and the probe does not decode it", coding)
		if headerValue(x.req.Header, "Accept-Encoding") == identityCoding {
			detail += "; the request asked for no compression (Accept-Encoding: identity)"
		}
		t.w.Record(Frame{Dir: In, Kind: KindHTTPResponse, Exchange: x.n, HTTP: info, At: at, Raw: body, Truncated: over,
			Detail: t.secrets.String(detail)})
		return fmt.Errorf("http transport: %s", t.secrets.String(detail))
	}
	isJSON := isMediaType(info.ContentType, "application/json")
	asMessage := resp.StatusCode == http.StatusOK && isJSON && len(body) > 0
	kind := KindHTTPResponse
	if asMessage {
		kind = KindMessage
	}
	t.w.Record(Frame{Dir: In, Kind: kind, Exchange: x.n, HTTP: info, At: at, Raw: body, Truncated: over})
	if !asMessage && resp.StatusCode >= 400 && isJSON && len(body) > 0 {
		t.w.Record(Frame{Dir: In, Kind: KindMessage, Exchange: x.n, HTTP: info, At: at, Raw: body, Truncated: over})
	}
	if over {
		t.w.Record(Frame{Dir: In, Kind: KindNote, Note: NoteTooLarge, Exchange: x.n,
			Detail: "the response body is longer than " + t.o.Limits.messageLimitText()})
		return fmt.Errorf("http transport: the response body is longer than %s: %w", t.o.Limits.messageLimitText(), ErrLimit)
	}
	return nil
}

// bodyFailed records why a body could not be read whole (the head is recorded already).
func (t *httpTransport) bodyFailed(x *exchange, err error) error {
	switch t.why(x, err) {
	case ErrTimeout:
		detail := fmt.Sprintf("%s %s: the body was not complete within %s", x.method, t.shownURL, x.deadline)
		t.w.Record(Frame{Dir: In, Kind: KindNote, Note: NoteTimeout, Exchange: x.n, Detail: detail})
		return fmt.Errorf("http transport: %s: %w", detail, ErrTimeout)
	case ErrLimit:
		t.noteReadBudget(x.n)
		return fmt.Errorf("http transport: reading the body: %w", ErrLimit)
	case ErrClosed:
		return fmt.Errorf("http transport: reading the body: %w", ErrClosed)
	}
	return fmt.Errorf("http transport: reading the body: %w", err)
}

// noteReadBudget records that the connection read all it may (which gives it up).
func (t *httpTransport) noteReadBudget(exchange int) {
	t.w.Record(Frame{Dir: In, Kind: KindNote, Note: NoteTooLarge, Exchange: exchange,
		Detail: fmt.Sprintf("the connection read more than %d bytes", t.o.Limits.MaxTotalBytes)})
}

// readBody reads at most limit bytes of resp's body; over says there was more (which is left
// unread).
func (t *httpTransport) readBody(resp *http.Response, limit int) (data []byte, over bool, err error) {
	data, err = readAllSized(&boundedBody{budget: budgetReader{r: resp.Body, t: t}, left: int64(limit) + 1}, resp.ContentLength, limit)
	if len(data) > limit {
		return data[:limit], true, nil
	}
	return data, false, err
}

// readAllSized is io.ReadAll into a buffer sized for the announced length (when it is known
// and within limit): a probe reads a hundred small bodies, and growing each from 512 bytes
// made most of its garbage. The length is a hint only: a body longer or shorter than it
// announced is read all the same.
func readAllSized(r io.Reader, announced int64, limit int) ([]byte, error) {
	if announced < 0 || announced > int64(limit) {
		return io.ReadAll(r)
	}
	// One byte more, so that a body that matches its length meets EOF without growing.
	buf := make([]byte, 0, announced+1)
	for {
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)] // lied about its length: grow as append does
		}
	}
}

// boundedBody is io.LimitReader over a budgetReader in one allocation instead of two: it is
// made for every body a probe reads.
type boundedBody struct {
	budget budgetReader
	left   int64
}

func (b *boundedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.budget.Read(p)
	b.left -= int64(n)
	return n, err
}

// budgetReader counts what the connection reads and stops it at Limits.MaxTotalBytes.
type budgetReader struct {
	r io.Reader
	t *httpTransport
}

func (b budgetReader) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if b.t.read.Add(int64(n)) > b.t.o.Limits.MaxTotalBytes {
		return n, errReadBudget
	}
	return n, err
}

// headerValue is h.Get(key) for a key in canonical form, without canonicalizing it again:
// the probe asks a few on every exchange.
func headerValue(h http.Header, canonicalKey string) string {
	if vs := h[canonicalKey]; len(vs) > 0 {
		return vs[0]
	}
	return ""
}

// identityCoding is the content coding that means no compression.
const identityCoding = "identity"

// contentCoding is the content coding a response body is in ("" for none: identity).
func contentCoding(h http.Header) string {
	coding := strings.TrimSpace(strings.Join(h["Content-Encoding"], ", ")) // h.Values, the key canonical
	if coding == "" || strings.EqualFold(coding, identityCoding) {
		return ""
	}
	return coding
}

// isMediaType reports whether a Content-Type value names the media type want (parameters
// such as charset allowed; case-insensitive).
func isMediaType(contentType, want string) bool {
	if fast, sure := quickMediaType(contentType, want); sure {
		return fast
	}
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil && !errors.Is(err, mime.ErrInvalidMediaParameter) {
		return false
	}
	return mt == want
}

// quickMediaType answers for a Content-Type without parameters, or one that cannot name want,
// without mime.ParseMediaType (which allocates a map: it runs on every response); sure is
// false when only the full parse can tell.
func quickMediaType(contentType, want string) (match, sure bool) {
	v := strings.TrimLeft(contentType, " \t")
	if len(v) < len(want) || !strings.EqualFold(v[:len(want)], want) {
		return false, true
	}
	if strings.TrimRight(v[len(want):], " \t") == "" {
		return true, true
	}
	return false, false
}
