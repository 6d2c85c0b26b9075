package probe

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/mcpwatch/mcpwatch/internal/textclip"
)

// sseLineSlack is what a line may hold besides one whole message ("data: " and the like).
const sseLineSlack = 1024

// openStream records the head of an event-stream response and starts reading its events.
// Send returns once the head is recorded; the events are recorded as they arrive.
func (t *httpTransport) openStream(x *exchange, resp *http.Response, info *HTTPInfo) error {
	x.detach()
	t.recordHead(x, resp, info, false)
	t.active.Add(1)
	t.mu.Lock()
	if t.streams == nil {
		t.streams = map[int]context.CancelFunc{}
	}
	t.streams[x.n] = x.cancel
	t.mu.Unlock()
	go t.readStream(x, resp.Body, info)
	return nil
}

// readStream records every event of a response stream until it ends, a limit is hit, or
// the connection is closed; then it records NoteStreamEnded (which fails the request of the
// exchange if the stream did not answer it).
func (t *httpTransport) readStream(x *exchange, body io.ReadCloser, info *HTTPInfo) {
	defer t.active.Done()
	defer func() {
		t.mu.Lock()
		delete(t.streams, x.n)
		t.mu.Unlock()
	}()
	defer x.release()
	defer body.Close()

	limit := t.o.Limits.MaxMessageBytes
	p := newSSEParser(budgetReader{r: body, t: t}, limit+sseLineSlack, limit, t.w.Now)
	events := 0
	var detail string
	for {
		ev, err := p.Next()
		if err != nil {
			detail = t.streamEnd(x, ev, err, events)
			break
		}
		events++
		t.recordEvent(x.n, info, ev)
		if ev.Truncated {
			t.w.Record(Frame{Dir: In, Kind: KindNote, Note: NoteTooLarge, Exchange: x.n,
				Detail: "an event's data is longer than " + t.o.Limits.messageLimitText()})
			detail = fmt.Sprintf("reading stopped after %d events: an event was too large", events)
			break
		}
		if t.read.Load() > t.o.Limits.MaxTotalBytes {
			t.noteReadBudget(x.n)
			detail = fmt.Sprintf("reading stopped after %d events: the connection read all it may", events)
			break
		}
		if t.overLimit() {
			detail = fmt.Sprintf("reading stopped after %d events: the connection reached its limits", events)
			break
		}
	}
	t.w.Record(Frame{Dir: In, Kind: KindNote, Note: NoteStreamEnded, Exchange: x.n, HTTP: info,
		Detail: t.secrets.String(detail)})
}

// recordEvent records one event: a message when it carries data, else an SSE event frame.
func (t *httpTransport) recordEvent(exchange int, info *HTTPInfo, ev sseEvent) {
	f := Frame{Dir: In, Kind: KindSSEEvent, Exchange: exchange, HTTP: info, At: ev.At,
		SSE: &SSEInfo{Event: t.secrets.String(ev.Event), ID: t.secrets.String(ev.ID), Retry: ev.Retry,
			Malformed: t.secrets.String(ev.Malformed)}}
	if len(ev.Data) > 0 {
		f.Kind = KindMessage
		f.Raw = t.secrets.Bytes(ev.Data)
		f.Truncated = ev.Truncated
	}
	t.w.Record(f)
}

// streamEnd describes how a stream ended, recording a limit note where one was hit. ev is the
// unfinished event the stream ended in, if any.
func (t *httpTransport) streamEnd(x *exchange, ev sseEvent, err error, events int) string {
	var how string
	switch {
	case errors.Is(err, ErrLimit):
		t.noteReadBudget(x.n)
		how = "reading stopped: the connection read all it may"
	case errors.Is(err, io.EOF):
		// Before the probe's own end: a stream the server ended cleanly just before the
		// probe closed the connection was still ended by the server (closing it yields a
		// read error, never a clean end of the body).
		how = "the server ended the stream"
	case t.base.Err() != nil:
		how = "closed by the probe"
	default:
		how = fmt.Sprintf("read error: %v", err)
	}
	detail := fmt.Sprintf("%s after %d events", how, events)
	if !ev.empty() {
		detail += "; it ended in the middle of an event (no blank line after it)"
		if ev.HasData {
			detail += fmt.Sprintf(", %d bytes of data not dispatched: %q", len(ev.Data), textclip.Bytes(string(ev.Data), 120))
		}
	}
	return detail
}
