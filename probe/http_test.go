package probe

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/mcpwatch/mcpwatch/internal/redact"
	"github.com/mcpwatch/mcpwatch/internal/textclip"
	"github.com/mcpwatch/mcpwatch/protocol"
)

// testOptions keeps every wait of a test probe short.
func testOptions() Options {
	// The transport tests speak the newest session revision; era detection has its own, and
	// the rule probes theirs (rules_test.go).
	return Options{Timeout: 20 * time.Second, InitTimeout: 5 * time.Second, RequestTimeout: 5 * time.Second,
		ShutdownGrace: 100 * time.Millisecond, ProtocolVersion: protocol.LatestSessionRevision, skipRules: true}
}

func runProbe(t *testing.T, target Target, o Options) (*Result, time.Duration) {
	t.Helper()
	start := time.Now()
	res, err := Run(context.Background(), target, o)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return res, time.Since(start)
}

func stepNamed(t *testing.T, res *Result, conn int, name string) Step {
	t.Helper()
	for _, s := range res.Steps {
		if s.Conn == conn && s.Name == name {
			return s
		}
	}
	t.Fatalf("no step %q on conn %d; steps: %+v", name, conn, res.Steps)
	return Step{}
}

// framesOf returns the frames of one exchange of a connection.
func framesOf(res *Result, conn, exchange int) []Frame {
	var out []Frame
	for _, f := range res.Frames {
		if f.Conn == conn && f.Exchange == exchange {
			out = append(out, f)
		}
	}
	return out
}

func hasNote(frames []Frame, code NoteCode) (Frame, bool) {
	for _, f := range frames {
		if f.Kind == KindNote && f.Note == code {
			return f, true
		}
	}
	return Frame{}, false
}

func TestHTTPProbeAnswersEndToEnd(t *testing.T) {
	cases := []struct {
		name       string
		version    string
		sse        bool
		wantHeader bool // MCP-Protocol-Version after initialize
	}{
		{name: "json answers, 2025-06-18 sends the version header", version: protocol.Revision20250618, wantHeader: true},
		{name: "json answers, 2025-11-25 sends the version header", version: protocol.Revision20251125, wantHeader: true},
		{name: "json answers, 2025-03-26 sends no version header", version: protocol.Revision20250326},
		{name: "sse answers with priming events and a server request first", version: protocol.Revision20251125, sse: true, wantHeader: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fx := newMCPFixture(t, tc.version)
			if tc.sse {
				for _, m := range []string{"initialize", "tools/list", "ping"} {
					fx.answers[m] = answerSSE
				}
			}
			srv := fx.start()
			o := testOptions()
			o.ProtocolVersion = tc.version
			res, _ := runProbe(t, Target{URL: srv.URL + "/mcp"}, o)
			defer logFramesOnFailure(t, res.Frames)
			if res.Err != "" {
				t.Fatalf("probe failed: %s", res.Err)
			}
			if res.Negotiated != tc.version {
				t.Errorf("negotiated %q, want %q", res.Negotiated, tc.version)
			}
			for _, s := range res.Steps {
				want := OutcomeOK
				if s.Name == StepUnknownMethod {
					want = OutcomeError
				}
				if s.Outcome != want {
					t.Errorf("step %s (conn %d): outcome %s (%s), want %s", s.Name, s.Conn, s.Outcome, s.Err, want)
				}
				if s.ID != "" && s.Latency <= 0 {
					t.Errorf("step %s: latency %v, want > 0", s.Name, s.Latency)
				}
				if s.Conn == ConnMain && s.ID == "" && s.HTTPStatus != http.StatusAccepted {
					t.Errorf("notification step %s: status %d, want 202", s.Name, s.HTTPStatus)
				}
			}

			posts, deletes := 0, map[string]bool{}
			issued := map[string]bool{}
			initialized := map[string]bool{} // sessions past notifications/initialized
			for _, req := range fx.requests() {
				sid := req.Header.Get("Mcp-Session-Id")
				if req.HTTPMethod == http.MethodDelete {
					deletes[sid] = true
					continue
				}
				posts++
				if got := req.Header.Get("Accept"); got != "application/json, text/event-stream" {
					t.Errorf("%s: Accept %q", req.RPCMethod, got)
				}
				if got := req.Header.Get("Content-Type"); got != "application/json" {
					t.Errorf("%s: Content-Type %q", req.RPCMethod, got)
				}
				pv := req.Header.Get("MCP-Protocol-Version")
				if req.RPCMethod == "initialize" {
					if sid != "" || pv != "" {
						t.Errorf("initialize carried session %q / version %q", sid, pv)
					}
					continue
				}
				if sid == "" {
					t.Errorf("%s: no Mcp-Session-Id", req.RPCMethod)
				}
				issued[sid] = true
				if req.RPCMethod == "notifications/initialized" {
					initialized[sid] = true
				}
				if !initialized[sid] && req.RPCMethod == "" {
					// The answer to a request the server sent while initialize was open: the
					// revision is not negotiated yet.
					continue
				}
				if tc.wantHeader && pv != tc.version {
					t.Errorf("%s: MCP-Protocol-Version %q, want %q", req.RPCMethod, pv, tc.version)
				}
				if !tc.wantHeader && pv != "" {
					t.Errorf("%s: MCP-Protocol-Version %q sent for %s", req.RPCMethod, pv, tc.version)
				}
			}
			if posts < 10 {
				t.Errorf("only %d POSTs reached the server", posts)
			}
			// Each connection that got a session ends it; the main one used its id throughout.
			if len(deletes) != 2 {
				t.Errorf("DELETEs for sessions %v, want one per connection", deletes)
			}
			for sid := range issued {
				if !deletes[sid] {
					t.Errorf("session %s used but never deleted", sid)
				}
			}
			checkHTTPFrames(t, res, tc.sse)
		})
	}
}

