package probe

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/internal/testkit/fixture"
	"github.com/mcpwatch/mcpwatch/protocol"
)

func legacyFixture(t *testing.T, f fixture.Fault) (*httptest.Server, *eraRecorder) {
	t.Helper()
	srv, err := fixture.New(fixture.Config{Fault: f})
	if err != nil {
		t.Fatal(err)
	}
	rec := &eraRecorder{next: srv.SSEHandler()}
	ts := httptest.NewServer(rec)
	t.Cleanup(ts.Close)
	return ts, rec
}

// exchangesRise checks that every connection numbers its exchanges without a repeat: a
// connection that tried Streamable HTTP first goes on counting over the legacy transport.
func exchangesRise(t *testing.T, res *Result) {
	t.Helper()
	type key struct{ conn, exchange int }
	requests := map[key]int{}
	for _, f := range res.Frames {
		if f.Dir != Out || f.Exchange == 0 {
			continue
		}
		k := key{f.Conn, f.Exchange}
		if prev, dup := requests[k]; dup {
			t.Errorf("conn %d exchange %d numbers two requests (frames %d and %d)", f.Conn, f.Exchange, prev, f.Seq)
		}
		requests[k] = f.Seq
	}
}

func TestLegacySSEIsDetectedAndProbed(t *testing.T) {
	ts, rec := legacyFixture(t, fixture.Conformant)
	res, _ := runProbe(t, Target{URL: ts.URL + "/sse"}, eraOptions())
	if res.Err != "" {
		t.Fatalf("probe error: %s", res.Err)
	}
	if res.Transport != protocol.TransportSSE || res.Negotiated != protocol.LatestSessionRevision {
		t.Fatalf("transport %s, negotiated %q: want the legacy transport found and %s spoken", res.Transport, res.Negotiated, protocol.LatestSessionRevision)
	}
	refused := stepNamed(t, res, ConnMain, StepTransportProbe)
	if refused.HTTPStatus != http.StatusMethodNotAllowed {
		t.Errorf("the refused POST: %+v, want its 405 kept", refused)
	}
	for _, name := range []string{StepInitialize, StepToolsList, StepPing, StepUnknownMethod} {
		if st := stepNamed(t, res, ConnMain, name); st.Outcome != OutcomeOK && st.Outcome != OutcomeError {
			t.Errorf("%s: %s (%s), want an answer from the stream", name, st.Outcome, st.Err)
		}
	}
	if st := stepNamed(t, res, ConnNegotiation, StepInitializeBogus); st.Outcome != OutcomeOK {
		t.Errorf("the negotiation connection: %s (%s)", st.Outcome, st.Err)
	}
	// The negotiation connection learnt the transport from the main one: it never POSTs to
	// the stream's URL.
	for _, f := range res.Frames {
		if f.Conn == ConnNegotiation && f.Dir == Out && f.HTTP != nil && f.HTTP.Method == http.MethodPost && strings.HasSuffix(f.HTTP.URL, "/sse") {
			t.Errorf("frame %d: the negotiation connection POSTed to the stream URL", f.Seq)
		}
	}
	answered := 0
	for _, f := range res.Frames {
		if f.Conn == ConnMain && f.Dir == In && f.Kind == KindMessage && f.SSE != nil && f.SSE.Event == "message" {
			answered++
		}
	}
	if answered < 5 {
		t.Errorf("%d message events on the main connection, want the answers there", answered)
	}
	exchangesRise(t, res)
	posts := 0
	for _, r := range rec.requests() {
		if r.method != "" {
			posts++
		}
	}
	if posts == 0 {
		t.Error("the server saw no POSTed message")
	}
}

func TestLegacySSEWithAnExplicitTransportNeverPostsToTheStream(t *testing.T) {
	ts, _ := legacyFixture(t, fixture.Conformant)
	o := testOptions()
	res, _ := runProbe(t, Target{URL: ts.URL + "/sse", Transport: protocol.TransportSSE}, o)
	if res.Err != "" || res.Transport != protocol.TransportSSE {
		t.Fatalf("err %q transport %s", res.Err, res.Transport)
	}
	first := res.Frames[0]
	for _, f := range res.Frames {
		if f.Conn == ConnMain && f.Dir == Out {
			first = f
			break
		}
	}
	if first.Kind != KindHTTPRequest || first.HTTP.Method != http.MethodGet {
		t.Errorf("the main connection began with %s %s, want the GET of the stream", first.Kind, first.HTTP.Method)
	}
	if _, ok := res.FirstStep(StepTransportProbe); ok {
		t.Error("a transport probe although the transport was given")
	}
	// Left to era detection, the revision over legacy HTTP+SSE is a session one at once.
	res, _ = runProbe(t, Target{URL: ts.URL + "/sse", Transport: protocol.TransportSSE}, eraOptions())
	if _, ok := res.FirstStep(StepDiscover); ok || res.Negotiated != protocol.LatestSessionRevision {
		t.Errorf("negotiated %q: server/discover has no place on the legacy transport", res.Negotiated)
	}
}

