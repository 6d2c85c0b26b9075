package probe

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/mcpwatch/mcpwatch/internal/textclip"
)

// sseEndpointEvent is the event that names the POST endpoint (2024-11-05 basic/transports, HTTP with SSE).
const sseEndpointEvent = "endpoint"

// Sentinel errors of the legacy transport.
var (
	// ErrNotEventStream: the GET did not open an event stream (an error status, another
	// content type, no response): the URL is no legacy HTTP+SSE endpoint.
	ErrNotEventStream = errors.New("not an event stream")
	// ErrNoEndpoint: the event stream did not name an endpoint the probe may POST to (none
	// came in time, the stream ended first, or it named another origin). The server speaks
	// legacy HTTP+SSE, but cannot be probed further.
	ErrNoEndpoint = errors.New("no usable endpoint event")
)

// notEventStream is a GET that got no response at all: ErrNotEventStream to the callers that
// branch on it, but its text is only what happened ("connection refused" is not "not an
// event stream").
type notEventStream struct{ err error }

func (e notEventStream) Error() string   { return e.err.Error() }
func (e notEventStream) Unwrap() []error { return []error{ErrNotEventStream, e.err} }

// sseTransport is one legacy HTTP+SSE connection (2024-11-05 basic/transports, HTTP with SSE): a GET opens an
// event stream whose first event, `endpoint`, names the URI to POST messages to; the server's
// messages, answers included, arrive as `message` events of that stream. It rides on an
// httpTransport for the exchanges (recording, limits, timing, redaction), whose URL becomes
// the endpoint once the stream named it.
type sseTransport struct {
	h *httpTransport

	streamURL *url.URL
	endpoint  chan endpointOutcome // the reader's verdict on the endpoint event (buffered, one)
}

// endpointOutcome is what the stream said about the endpoint: its absolute URL, or why
// there is none.
type endpointOutcome struct {
	url *url.URL
	err error
}

var _ Transport = (*sseTransport)(nil)

// dialSSE opens a legacy HTTP+SSE connection: it returns once the stream named its endpoint.
func dialSSE(ctx context.Context, t Target, conn int, w Wire, o Options) (Transport, error) {
	return openSSE(ctx, t, conn, w, o, 0)
}

