package probe

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/internal/testkit/fixture"
	"github.com/mcpwatch/mcpwatch/protocol"
)

// eraRequest is one request a test server received: what the probe sent, headers included.
type eraRequest struct {
	method string // JSON-RPC method ("" for none)
	header http.Header
	body   []byte
}

// eraRecorder serves next and keeps every request it saw.
type eraRecorder struct {
	next http.Handler
	mu   sync.Mutex
	seen []eraRequest
}

func (h *eraRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	var m struct {
		Method string `json:"method"`
	}
	_ = json.Unmarshal(body, &m)
	h.mu.Lock()
	h.seen = append(h.seen, eraRequest{method: m.Method, header: r.Header.Clone(), body: body})
	h.mu.Unlock()
	h.next.ServeHTTP(w, r)
}

func (h *eraRecorder) requests() []eraRequest {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]eraRequest(nil), h.seen...)
}

func eraFixture(t *testing.T, cfg fixture.Config) (*httptest.Server, *eraRecorder) {
	t.Helper()
	srv, err := fixture.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	rec := &eraRecorder{next: srv.Handler()}
	ts := httptest.NewServer(rec)
	t.Cleanup(ts.Close)
	return ts, rec
}

// eraOptions leave the revision to era detection.
func eraOptions() Options {
	o := testOptions()
	o.ProtocolVersion = ""
	return o
}

func stepNames(res *Result, conn int) []string {
	var out []string
	for _, st := range res.Steps {
		if st.Conn == conn {
			out = append(out, st.Name)
		}
	}
	return out
}

func TestEraDetectionFallsBackToInitializeOnASessionServer(t *testing.T) {
	targets := map[string]Target{"stdio": stdioTestTarget(t, "mcp")}
	ts, _ := eraFixture(t, fixture.Config{})
	targets["http"] = Target{URL: ts.URL + "/mcp"}
	for name, target := range targets {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			res, _ := runProbe(t, target, eraOptions())
			if res.Err != "" {
				t.Fatalf("probe error: %s", res.Err)
			}
			disc := stepNamed(t, res, ConnMain, StepDiscover)
			if disc.Outcome == OutcomeOK {
				t.Errorf("server/discover: %s, want it refused", disc.Outcome)
			}
			init := stepNamed(t, res, ConnMain, StepInitialize)
			if init.Outcome != OutcomeOK || init.Request < disc.Request {
				t.Errorf("initialize: %s at frame %d (discover at %d), want a result after server/discover", init.Outcome, init.Request, disc.Request)
			}
			if res.Requested != protocol.LatestSessionRevision || res.Negotiated != protocol.LatestSessionRevision || res.Discover != nil {
				t.Errorf("requested %q negotiated %q discover %s, want %s and no DiscoverResult", res.Requested, res.Negotiated, res.Discover, protocol.LatestSessionRevision)
			}
			if _, ok := res.FirstStep(StepInitializeBogus); !ok {
				t.Error("the negotiation connection did not offer the bogus revision")
			}
		})
	}
}