func TestLegacySSEEndpointOnAnotherOriginIsNeverContacted(t *testing.T) {
	ts, _ := legacyFixture(t, fixture.SSEEndpointForeign)
	res, _ := runProbe(t, Target{URL: ts.URL + "/sse"}, eraOptions())
	if res.Transport != protocol.TransportSSE {
		t.Errorf("transport %s: a stream that names an endpoint is legacy HTTP+SSE even when the probe refuses it", res.Transport)
	}
	init := stepNamed(t, res, ConnMain, StepInitialize)
	if init.Outcome != OutcomeTransport || !strings.Contains(init.Err, "another origin") {
		t.Errorf("initialize: %s (%s), want it refused for the endpoint's origin", init.Outcome, init.Err)
	}
	for _, f := range res.Frames {
		if f.Dir == Out && f.HTTP != nil && strings.Contains(f.HTTP.URL, "mcp.invalid") {
			t.Errorf("frame %d went to %s", f.Seq, f.HTTP.URL)
		}
	}
}

func TestLegacySSEWaitsForTheEndpointBoundedly(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		fmt.Fprint(w, ": a comment, and never an endpoint\n\n")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	t.Cleanup(ts.Close)
	o := testOptions()
	o.InitTimeout = 300 * time.Millisecond
	o = o.WithDefaults()
	tr := NewTranscript()
	w := newConnWire(ConnMain, tr, o.Limits, nil)
	start := time.Now()
	_, err := dialSSE(context.Background(), Target{URL: ts.URL}, ConnMain, w, o)
	if !errors.Is(err, ErrNoEndpoint) {
		t.Fatalf("err %v, want ErrNoEndpoint", err)
	}
	if took := time.Since(start); took > o.InitTimeout+2*time.Second {
		t.Errorf("gave up after %s, want about %s", took, o.InitTimeout)
	}
	_, err = dialSSE(context.Background(), Target{URL: ts.URL + "/missing"}, ConnMain, w, o)
	if err == nil {
		t.Fatal("dialled a stream that never named its endpoint")
	}
	notStream := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(notStream.Close)
	if _, err := dialSSE(context.Background(), Target{URL: notStream.URL}, ConnMain, w, o); !errors.Is(err, ErrNotEventStream) {
		t.Errorf("a 404: %v, want ErrNotEventStream", err)
	}
}

// TestLegacySSEStreamEndFailsWaitingRequests: once the stream that carries every answer is
// gone, a waiting request learns it at once instead of waiting out its timeout.
func TestLegacySSEStreamEndFailsWaitingRequests(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodGet:
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, "event: endpoint\ndata: /message?sessionId=1\n\n")
			w.(http.Flusher).Flush()
			time.Sleep(100 * time.Millisecond) // then the stream ends
		default:
			w.WriteHeader(http.StatusAccepted)
		}
	}))
	t.Cleanup(ts.Close)
	o := testOptions()
	o.RequestTimeout = 10 * time.Second
	res, took := runProbe(t, Target{URL: ts.URL, Transport: protocol.TransportSSE}, o)
	init := stepNamed(t, res, ConnMain, StepInitialize)
	if init.Outcome != OutcomeTransport || !strings.Contains(init.Err, ErrClosed.Error()) {
		t.Errorf("initialize: %s (%s), want the closed stream", init.Outcome, init.Err)
	}
	if took > 5*time.Second {
		t.Errorf("the probe took %s: the waiting request was not failed when the stream ended", took)
	}
}

