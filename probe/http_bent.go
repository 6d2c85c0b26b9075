package probe

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"sync"
)

// exchangeTarget says where an exchange goes and how its headers differ from the
// connection's own. The zero value is the endpoint with the usual headers. The rule probes
// use it to send what a client must not (no session id, a foreign Origin) and to fetch
// documents that are no MCP messages (protected resource metadata).
type exchangeTarget struct {
	url  string            // "" for the endpoint
	edit func(http.Header) // changes the headers of this one request (nil for none)
	// pad names headers whose values go out between spaces (plain http only; see
	// withPaddedHeaders).
	pad []string
	// followRedirects lets the client follow redirects on the origin of url (a document
	// fetch: a message is never sent on; see redirectPolicy).
	followRedirects bool
}

// redactedURL is a URL as the transcript shows it: without a password.
func redactedURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	return u.Redacted()
}

// maxFetchedBody bounds the body kept of a request that carries no message: a metadata
// document or an error page is small, and the rest of a large one says nothing more.
const maxFetchedBody = 64 << 10

// fetched is what a request without a message got.
type fetched struct {
	out, head int // Seqs of the request and of the response head (-1 when none)
	status    int // HTTP status (0 when no response came)
}

// fetch makes a request that carries no message (a GET of the endpoint, a DELETE, a GET of a
// metadata document) and records the answer as a response head with at most maxFetchedBody
// bytes of its body, never as a message: what comes back is judged by the rule that asked,
// not by the envelope checks. An event stream is not read at all: its head is the answer.
func (t *httpTransport) fetch(ctx context.Context, method string, to exchangeTarget) (fetched, error) {
	res := fetched{out: -1, head: -1}
	if err := t.enter(); err != nil {
		return res, err
	}
	defer t.active.Done()
	if t.overLimit() {
		return res, t.notSending("http transport")
	}
	x := t.newExchangeTo(t.base, ctx, method, to, nil, t.o.RequestTimeout)
	defer x.release()
	resp, err := x.do()
	res.out = x.outSeq
	if err != nil {
		return res, t.exchangeFailed(x, err)
	}
	defer resp.Body.Close()
	info := t.responseInfo(resp)
	stream := resp.StatusCode == http.StatusOK && isMediaType(info.ContentType, "text/event-stream")
	res.head, res.status = t.recordHead(x, resp, info, !stream), resp.StatusCode
	return res, nil
}

// recordHead records the answer to a request that carries no message, or the head of an
// event stream, as a response head: with at most maxFetchedBody bytes of its body when
// withBody, never as a message. It returns the head's Seq.
func (t *httpTransport) recordHead(x *exchange, resp *http.Response, info *HTTPInfo, withBody bool) int {
	f := Frame{Dir: In, Kind: KindHTTPResponse, Exchange: x.n, HTTP: info}
	if withBody {
		body, over, rerr := t.readBody(resp, min(t.o.Limits.MaxMessageBytes, maxFetchedBody))
		f.Raw, f.Truncated = t.secrets.Bytes(body), over
		if rerr != nil {
			f.Detail = t.secrets.String(fmt.Sprintf("reading the body failed after %d bytes: %v", len(body), rerr))
		}
	}
	info.Timing = x.trace.timing(t.w.Now())
	f.At = x.trace.firstByteAt()
	return t.w.Record(f)
}

// currentSession is the session id the server issued on this connection ("" for none).
func (t *httpTransport) currentSession() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.sessionID
}

// endSession DELETEs the connection's session now rather than at Close, and forgets it:
// whatever the server answered, Close does not try again.
func (t *httpTransport) endSession(ctx context.Context) (fetched, error) {
	res, err := t.fetch(ctx, http.MethodDelete, exchangeTarget{})
	t.mu.Lock()
	t.sessionID = ""
	t.mu.Unlock()
	return res, err
}

// bentTransport is the HTTP transport of a rule probe: a request whose id was marked with
// bend goes out with its headers changed, everything else as usual. It lets a rule probe
// send a bent request through the session's own request machinery.
type bentTransport struct {
	*httpTransport

	mu    sync.Mutex
	bends map[string]exchangeTarget // by the loose key of the request id
}

var _ Transport = (*bentTransport)(nil)

// bend marks the request with id so that edit changes its headers.
func (b *bentTransport) bend(id string, edit func(http.Header)) {
	b.bendTo(id, exchangeTarget{edit: edit})
}

// bendTo marks the request with id to go out as to says (its url is ignored).
func (b *bentTransport) bendTo(id string, to exchangeTarget) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.bends == nil {
		b.bends = map[string]exchangeTarget{}
	}
	to.url = ""
	b.bends[idKey([]byte(id))] = to
}

func (b *bentTransport) Send(ctx context.Context, msg []byte) (int, error) {
	b.mu.Lock()
	pending := len(b.bends) > 0
	b.mu.Unlock()
	if !pending {
		return b.httpTransport.Send(ctx, msg)
	}
	if to, bent := b.take(msg); bent {
		return b.post(ctx, msg, to)
	}
	return b.httpTransport.Send(ctx, msg)
}

// take removes and returns how the request msg was marked to go out (false for unmarked).
func (b *bentTransport) take(msg []byte) (exchangeTarget, bool) {
	env, ok := peekEnvelope(msg)
	if !ok || !env.hasID || !env.hasMethod {
		return exchangeTarget{}, false
	}
	key := idKey(env.id)
	b.mu.Lock()
	defer b.mu.Unlock()
	to, bent := b.bends[key]
	delete(b.bends, key)
	return to, bent
}