func TestEraDetectionFindsAStatelessServer(t *testing.T) {
	ts, rec := eraFixture(t, fixture.Config{StatelessOnly: true})
	res, _ := runProbe(t, Target{URL: ts.URL + "/mcp"}, eraOptions())
	if res.Err != "" {
		t.Fatalf("probe error: %s", res.Err)
	}
	if res.Negotiated != protocol.Revision20260728 || res.ProtocolVersion != protocol.Revision20260728 || res.Discover == nil || res.Initialize != nil {
		t.Fatalf("negotiated %q, discover %s, initialize %s: want a stateless 2026-07-28 probe", res.Negotiated, res.Discover, res.Initialize)
	}
	wantMain := []string{StepDiscover, StepUnknownNotification, StepToolsList, StepResourcesList, StepTemplatesList, StepPromptsList, StepUnknownMethod}
	if got := stepNames(res, ConnMain); strings.Join(got, ",") != strings.Join(wantMain, ",") {
		t.Errorf("main connection steps %v, want %v", got, wantMain)
	}
	if st := stepNamed(t, res, ConnNegotiation, StepDiscoverUnsupported); bodyErrorCode(res, st) != protocol.CodeUnsupportedProtocolVersion || st.HTTPStatus != 400 {
		t.Errorf("unsupported revision: %+v, want -32022 with 400", st)
	}
	for _, name := range []string{StepMetaMissing, StepMetaNoProtocolVersion, StepMetaNoClientCapabilities} {
		if st := stepNamed(t, res, ConnNegotiation, name); bodyErrorCode(res, st) != -32602 || st.HTTPStatus != 400 {
			t.Errorf("%s: %+v, want -32602 with 400", name, st)
		}
	}
	// Every POST of the stateless conversation carries the revision in its header and in
	// _meta, names its method, and no session.
	n, lacking := 0, 0
	for _, r := range rec.requests() {
		if r.method == "" || r.header.Get("Mcp-Method") == "" && r.header.Get(protocol.HeaderProtocolVersion) == "" {
			continue // the rule probes' own requests
		}
		n++
		version := r.header.Get(protocol.HeaderProtocolVersion)
		if r.header.Get("Mcp-Method") != r.method || r.header.Get(protocol.HeaderSessionID) != "" {
			t.Errorf("%s: Mcp-Method %q, Mcp-Session-Id %q", r.method, r.header.Get("Mcp-Method"), r.header.Get(protocol.HeaderSessionID))
		}
		var p struct {
			Params struct {
				Meta map[string]json.RawMessage `json:"_meta"`
			} `json:"params"`
		}
		_ = json.Unmarshal(r.body, &p)
		var metaVersion string
		_ = json.Unmarshal(p.Params.Meta[protocol.MetaProtocolVersion], &metaVersion)
		if metaVersion != "" && metaVersion != version {
			t.Errorf("%s: MCP-Protocol-Version %q but _meta names %q", r.method, version, metaVersion)
		}
		if !strings.Contains(string(r.body), "clientCapabilities") && !strings.HasPrefix(r.method, "notifications/") &&
			!bytes.Contains(r.body, []byte(`"params":{}`)) {
			// Only the negotiation connection's request that lacks it on purpose.
			if lacking++; lacking > 1 {
				t.Errorf("%s carries no clientCapabilities: %s", r.method, r.body)
			}
		}
	}
	if n < len(wantMain)+2 {
		t.Errorf("%d stateless POSTs seen, want at least %d", n, len(wantMain)+2)
	}
}