// logFramesOnFailure shows a failed test's transcript, briefly.
func logFramesOnFailure(t *testing.T, frames []Frame) {
	if !t.Failed() {
		return
	}
	for i, f := range frames {
		if i == 60 {
			t.Logf("... %d more frames", len(frames)-i)
			break
		}
		status := 0
		if f.HTTP != nil {
			status = f.HTTP.Status
		}
		t.Logf("frame %d conn %d exchange %d %s %s status %d at %v %q %s %q", f.Seq, f.Conn, f.Exchange, f.Dir, f.Kind, status, f.At, textclip.Bytes(string(f.Raw), 80), f.Note, f.Detail)
	}
}

// checkHTTPFrames checks what every HTTP transcript must satisfy: exchanges numbered from 1,
// an Out frame first in each exchange, and the frames of an event-stream answer.
func checkHTTPFrames(t *testing.T, res *Result, sse bool) {
	t.Helper()
	for _, conn := range []int{ConnMain, ConnNegotiation} {
		var last int
		for _, f := range res.Frames {
			if f.Conn != conn {
				continue
			}
			if f.Exchange == 0 {
				t.Errorf("frame %d (%s %s) has no exchange", f.Seq, f.Dir, f.Kind)
				continue
			}
			if f.Dir == Out {
				if f.Exchange != last+1 {
					t.Errorf("conn %d: exchange %d follows %d", conn, f.Exchange, last)
				}
				last = f.Exchange
				if f.HTTP == nil || f.HTTP.Method == "" || f.HTTP.URL == "" {
					t.Errorf("Out frame %d without request info: %+v", f.Seq, f.HTTP)
				}
			} else if f.Exchange > last {
				t.Errorf("In frame %d of exchange %d precedes its request", f.Seq, f.Exchange)
			}
		}
	}
	init := stepNamed(t, res, ConnMain, StepInitialize)
	head, _ := frameAt(res, init.Response)
	if head.HTTP == nil || head.HTTP.Timing == nil || head.HTTP.Timing.Total <= 0 || head.HTTP.Timing.Connect <= 0 {
		t.Errorf("initialize answer without timing: %+v", head.HTTP)
	}
	if !sse {
		return
	}
	sent, _ := frameAt(res, init.Request)
	frames := framesOf(res, ConnMain, sent.Exchange)
	var kinds []string
	for _, f := range frames[1:] {
		kinds = append(kinds, f.Kind.String())
	}
	want := "http-response sse-event sse-event message message note"
	if got := strings.Join(kinds, " "); got != want {
		t.Errorf("initialize exchange frames: %s, want %s", got, want)
	}
	if len(frames) == 7 {
		if frames[2].SSE == nil || frames[2].SSE.ID != "prime-1" {
			t.Errorf("priming event: %+v", frames[2].SSE)
		}
		if frames[4].SSE == nil || frames[4].SSE.Event != "message" || !strings.Contains(string(frames[4].Raw), `"method":"ping"`) {
			t.Errorf("server request event: %+v %s", frames[4].SSE, frames[4].Raw)
		}
		if frames[5].Seq != init.Response || !json.Valid(frames[5].Raw) || !strings.Contains(string(frames[5].Raw), "\n") {
			t.Errorf("response event %d (answer %d): %q", frames[5].Seq, init.Response, frames[5].Raw)
		}
		if frames[6].Note != NoteStreamEnded || !strings.Contains(frames[6].Detail, "server ended") {
			t.Errorf("stream end: %s %q", frames[6].Note, frames[6].Detail)
		}
	}
}