func TestResolveEndpoint(t *testing.T) {
	stream, _ := url.Parse("http://127.0.0.1:8080/mcp/sse?x=1")
	tests := []struct {
		data, want string
		ok         bool
	}{
		{"/message?sessionId=abc", "http://127.0.0.1:8080/message?sessionId=abc", true},
		{"message?sessionId=abc", "http://127.0.0.1:8080/mcp/message?sessionId=abc", true},
		{"http://127.0.0.1:8080/m", "http://127.0.0.1:8080/m", true},
		{"http://127.0.0.1:9090/m", "", false},
		{"https://127.0.0.1:8080/m", "", false},
		{"http://localhost:8080/m", "", false},
		{"//evil.example/m", "", false},
		{"", "", false},
		{"http://[::1", "", false},
	}
	for _, tt := range tests {
		got, err := ResolveEndpoint(stream, tt.data)
		if (err == nil) != tt.ok || (tt.ok && got.String() != tt.want) {
			t.Errorf("%q: %v %v, want %q ok=%v", tt.data, got, err, tt.want, tt.ok)
		}
	}
	a, _ := url.Parse("https://example.com/sse")
	b, _ := url.Parse("https://example.com:443/message")
	if !SameOrigin(a, b) {
		t.Error("a default port spelled out is the same origin")
	}
}

// An explicit legacy target belongs to the session era before anything is sent: a stream
// that cannot even be opened must not leave the report judging it as a stateless server.
func TestLegacySSEThatCannotBeOpenedStaysInTheSessionEra(t *testing.T) {
	ts := httptest.NewServer(http.NotFoundHandler())
	url := ts.URL + "/sse"
	ts.Close() // nothing listens there any more
	res, _ := runProbe(t, Target{URL: url, Transport: protocol.TransportSSE}, eraOptions())
	if res.Err == "" || strings.Contains(res.Err, ErrNotEventStream.Error()) {
		t.Fatalf("error %q: want what happened to the GET, not a verdict on a stream never seen", res.Err)
	}
	if res.Requested != protocol.LatestSessionRevision || protocol.Stateless(res.ProtocolVersion) {
		t.Errorf("requested %q, evaluated as %q: want the session era", res.Requested, res.ProtocolVersion)
	}
	// Transport detection still tells it from a server that is no legacy endpoint.
	refused := errors.New("connection refused")
	if err := fmt.Errorf("opening: %w", notEventStream{refused}); !errors.Is(err, ErrNotEventStream) || !errors.Is(err, refused) {
		t.Errorf("%v is not both ErrNotEventStream and its cause", err)
	}
}

// TestLegacySSERuleProbesReadTheirAnswersOnTheStream: over legacy HTTP+SSE (2024-11-05 basic/
// transports, "HTTP with SSE": "Server messages are sent as SSE message events") the 202 of
// a POST only says the message was taken. The robustness probes take their answers from the
// stream, whether the transport was found or given; the Origin probe asks both the GET of
// the stream and the POST endpoint ("Servers MUST validate the Origin header on all incoming
// connections").
func TestLegacySSERuleProbesReadTheirAnswersOnTheStream(t *testing.T) {
	ts, _ := legacyFixture(t, fixture.Conformant)
	for _, target := range []Target{{URL: ts.URL + "/sse"}, {URL: ts.URL + "/sse", Transport: protocol.TransportSSE}} {
		o := ruleTestOptions()
		o.ProtocolVersion = ""
		res, _ := runProbe(t, target, o)
		if res.Err != "" || res.Transport != protocol.TransportSSE {
			t.Fatalf("%+v: err %q transport %s", target, res.Err, res.Transport)
		}
		for step, code := range map[string]int64{StepInvalidRequest: -32600, StepParseError: -32700} {
			// On the negotiation connection when it could carry them, else on their own.
			st, ok := res.FirstStep(step)
			if !ok {
				t.Errorf("%+v %s: not sent", target, step)
				continue
			}
			var f Frame
			if st.Response >= 0 && st.Response < len(res.Frames) {
				f = res.Frames[st.Response]
			}
			if st.ErrorCode == nil || *st.ErrorCode != code || f.SSE == nil {
				t.Errorf("%+v %s: outcome %s code %v frame %+v, want error %d read from the stream", target, step, st.Outcome, st.ErrorCode, f, code)
			}
		}
		for _, step := range []string{StepForeignOriginStream, StepForeignOrigin} {
			if st := stepNamed(t, res, ConnOrigin, step); st.HTTPStatus != http.StatusForbidden {
				t.Errorf("%+v %s: HTTP %d, want the fixture's 403", target, step, st.HTTPStatus)
			}
		}
	}
}