// TestEraDetectionSendsInitializeWhenDiscoverGoesUnanswered: a session-era server that
// ignores a method it does not know costs the era window, not a whole init timeout.
func TestEraDetectionSendsInitializeWhenDiscoverGoesUnanswered(t *testing.T) {
	srv, err := fixture.New(fixture.Config{})
	if err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	defer close(release)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if bytes.Contains(body, []byte(`"server/discover"`)) {
			select { // the answer never comes, until the test ends
			case <-release:
			case <-r.Context().Done():
			}
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		srv.Handler().ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	o := eraOptions()
	o.InitTimeout = 8 * time.Second // an era window of 2s
	res, took := runProbe(t, Target{URL: ts.URL + "/mcp"}, o)
	if init := stepNamed(t, res, ConnMain, StepInitialize); init.Outcome != OutcomeOK {
		t.Fatalf("initialize: %s (%s)", init.Outcome, init.Err)
	}
	if disc := stepNamed(t, res, ConnMain, StepDiscover); disc.Outcome != OutcomeNoAnswer || disc.Err != errNotAwaited.Error() {
		t.Errorf("server/discover: %s (%s), want it no longer awaited", disc.Outcome, disc.Err)
	}
	if res.Negotiated != protocol.LatestSessionRevision {
		t.Errorf("negotiated %q", res.Negotiated)
	}
	if took > o.InitTimeout/2 {
		t.Errorf("the probe took %s: the unanswered server/discover cost more than the era window", took)
	}
}

func TestAnExplicitRevisionIsOfferedWithoutFallback(t *testing.T) {
	ts, _ := eraFixture(t, fixture.Config{})
	o := testOptions()
	o.ProtocolVersion = protocol.Revision20260728
	res, _ := runProbe(t, Target{URL: ts.URL + "/mcp"}, o)
	if !strings.Contains(res.Err, "server/discover failed") || res.Negotiated != "" {
		t.Errorf("err %q negotiated %q: a session-era server asked for 2026-07-28 must fail it", res.Err, res.Negotiated)
	}
	if _, ok := res.FirstStep(StepInitialize); ok {
		t.Error("initialize was sent although the revision was explicit")
	}
	if _, ok := res.FirstStep(StepDiscoverUnsupported); ok {
		t.Error("the negotiation connection probed a revision the server had refused")
	}
	o.ProtocolVersion = protocol.Revision20250618
	res, _ = runProbe(t, Target{URL: ts.URL + "/mcp"}, o)
	if _, ok := res.FirstStep(StepDiscover); ok || res.Negotiated != protocol.Revision20250618 {
		t.Errorf("negotiated %q; an explicit session revision must be offered in initialize alone", res.Negotiated)
	}
}

func TestStatelessAnswerNeverKeysOnOneErrorCode(t *testing.T) {
	code := func(c int64) *int64 { return &c }
	tests := []struct {
		name string
		step Step
		data string // error.data of the answering frame
		want bool
	}{
		{"a DiscoverResult listing the revision", Step{Outcome: OutcomeOK, Result: json.RawMessage(`{"supportedVersions":["2026-07-28"]}`)}, "", true},
		{"a DiscoverResult listing session revisions only", Step{Outcome: OutcomeOK, Result: json.RawMessage(`{"supportedVersions":["2025-11-25"]}`)}, "", false},
		{"a result without supportedVersions", Step{Outcome: OutcomeOK, Result: json.RawMessage(`{}`)}, "", true},
		{"-32020 header mismatch", Step{Outcome: OutcomeError, ErrorCode: code(-32020)}, "", true},
		{"-32022 naming stateless revisions", Step{Outcome: OutcomeError, ErrorCode: code(-32022)}, `{"supported":["2027-01-01"]}`, true},
		{"-32022 naming session revisions", Step{Outcome: OutcomeError, ErrorCode: code(-32022)}, `{"supported":["2025-11-25","2027-01-01"]}`, false},
		{"-32601", Step{Outcome: OutcomeError, ErrorCode: code(-32601)}, "", false},
		{"-32000 naming stateless revisions only", Step{Outcome: OutcomeError, ErrorCode: code(-32000)}, `{"supported":["2027-01-01"]}`, true},
		{"-32602", Step{Outcome: OutcomeError, ErrorCode: code(-32602)}, "", false},
		{"an HTTP error page", Step{Outcome: OutcomeTransport, HTTPStatus: 404}, "", false},
		{"silence", Step{Outcome: OutcomeNoAnswer}, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := NewTranscript()
			s := &session{transcript: tr}
			tt.step.Response = -1
			if tt.data != "" {
				tt.step.Response = tr.Append(Frame{Dir: In, Kind: KindMessage,
					Raw: []byte(`{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"x","data":` + tt.data + `}}`)})
			}
			if got := statelessAnswer(s, tt.step, protocol.Revision20260728); got != tt.want {
				t.Errorf("stateless = %v, want %v", got, tt.want)
			}
		})
	}
}

// bodyErrorCode is the error code that answered a step, read as era detection reads it (0
// when there is none).
func bodyErrorCode(res *Result, st Step) int64 {
	tr := NewTranscript()
	for _, f := range res.Frames {
		tr.Append(f)
	}
	code, _ := errorCodeOf(&session{transcript: tr}, st)
	return code
}