// frameAt returns the frame with the given Seq.
func frameAt(res *Result, seq int) (Frame, bool) {
	if seq < 0 || seq >= len(res.Frames) {
		return Frame{}, false
	}
	return res.Frames[seq], true
}

func TestHTTPProbeFailuresEndFast(t *testing.T) {
	cases := []struct {
		name        string
		answer      fixtureAnswer
		limits      Limits
		timeout     time.Duration // RequestTimeout
		wantOutcome Outcome
		wantStatus  int
		wantErr     string // in the step's Err
		wantNote    NoteCode
		atLeast     time.Duration // the probe takes at least this (a deadline had to pass)
		laterOK     bool          // the steps after tools/list still succeed
	}{
		{name: "500 on tools/list", answer: answerStatus(http.StatusInternalServerError),
			wantOutcome: OutcomeTransport, wantStatus: 500, laterOK: true},
		{name: "text/plain answer", answer: answerText,
			wantOutcome: OutcomeNoAnswer, wantStatus: 200, laterOK: true},
		{name: "event stream ends without the response", answer: answerSSEBroken,
			wantOutcome: OutcomeNoAnswer, wantStatus: 200, wantNote: NoteStreamEnded, laterOK: true},
		{name: "event stream never ends", answer: answerSSEHang, timeout: 300 * time.Millisecond,
			wantOutcome: OutcomeNoAnswer, wantNote: NoteTimeout, atLeast: 300 * time.Millisecond, laterOK: true},
		{name: "body over the message limit", answer: answerHuge(1 << 20), limits: Limits{MaxMessageBytes: 64 << 10},
			wantOutcome: OutcomeTransport, wantErr: "limit exceeded", wantNote: NoteTooLarge},
		{name: "an event stream floods the connection", answer: answerSSEFlood, limits: Limits{MaxTotalBytes: 256 << 10},
			wantOutcome: OutcomeTransport, wantErr: "limit exceeded", wantNote: NoteTooLarge},
		{name: "a redirect that would turn the POST into a GET", answer: answerRedirect(http.StatusFound, "/elsewhere"),
			wantOutcome: OutcomeTransport, wantStatus: http.StatusFound, laterOK: true},
		{name: "body trickles in", answer: answerTrickle, timeout: 300 * time.Millisecond,
			wantOutcome: OutcomeNoAnswer, wantErr: "timed out", wantNote: NoteTimeout, atLeast: 300 * time.Millisecond, laterOK: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fx := newMCPFixture(t, protocol.Revision20251125)
			fx.answers["tools/list"] = tc.answer
			srv := fx.start()
			o := testOptions()
			o.Limits = tc.limits
			if tc.timeout > 0 {
				o.RequestTimeout = tc.timeout
			}
			res, took := runProbe(t, Target{URL: srv.URL}, o)
			// The failure itself must not wait for a deadline, and nothing after it may hang.
			if limit := 3*time.Second + 4*tc.atLeast; took > limit {
				t.Errorf("probe took %v, want under %v", took, limit)
			}
			if took < tc.atLeast {
				t.Errorf("probe took %v, less than the deadline %v it had to wait for", took, tc.atLeast)
			}
			st := stepNamed(t, res, ConnMain, StepToolsList)
			if st.Outcome != tc.wantOutcome || st.HTTPStatus != tc.wantStatus {
				t.Errorf("tools/list: outcome %s status %d (%s), want %s status %d", st.Outcome, st.HTTPStatus, st.Err, tc.wantOutcome, tc.wantStatus)
			}
			if !strings.Contains(st.Err, tc.wantErr) {
				t.Errorf("tools/list error %q, want it to mention %q", st.Err, tc.wantErr)
			}
			sent, _ := frameAt(res, st.Request)
			frames := framesOf(res, ConnMain, sent.Exchange)
			if tc.wantNote != "" {
				if _, ok := hasNote(frames, tc.wantNote); !ok {
					t.Errorf("no %s note in exchange %d", tc.wantNote, sent.Exchange)
				}
			}
			if tc.laterOK {
				if ping := stepNamed(t, res, ConnMain, StepPing); ping.Outcome != OutcomeOK {
					t.Errorf("ping after the failure: %s (%s)", ping.Outcome, ping.Err)
				}
			}
			logFramesOnFailure(t, frames)
		})
	}
}