// openSSE is dialSSE with the exchange numbering starting after `after`: a connection that
// tried Streamable HTTP first keeps its numbers unique.
func openSSE(ctx context.Context, t Target, conn int, w Wire, o Options, after int) (*sseTransport, error) {
	o = o.WithDefaults()
	tr, err := dialHTTP(ctx, t, conn, w, o)
	if err != nil {
		return nil, fmt.Errorf("legacy sse: %w", err)
	}
	h := tr.(*httpTransport)
	h.exchanges = after
	streamURL, err := url.Parse(t.URL)
	if err != nil {
		return nil, fmt.Errorf("legacy sse: %w", err)
	}
	if sw, ok := w.(streamWire); ok {
		sw.answersOnStream()
	}
	s := &sseTransport{h: h, streamURL: streamURL, endpoint: make(chan endpointOutcome, 1)}
	if err := s.openStream(ctx); err != nil {
		_ = h.Close(context.WithoutCancel(ctx))
		return nil, err
	}
	timer := time.NewTimer(o.InitTimeout)
	defer timer.Stop()
	var out endpointOutcome
	select {
	case out = <-s.endpoint:
	case <-timer.C:
		out.err = fmt.Errorf("%w: none within %s", ErrNoEndpoint, o.InitTimeout)
		s.note(fmt.Sprintf("GET %s: no endpoint event within %s", h.shownURL, o.InitTimeout))
	case <-ctx.Done():
		out.err = fmt.Errorf("%w: %w", ErrNoEndpoint, ctx.Err())
	}
	if out.err != nil {
		_ = h.Close(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("legacy sse: %w", out.err)
	}
	// Every POST from now on goes to the endpoint. The stream reader never reads h.url, and
	// no Send can start before this function returns.
	h.url, h.shownURL = out.url.String(), out.url.Redacted()
	return s, nil
}

// openStream GETs the event stream and starts its reader once the head is recorded.
func (s *sseTransport) openStream(ctx context.Context) error {
	h := s.h
	if err := h.enter(); err != nil {
		return err
	}
	defer h.active.Done()
	x := h.newExchange(h.base, ctx, http.MethodGet, nil, h.o.InitTimeout)
	x.req.Header.Set("Accept", "text/event-stream")
	x.out.HTTP.Header.Set("Accept", "text/event-stream")
	resp, err := x.do()
	if err != nil {
		x.release()
		return fmt.Errorf("legacy sse: opening the event stream: %w", notEventStream{h.exchangeFailed(x, err)})
	}
	info := h.responseInfo(resp)
	if resp.StatusCode != http.StatusOK || !isMediaType(info.ContentType, "text/event-stream") {
		defer x.release()
		defer resp.Body.Close()
		h.recordHead(x, resp, info, true)
		return fmt.Errorf("legacy sse: GET %s answered HTTP %d %q: %w",
			h.shownURL, resp.StatusCode, info.ContentType, ErrNotEventStream)
	}
	x.detach()
	h.recordHead(x, resp, info, false)
	h.active.Add(1)
	go s.readStream(x, resp.Body, info)
	return nil
}

// readStream records the events of the stream until it ends: the endpoint event as an
// event frame, every event with data after it as a message (routed to the request it
// answers, whatever its event name: the checks judge the name).
func (s *sseTransport) readStream(x *exchange, body io.ReadCloser, info *HTTPInfo) {
	h := s.h
	defer h.active.Done()
	defer x.release()
	defer body.Close()

	var once sync.Once
	settle := func(out endpointOutcome) { once.Do(func() { s.endpoint <- out }) }

	limit := h.o.Limits.MaxMessageBytes
	p := newSSEParser(budgetReader{r: body, t: h}, limit+sseLineSlack, limit, h.w.Now)
	events := 0
	var detail string
	for {
		ev, err := p.Next()
		if err != nil {
			detail = h.streamEnd(x, ev, err, events)
			break
		}
		events++
		if ev.Event == sseEndpointEvent {
			s.recordEndpoint(x.n, info, ev, settle)
		} else {
			h.recordEvent(x.n, info, ev)
		}
		if ev.Truncated {
			h.w.Record(Frame{Dir: In, Kind: KindNote, Note: NoteTooLarge, Exchange: x.n,
				Detail: "an event's data is longer than " + h.o.Limits.messageLimitText()})
			detail = fmt.Sprintf("reading stopped after %d events: an event was too large", events)
			break
		}
		if h.overLimit() {
			detail = fmt.Sprintf("reading stopped after %d events: the connection reached its limits", events)
			break
		}
	}
	h.w.Record(Frame{Dir: In, Kind: KindNote, Note: NoteStreamEnded, Exchange: x.n, HTTP: info,
		Detail: h.secrets.String(detail)})
	settle(endpointOutcome{err: fmt.Errorf("%w: the event stream ended first (%s)", ErrNoEndpoint, detail)})
	// Every answer of this connection was to come on this stream.
	if sw, ok := h.w.(streamWire); ok {
		sw.closeWaiters(ErrClosed)
	}
}

// recordEndpoint records an endpoint event and, for the first one, resolves its URI
// against the stream's URL. An endpoint on another origin is refused: the probe's headers
// (credentials) must not travel there, and a monitor must not be steered to other hosts.
func (s *sseTransport) recordEndpoint(exchange int, info *HTTPInfo, ev sseEvent, settle func(endpointOutcome)) {
	h := s.h
	h.w.Record(Frame{Dir: In, Kind: KindSSEEvent, Exchange: exchange, HTTP: info, At: ev.At,
		Raw: h.secrets.Bytes(ev.Data), Truncated: ev.Truncated,
		SSE: &SSEInfo{Event: ev.Event, ID: h.secrets.String(ev.ID), Retry: ev.Retry, Malformed: h.secrets.String(ev.Malformed)}})
	target, err := ResolveEndpoint(s.streamURL, string(ev.Data))
	if err != nil {
		s.note(fmt.Sprintf("not posting to the endpoint %s: %v", textclip.Bytes(string(ev.Data), 200), err))
		settle(endpointOutcome{err: fmt.Errorf("%w: %w", ErrNoEndpoint, err)})
		return
	}
	settle(endpointOutcome{url: target})
}

// ResolveEndpoint resolves the data of an endpoint event against the URL of the event
// stream and requires the result to be on the same origin (scheme, host and port).
func ResolveEndpoint(stream *url.URL, data string) (*url.URL, error) {
	if data == "" {
		return nil, errors.New("the endpoint event carries no URI")
	}
	ref, err := url.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("the endpoint %q is not a URI: %w", data, err)
	}
	target := stream.ResolveReference(ref)
	if !SameOrigin(stream, target) {
		return target, fmt.Errorf("the endpoint %s is on another origin than the stream %s", target.Redacted(), stream.Redacted())
	}
	return target, nil
}