func TestRecordingKeepsTheDiscoverResult(t *testing.T) {
	ts, _ := eraFixture(t, fixture.Config{StatelessOnly: true})
	res, _ := runProbe(t, Target{URL: ts.URL + "/mcp"}, eraOptions())
	var buf bytes.Buffer
	if err := WriteRecording(&buf, res); err != nil {
		t.Fatal(err)
	}
	back, err := ReadRecording(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(back.Discover, res.Discover) || len(back.Discover) == 0 || back.Transport != res.Transport {
		t.Errorf("discover %s / %s, transport %s / %s", back.Discover, res.Discover, back.Transport, res.Transport)
	}
}

// TestEraDetectionLeavesASlowStdioServerInTheEraItJudges: a stdio server of both eras that
// takes longer than the era window to start answers server/discover late; initialize must
// not reach the process meanwhile, since it would select the session era for the whole
// process (2026-07-28 basic/versioning: "An initialize request selects legacy semantics,
// scoped to the stdio process (stdio) or the session (HTTP)"), and the stateless results
// judged after it would be session-era ones.
func TestEraDetectionLeavesASlowStdioServerInTheEraItJudges(t *testing.T) {
	o := eraOptions()
	o.InitTimeout = 10 * time.Second
	res, _ := runProbe(t, stdioTestTarget(t, "keeps-era:3s"), o)
	requireStatelessMainProcess(t, res)
	lists := 0
	for _, st := range res.Steps {
		if st.Conn != ConnMain || st.Name != StepToolsList || st.Outcome != OutcomeOK {
			continue
		}
		lists++
		var r struct {
			ResultType string `json:"resultType"`
		}
		if json.Unmarshal(st.Result, &r) != nil || r.ResultType != "complete" {
			t.Errorf("tools/list on the main process: %s, want a stateless result (resultType complete)", st.Result)
		}
	}
	if lists == 0 {
		t.Error("no tools/list result on the main process")
	}
	// The era probe's own process is the one that met initialize, and it tells that the
	// server speaks the session era too.
	if st := stepNamed(t, res, ConnSessionEra, StepEraInitialize); st.Outcome != OutcomeOK {
		t.Errorf("the era probe's initialize: %s (%s), want a result", st.Outcome, st.Err)
	}
}

// TestEraDetectionWaitsForASlowFirstProcessOfADualEraServer: a dual-era stdio server whose
// first process starts slower than the era probe's (3.2 s against 0.8 s: on a loaded machine
// the two starts differ by more than the era window) answers server/discover after the era
// probe's initialize was answered. That answer came within as long again as the era probe's
// initialize took, so it decides: the server speaks the stateless revision on the main
// process, which never gets initialize. Judging it in the session era instead made the same
// server's stateless checks skip from run to run.
func TestEraDetectionWaitsForASlowFirstProcessOfADualEraServer(t *testing.T) {
	o := eraOptions()
	o.InitTimeout = 10 * time.Second
	res, _ := runProbe(t, stdioTestTarget(t, "keeps-era-slower-on-discover:3200ms:800ms"), o)
	if st := stepNamed(t, res, ConnSessionEra, StepEraInitialize); st.Outcome != OutcomeOK {
		t.Fatalf("the era probe's initialize: %s (%s), want a result before server/discover's", st.Outcome, st.Err)
	}
	requireStatelessMainProcess(t, res)
}

// requireStatelessMainProcess fails a probe of a dual-era stdio server unless it went without
// error in the stateless revision and the main process never got initialize, which would
// have held that process in the session era.
func requireStatelessMainProcess(t *testing.T, res *Result) {
	t.Helper()
	if res.Err != "" {
		t.Fatalf("probe error: %s", res.Err)
	}
	if res.Negotiated != protocol.Revision20260728 || res.Discover == nil {
		t.Fatalf("negotiated %q, discover %s: want the stateless revision", res.Negotiated, res.Discover)
	}
	for _, st := range res.Steps {
		if st.Conn == ConnMain && st.Method == "initialize" {
			t.Errorf("the main process got initialize (%s, step %q) while its server/discover could still be answered", st.Outcome, st.Name)
		}
	}
}

// TestEraDetectionFallsBackOnAStdioServerThatIgnoresDiscover: a session-era stdio server
// slow to start that ignores server/discover is found by the era probe's initialize on a
// process of its own; the main process then gets initialize (never before), and the probe
// goes on in the session era without waiting out the init timeout.
func TestEraDetectionFallsBackOnAStdioServerThatIgnoresDiscover(t *testing.T) {
	o := eraOptions()
	o.InitTimeout = 20 * time.Second
	res, took := runProbe(t, stdioTestTarget(t, "ignores-discover:1s"), o)
	if res.Err != "" {
		t.Fatalf("probe error: %s", res.Err)
	}
	if st := stepNamed(t, res, ConnSessionEra, StepEraInitialize); st.Outcome != OutcomeOK {
		t.Errorf("the era probe's initialize: %s (%s), want a result", st.Outcome, st.Err)
	}
	disc := stepNamed(t, res, ConnMain, StepDiscover)
	if disc.Outcome != OutcomeNoAnswer || disc.Err != errNotAwaited.Error() {
		t.Errorf("server/discover: %s (%s), want it no longer awaited", disc.Outcome, disc.Err)
	}
	init := stepNamed(t, res, ConnMain, StepInitialize)
	if init.Outcome != OutcomeOK || res.Negotiated != protocol.LatestSessionRevision {
		t.Fatalf("initialize: %s, negotiated %q: want the session era", init.Outcome, res.Negotiated)
	}
	if took > o.InitTimeout/2 {
		t.Errorf("the probe took %s: it waited for server/discover after the era probe answered", took)
	}
}

// TestMetaProbesNamingNoRevisionComeLast: on the negotiation connection the requests whose
// _meta names the revision come first, then the second connection's lists (lists.stable),
// which must be answered in the stateless era; those that name no revision, which a dual-era
// server may read as session-era requests and hold the process in that era (context7 4.1.1
// does: it answers the lists that follow them without resultType), come after them and before
// the robustness probes (which may end the process). When a dual-era stdio server does not refuse
// them with -32602, the era probe's initialize, on a process of its own, tells that it also
// speaks a session revision.
func TestMetaProbesNamingNoRevisionComeLast(t *testing.T) {
	o := eraOptions()
	o.skipRules = false
	res, _ := runProbe(t, stdioTestTarget(t, "keeps-era:0s"), o)
	if res.Err != "" {
		t.Fatalf("probe error: %s", res.Err)
	}
	want := []string{StepDiscoverUnsupported, StepMetaNoClientCapabilities, StepMetaNoClientInfo,
		StepToolsListOther, StepMetaNoProtocolVersion, StepMetaMissing, StepInvalidRequest}
	got := stepNames(res, ConnNegotiation)
	if len(got) < len(want) || strings.Join(got[:len(want)], ",") != strings.Join(want, ",") {
		t.Fatalf("negotiation connection steps %v, want them to begin with %v", got, want)
	}
	if st := stepNamed(t, res, ConnNegotiation, StepMetaNoClientCapabilities); st.ErrorCode == nil || *st.ErrorCode != -32602 {
		t.Errorf("a _meta without clientCapabilities: %s %v, want -32602", st.Outcome, st.ErrorCode)
	}
	if st := stepNamed(t, res, ConnNegotiation, StepMetaNoClientInfo); st.Outcome != OutcomeOK {
		t.Errorf("a _meta without clientInfo: %s, want it served", st.Outcome)
	}
	// The DiscoverResult lists session revisions: the server says it speaks both eras, and no
	// server process is started to ask it again.
	for _, st := range res.Steps {
		if st.Conn == ConnSessionEra {
			t.Errorf("era probe step %s on a server whose DiscoverResult lists session revisions", st.Name)
		}
	}
}

// TestEraProbeAsksWhatTheDiscoverResultDoesNotSay: a dual-era stdio server that refuses the
// requests naming no revision with -32601, and lists no session revision in its
// DiscoverResult, gets the era probe's initialize on a process of its own, so that
// discover.meta-required knows a session-era reading is open to it.
func TestEraProbeAsksWhatTheDiscoverResultDoesNotSay(t *testing.T) {
	o := eraOptions()
	o.skipRules = false
	res, _ := runProbe(t, stdioTestTarget(t, "keeps-era:unlisted:0s"), o)
	if res.Err != "" {
		t.Fatalf("probe error: %s", res.Err)
	}
	if st := stepNamed(t, res, ConnNegotiation, StepMetaMissing); st.ErrorCode == nil || *st.ErrorCode != -32601 {
		t.Fatalf("a request without _meta: %s %v, want -32601 (read as a session-era request)", st.Outcome, st.ErrorCode)
	}
	if st := stepNamed(t, res, ConnSessionEra, StepEraInitialize); !speaksSessionEra(st) {
		t.Errorf("the era probe's initialize: %s %s, want a session revision", st.Outcome, st.Result)
	}
}

// TestNoAnswerToServerRequestsUnderTheStatelessRevision: 2026-07-28 basic/transports/stdio,
// "Sending Messages": "The client MUST NOT write JSON-RPC responses." A server request there
// is recorded and left unanswered.
func TestNoAnswerToServerRequestsUnderTheStatelessRevision(t *testing.T) {
	res, _ := runProbe(t, stdioTestTarget(t, "stateless-asks"), eraOptions())
	if res.Err != "" || res.Negotiated != protocol.Revision20260728 {
		t.Fatalf("probe error %q, negotiated %q: want a stateless probe", res.Err, res.Negotiated)
	}
	asked := 0
	for _, f := range res.Frames {
		if f.Kind != KindMessage {
			continue
		}
		raw := string(f.Raw)
		switch {
		case f.Dir == In && strings.Contains(raw, `"method":"roots/list"`):
			asked++
		case f.Dir == Out && strings.Contains(raw, `"server-asks-`):
			t.Errorf("the probe answered a server request: %s", raw)
		}
	}
	if asked == 0 {
		t.Error("no roots/list request from the server in the transcript")
	}
}

// TestDualEraHTTPServerGetsTheSessionRuleProbes: with the revision left to detection, an
// HTTP server found stateless that also speaks a session revision keeps the session rules of
// that revision (2026-07-28 basic/versioning: "An initialize request selects legacy
// semantics, scoped to ... the session (HTTP)"), so the session-era rule probes run against
// it too; a stateless-only server gets none of them.
func TestDualEraHTTPServerGetsTheSessionRuleProbes(t *testing.T) {
	for _, tc := range []struct {
		name     string
		cfg      fixture.Config
		wantRule bool
	}{
		{"dual era", fixture.Config{Stateless: true, Fault: fixture.HTTPSessionIgnored}, true},
		{"stateless only", fixture.Config{StatelessOnly: true}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ts, _ := eraFixture(t, tc.cfg)
			o := eraOptions()
			o.skipRules = false
			res, _ := runProbe(t, Target{URL: ts.URL + "/mcp"}, o)
			if res.Err != "" || res.Negotiated != protocol.Revision20260728 {
				t.Fatalf("probe error %q, negotiated %q: want a stateless probe", res.Err, res.Negotiated)
			}
			era := stepNamed(t, res, ConnSessionEra, StepEraInitialize)
			if speaksSessionEra(era) != tc.wantRule {
				t.Errorf("the era probe's initialize: %s %s", era.Outcome, era.Result)
			}
			_, deleted := stepOn(res, ConnSession, StepSessionDeleted)
			_, header := stepOn(res, ConnProtocolHeader, StepProtocolHeaderInvalid)
			if deleted != tc.wantRule || header != tc.wantRule {
				t.Errorf("deleted-session probe sent: %v, protocol-header probe sent: %v, want %v", deleted, header, tc.wantRule)
			}
		})
	}
}