func TestHTTPFailureFrames(t *testing.T) {
	t.Run("an error status records the head and then its JSON body as a message", func(t *testing.T) {
		fx := newMCPFixture(t, protocol.Revision20251125)
		fx.answers["tools/list"] = answerStatus(http.StatusInternalServerError)
		res, _ := runProbe(t, Target{URL: fx.start().URL}, testOptions())
		st := stepNamed(t, res, ConnMain, StepToolsList)
		sent, _ := frameAt(res, st.Request)
		frames := framesOf(res, ConnMain, sent.Exchange)
		if len(frames) != 3 || frames[1].Kind != KindHTTPResponse || frames[2].Kind != KindMessage {
			t.Fatalf("frames: %+v", frames)
		}
		if st.Response != frames[1].Seq || !json.Valid(frames[2].Raw) || frames[1].HTTP.Status != 500 {
			t.Errorf("response %d, frames %+v", st.Response, frames)
		}
	})
	t.Run("a body over the limit is recorded cut and marked", func(t *testing.T) {
		fx := newMCPFixture(t, protocol.Revision20251125)
		fx.answers["tools/list"] = answerHuge(1 << 20)
		o := testOptions()
		o.Limits.MaxMessageBytes = 64 << 10
		res, _ := runProbe(t, Target{URL: fx.start().URL}, o)
		st := stepNamed(t, res, ConnMain, StepToolsList)
		sent, _ := frameAt(res, st.Request)
		frames := framesOf(res, ConnMain, sent.Exchange)
		if len(frames) < 3 || frames[1].Kind != KindMessage || !frames[1].Truncated || len(frames[1].Raw) != 64<<10 {
			t.Fatalf("frames: %d, first In %+v", len(frames), frames[1].HTTP)
		}
	})
}

func TestHTTPUnreachableServerNamesTheRequestOnce(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	endpoint := "http://" + ln.Addr().String() + "/mcp"
	ln.Close() // nothing listens there any more: every dial is refused
	res, _ := runProbe(t, Target{URL: endpoint}, testOptions())
	st := stepNamed(t, res, ConnMain, StepInitialize)
	if st.Outcome != OutcomeTransport || !strings.Contains(st.Err, "connection refused") {
		t.Fatalf("initialize: outcome %s, error %q", st.Outcome, st.Err)
	}
	// The client's own error ("Post \"URL\": dial ...") would name the request a second time.
	if n := strings.Count(st.Err, endpoint); n != 1 || strings.Contains(st.Err, "Post ") {
		t.Errorf("error %q names the URL %d times, want once, after the method", st.Err, n)
	}
}