// SameOrigin reports whether two URLs share scheme, host and port (default ports spelled
// out or not).
func SameOrigin(a, b *url.URL) bool {
	port := func(u *url.URL) string {
		if p := u.Port(); p != "" {
			return p
		}
		switch u.Scheme {
		case "http":
			return "80"
		case "https":
			return "443"
		}
		return ""
	}
	return a.Scheme == b.Scheme && a.Hostname() == b.Hostname() && port(a) == port(b)
}

// note records something the transport decided (it does not fail any request by itself).
func (s *sseTransport) note(detail string) {
	s.h.w.Record(Frame{Dir: In, Kind: KindNote, Note: NoteSendError, Detail: s.h.secrets.String(detail)})
}

// Send POSTs one message to the endpoint. A 2xx response only says the message was taken;
// its answer comes on the stream. Any other status fails the request of the exchange.
func (s *sseTransport) Send(ctx context.Context, msg []byte) (int, error) {
	return s.send(ctx, msg, exchangeTarget{})
}

// send is Send with this one POST going out as to says (its url is ignored: a legacy
// POST goes to the endpoint).
func (s *sseTransport) send(ctx context.Context, msg []byte, to exchangeTarget) (int, error) {
	h := s.h
	if err := h.enter(); err != nil {
		return -1, err
	}
	defer h.active.Done()
	if h.overLimit() {
		return -1, h.notSending("legacy sse")
	}
	to.url = ""
	x := h.newExchangeTo(h.base, ctx, http.MethodPost, to, msg, h.deadlineFor(msg))
	resp, err := x.do()
	if err != nil {
		x.release()
		return x.outSeq, h.exchangeFailed(x, err)
	}
	defer x.release()
	defer resp.Body.Close()
	info := h.responseInfo(resp)
	// A server that answers in the POST body after all (a JSON response) is recorded the
	// way Streamable HTTP records it, so the probe goes on and the checks can say so.
	return x.outSeq, h.recordBody(x, resp, info)
}

// Close ends the stream and every exchange.
func (s *sseTransport) Close(ctx context.Context) error { return s.h.Close(ctx) }

// bentSSE is the legacy transport of a rule probe: a request marked with the bent
// transport's bend is POSTed to the endpoint with its headers changed, as on Streamable
// HTTP; everything else goes as usual, and every answer still comes on the stream.
type bentSSE struct {
	*sseTransport
	bent *bentTransport
}

var _ Transport = (*bentSSE)(nil)

func (b *bentSSE) Send(ctx context.Context, msg []byte) (int, error) {
	to, _ := b.bent.take(msg)
	return b.send(ctx, msg, to)
}