func stepOn(res *Result, conn int, name string) (Step, bool) {
	for _, st := range res.Steps {
		if st.Conn == conn && st.Name == name {
			return st, true
		}
	}
	return Step{}, false
}

// TestAllRevisionsMakeTheProbesOfADefaultRun: with every revision probed, the probe of the
// newest revision the server accepted (the one the report is about) makes the same probes a
// default run makes, so that both modes gate on the same evidence.
func TestAllRevisionsMakeTheProbesOfADefaultRun(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  fixture.Config
	}{
		{"dual era", fixture.Config{Stateless: true, Fault: fixture.HTTPSessionIgnored}},
		{"stateless only", fixture.Config{StatelessOnly: true}},
		{"session era", fixture.Config{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts, _ := eraFixture(t, tc.cfg)
			target := Target{URL: ts.URL + "/mcp"}
			o := eraOptions()
			o.skipRules = false
			def, _ := runProbe(t, target, o)
			o.ProtocolVersion = protocol.LatestSessionRevision
			results, err := RunRevisions(context.Background(), target, o, protocol.Revisions())
			if err != nil {
				t.Fatal(err)
			}
			all := results[NewestAccepted(results)]
			if all.Requested != def.ProtocolVersion {
				t.Fatalf("the report of all is about %s, the default run's about %s", all.Requested, def.ProtocolVersion)
			}
			probes := func(res *Result) []string {
				var out []string
				for _, st := range res.Steps {
					// The negotiation connection of a session revision offers a bogus one.
					if st.Name != StepInitializeBogus && st.Name != StepDiscover && st.Name != StepInitialize {
						out = append(out, fmt.Sprintf("%d/%s", st.Conn, st.Name))
					}
				}
				slices.Sort(out)
				return slices.Compact(out)
			}
			if got, want := probes(all), probes(def); !slices.Equal(got, want) {
				t.Errorf("probes of the revision the report is about:\n%v\nof a default run:\n%v", got, want)
			}
		})
	}
}