func TestHTTPRedactsSecrets(t *testing.T) {
	const token = "tok-8f2e1c9a77d4"
	const apiKey = "key-0b9d6e55aa31"
	echo := func(w http.ResponseWriter, r *http.Request, f *mcpFixture, m fixtureMessage) {
		// A careless server echoing credentials in its headers and its body.
		w.Header().Set("X-Echo", r.Header.Get("Authorization"))
		w.Header().Set("Set-Cookie", "sid="+r.Header.Get("X-Team-Key"))
		w.Header().Set("Content-Type", "application/json")
		resp := f.response(m)
		resp = []byte(strings.Replace(string(resp), `"fixture"`, `"fixture for `+r.Header.Get("X-Team-Key")+` `+token+`"`, 1))
		_, _ = w.Write(resp)
	}
	fx := newMCPFixture(t, protocol.Revision20251125)
	fx.answers["initialize"] = echo
	srv := fx.start()
	target := Target{URL: srv.URL, Header: http.Header{"Authorization": {"Bearer " + token}, "X-Team-Key": {apiKey}}}
	res, _ := runProbe(t, target, testOptions())
	if res.Err != "" {
		t.Fatalf("probe failed: %s", res.Err)
	}
	got := fx.requests()
	if got[0].Header.Get("X-Team-Key") != apiKey || got[0].Header.Get("Authorization") != "Bearer "+token {
		t.Fatalf("the server did not get the user's headers: %v", got[0].Header)
	}
	redacted := 0
	for _, f := range res.Frames {
		meta, _ := json.Marshal(f)
		for _, text := range []string{string(f.Raw), string(meta)} {
			if strings.Contains(text, token) || strings.Contains(text, apiKey) {
				t.Errorf("frame %d (%s %s) holds a secret: %s", f.Seq, f.Dir, f.Kind, text)
			}
			redacted += strings.Count(text, redact.Redacted)
		}
	}
	if redacted == 0 {
		t.Error("nothing was marked redacted")
	}
}

func TestHTTPTLS(t *testing.T) {
	fx := newMCPFixture(t, protocol.Revision20251125)
	fx.answers["tools/list"] = answerSSE // event streams over HTTP/2
	srv := httptest.NewUnstartedServer(fx)
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshakes are expected
	srv.EnableHTTP2 = true
	srv.StartTLS()
	t.Cleanup(srv.Close)
	cases := []struct {
		name       string
		target     Target
		client     *http.Client
		wantOK     bool
		wantVerify string // in TLS.VerifyError; "" = verified
	}{
		{name: "an unverifiable certificate is probed and reported", target: Target{URL: srv.URL},
			wantOK: true, wantVerify: "certificate"},
		{name: "a client that trusts the certificate verifies it", target: Target{URL: srv.URL},
			client: srv.Client(), wantOK: true},
		{name: "credentials are not sent over an unverifiable certificate",
			target: Target{URL: srv.URL, Header: http.Header{"Authorization": {"Bearer tok-8f2e1c9a77d4"}}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := testOptions()
			o.HTTPClient = tc.client
			res, _ := runProbe(t, tc.target, o)
			st := stepNamed(t, res, ConnMain, StepInitialize)
			if (st.Outcome == OutcomeOK) != tc.wantOK {
				t.Fatalf("initialize: %s (%s)", st.Outcome, st.Err)
			}
			if !tc.wantOK {
				if !strings.Contains(st.Err, "refusing to send credentials") {
					t.Errorf("error %q does not say why", st.Err)
				}
				return
			}
			head, _ := frameAt(res, st.Response)
			info := head.HTTP.TLS
			// The probe's own client handshakes per connection; the two connections may share
			// a given client's (HTTP/2) connection, dialled for either of them.
			timing := head.HTTP.Timing
			if info == nil || info.Version == "" || info.NotAfter.IsZero() || (tc.client == nil && timing.TLS <= 0) {
				t.Fatalf("TLS info %+v timing %+v", info, head.HTTP.Timing)
			}
			if !strings.Contains(info.VerifyError, tc.wantVerify) || (tc.wantVerify == "") != (info.VerifyError == "") {
				t.Errorf("VerifyError %q, want %q", info.VerifyError, tc.wantVerify)
			}
			if st := stepNamed(t, res, ConnMain, StepToolsList); st.Outcome != OutcomeOK {
				t.Errorf("tools/list over an event stream: %s (%s)", st.Outcome, st.Err)
			}
			if reqs := fx.requests(); reqs[len(reqs)-1].Proto != "HTTP/2.0" {
				t.Errorf("spoken over %s, want HTTP/2.0", reqs[len(reqs)-1].Proto)
			}
		})
	}
}