// TestEraDetectionOverHTTPLeavesTheMainConnectionSessionless: over HTTP too, a late answer to
// server/discover never meets an initialize on the main connection, whose session id would
// then ride on the stateless requests (initialize selects the session era for "the session
// (HTTP)", 2026-07-28 basic/versioning): the era probe's initialize goes on a connection of
// its own.
func TestEraDetectionOverHTTPLeavesTheMainConnectionSessionless(t *testing.T) {
	srv, err := fixture.New(fixture.Config{Stateless: true})
	if err != nil {
		t.Fatal(err)
	}
	rec := &eraRecorder{next: srv.Handler()}
	var once sync.Once
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		switch {
		case bytes.Contains(body, []byte(`"server/discover"`)):
			once.Do(func() { time.Sleep(1500 * time.Millisecond) }) // the first one comes late
		case bytes.Contains(body, []byte(`"initialize"`)):
			time.Sleep(time.Second) // and initialize later still
		}
		rec.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	o := eraOptions()
	o.InitTimeout = 2 * time.Second // an era window of 1s
	res, _ := runProbe(t, Target{URL: ts.URL + "/mcp"}, o)
	if res.Err != "" || res.Negotiated != protocol.Revision20260728 {
		t.Fatalf("probe error %q, negotiated %q: want the stateless revision", res.Err, res.Negotiated)
	}
	for _, st := range res.Steps {
		if st.Conn == ConnMain && st.Method == "initialize" {
			t.Errorf("initialize (%s) on the main connection", st.Name)
		}
	}
	stepNamed(t, res, ConnSessionEra, StepEraInitialize)
	for _, r := range rec.requests() {
		if r.header.Get(protocol.HeaderSessionID) != "" && strings.Contains(string(r.body), protocol.MetaProtocolVersion) {
			t.Errorf("a stateless %s carried Mcp-Session-Id", r.method)
		}
	}
}