// recordingWire is the session's own wire over a fresh transcript, for transport tests.
func recordingWire(o Options) (*connWire, *Transcript) {
	tr := NewTranscript()
	return newConnWire(ConnMain, tr, o.WithDefaults().Limits, nil), tr
}

func TestHTTPCloseStopsStreamsAndDeletesTheSession(t *testing.T) {
	fx := newMCPFixture(t, protocol.Revision20251125)
	fx.answers["tools/list"] = answerSSEHang
	srv := fx.start()
	o := testOptions().WithDefaults()
	w, transcript := recordingWire(o)
	ctx := context.Background()
	tr, err := dialHTTP(ctx, Target{URL: srv.URL}, ConnMain, w, o)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tr.Send(ctx, encodeMessage([]byte("1"), "initialize", initializeParams(o))); err != nil {
		t.Fatal(err)
	}
	if _, err := tr.Send(ctx, encodeMessage([]byte("2"), "tools/list", nil)); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := tr.Close(ctx); err != nil {
		t.Errorf("Close: %v", err)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("Close took %v with a stream open", took)
	}
	if err := tr.Close(ctx); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := tr.Send(ctx, encodeMessage([]byte("3"), "ping", nil)); !errors.Is(err, ErrClosed) {
		t.Errorf("Send after Close: %v, want ErrClosed", err)
	}

	var sid string
	for _, req := range fx.requests() {
		if req.RPCMethod == "tools/list" {
			sid = req.Header.Get("Mcp-Session-Id")
		}
	}
	reqs := fx.requests()
	last := reqs[len(reqs)-1]
	if last.HTTPMethod != http.MethodDelete || sid == "" || last.Header.Get("Mcp-Session-Id") != sid {
		t.Errorf("last request %s with session %q, want DELETE with %q", last.HTTPMethod, last.Header.Get("Mcp-Session-Id"), sid)
	}
	var ended, deleteOut, deleteIn bool
	for _, f := range transcript.Frames() {
		switch {
		case f.Kind == KindNote && f.Note == NoteStreamEnded && f.Exchange == 2:
			ended = strings.Contains(f.Detail, "closed by the probe")
		case f.Dir == Out && f.Kind == KindHTTPRequest && f.HTTP.Method == http.MethodDelete:
			deleteOut = f.Exchange == 3 && f.HTTP.Header.Get("Mcp-Session-Id") == sid
		case f.Dir == In && f.Kind == KindHTTPResponse && f.Exchange == 3:
			deleteIn = f.HTTP.Status == http.StatusNoContent
		}
	}
	if !ended || !deleteOut || !deleteIn {
		t.Errorf("stream ended %v, DELETE recorded %v, its answer %v", ended, deleteOut, deleteIn)
	}
}

func TestReadAllSizedReadsTheWholeBodyWhateverItsLengthSays(t *testing.T) {
	body := strings.Repeat("x", 3000)
	for _, tc := range []struct {
		name      string
		announced int64
		limit     int
	}{
		{"exact", 3000, 1 << 20},
		{"unknown", -1, 1 << 20},
		{"announced shorter", 10, 1 << 20},
		{"announced longer", 5000, 1 << 20},
		{"announced zero", 0, 1 << 20},
		{"announced over the limit", 1 << 30, 1 << 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := readAllSized(iotest.OneByteReader(strings.NewReader(body)), tc.announced, tc.limit)
			if err != nil || string(got) != body {
				t.Fatalf("read %d bytes, err %v; want all %d", len(got), err, len(body))
			}
		})
	}
	if _, err := readAllSized(iotest.ErrReader(io.ErrUnexpectedEOF), 10, 100); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("a failing read: %v", err)
	}
}

// headerValue is given keys in canonical form only: for those it is http.Header.Get.
func TestHeaderValueKeysAreCanonical(t *testing.T) {
	for _, key := range []string{"User-Agent", "Accept-Encoding", "Content-Type", "Content-Encoding", protocol.HeaderSessionID} {
		if c := http.CanonicalHeaderKey(key); c != key {
			t.Errorf("%q is not canonical (%q)", key, c)
		}
		h := http.Header{key: {"a", "b"}}
		if got, want := headerValue(h, key), h.Get(key); got != want {
			t.Errorf("%s: %q, Get %q", key, got, want)
		}
	}
}