// TestEraProbeLeftBehindIsNotWaitedFor: once server/discover settled the era, an era probe
// still waiting for its initialize is stopped, its exchange with it: a server that never
// answers that initialize does not hold the probe for another init timeout.
func TestEraProbeLeftBehindIsNotWaitedFor(t *testing.T) {
	srv, err := fixture.New(fixture.Config{})
	if err != nil {
		t.Fatal(err)
	}
	var inits atomic.Int32
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		switch {
		case bytes.Contains(body, []byte(`"server/discover"`)):
			time.Sleep(3 * time.Second) // answered (refused) after the era window
		case bytes.Contains(body, []byte(`"initialize"`)) && inits.Add(1) == 1:
			<-r.Context().Done() // the era probe's initialize is never answered
			return
		}
		srv.Handler().ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	o := eraOptions()
	o.InitTimeout = 10 * time.Second // an era window of 2s
	res, took := runProbe(t, Target{URL: ts.URL + "/mcp"}, o)
	if res.Negotiated != protocol.LatestSessionRevision {
		t.Fatalf("negotiated %q (err %q), want the session era", res.Negotiated, res.Err)
	}
	if st := stepNamed(t, res, ConnSessionEra, StepEraInitialize); st.Err != errNotAwaited.Error() {
		t.Errorf("the era probe's initialize: %s (%s), want it no longer awaited", st.Outcome, st.Err)
	}
	if took > 6*time.Second {
		t.Errorf("the probe took %s: it waited for the era probe's initialize", took)
	}
}
