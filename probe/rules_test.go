package probe

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/internal/testkit/fixture"
	"github.com/mcpwatch/mcpwatch/protocol"
)

// ruleTestOptions keep the rule probes (the transport tests leave them out).
func ruleTestOptions() Options {
	o := testOptions()
	o.skipRules = false
	return o
}

// ruleStep finds a rule probe's step.
func ruleStep(t *testing.T, res *Result, conn int, name string) Step {
	t.Helper()
	for _, s := range res.Steps {
		if s.Conn == conn && s.Name == name {
			return s
		}
	}
	t.Fatalf("no step %s on connection %d", name, conn)
	return Step{}
}

func code(st Step) int64 {
	if st.ErrorCode == nil {
		return 0
	}
	return *st.ErrorCode
}

// recordingHandler passes requests to h and keeps what the rule tests look at.
type recordingHandler struct {
	h http.Handler

	mu       sync.Mutex
	requests []recordedRequest
}

type recordedRequest struct {
	method, path string
	header       http.Header
	body         []byte
}

func (rh *recordingHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rh.mu.Lock()
	rh.requests = append(rh.requests, recordedRequest{r.Method, r.URL.Path, r.Header.Clone(), body})
	rh.mu.Unlock()
	r.Body = io.NopCloser(strings.NewReader(string(body)))
	rh.h.ServeHTTP(w, r)
}

func (rh *recordingHandler) all() []recordedRequest {
	rh.mu.Lock()
	defer rh.mu.Unlock()
	return append([]recordedRequest(nil), rh.requests...)
}

func fixtureServer(t *testing.T, f fixture.Fault) (*fixture.Server, *recordingHandler, string) {
	t.Helper()
	srv, err := fixture.New(fixture.Config{Fault: f})
	if err != nil {
		t.Fatal(err)
	}
	rh := &recordingHandler{h: srv.Handler()}
	ts := httptest.NewServer(rh)
	t.Cleanup(ts.Close)
	return srv, rh, ts.URL + "/mcp"
}

func TestRuleProbesOverHTTPAgainstAConformantServer(t *testing.T) {
	srv, rh, url := fixtureServer(t, fixture.Conformant)
	res, _ := runProbe(t, Target{URL: url}, ruleTestOptions())
	defer logFramesOnFailure(t, res.Frames)
	if res.Err != "" {
		t.Fatalf("probe failed: %s", res.Err)
	}
	statuses := []struct {
		conn   int
		step   string
		status int
	}{
		{ConnSession, StepSessionMissing, 400},
		{ConnSession, StepSessionUnknown, 404},
		{ConnSession, StepDeleteSession, 200},
		{ConnSession, StepSessionDeleted, 404},
		{ConnProtocolHeader, StepProtocolHeaderInvalid, 400},
		{ConnGetStream, StepGetStream, 405},
		{ConnOrigin, StepForeignOrigin, 403},
		{ConnNegotiation, StepParseError, 400},
		{ConnNegotiation, StepParseErrorPing, 200},
		{ConnNegotiation, StepInvalidRequest, 400},
		{ConnMain, StepUnknownTool, 200},
		{ConnMain, StepInvalidCursor, 200},
		{ConnAuth, StepAuthInitialize, 200},
	}
	for _, w := range statuses {
		if st := ruleStep(t, res, w.conn, w.step); st.HTTPStatus != w.status {
			t.Errorf("%s: HTTP %d (%s %s), want %d", w.step, st.HTTPStatus, st.Outcome, st.Err, w.status)
		}
	}
	for _, w := range []struct {
		conn int
		step string
		code int64
	}{
		{ConnNegotiation, StepParseError, -32700},
		{ConnNegotiation, StepInvalidRequest, -32600},
		{ConnMain, StepUnknownTool, -32602},
		{ConnMain, StepInvalidCursor, -32602},
	} {
		if st := ruleStep(t, res, w.conn, w.step); st.Outcome != OutcomeError || code(st) != w.code {
			t.Errorf("%s: %s code %d, want error %d", w.step, st.Outcome, code(st), w.code)
		}
	}
	// A server may serve ping to anyone; a listing belongs to a session, so the request
	// without a session id is one a server that requires sessions cannot serve.
	if st := ruleStep(t, res, ConnSession, StepSessionMissing); st.Method != "tools/list" {
		t.Errorf("%s: sent %s, want tools/list", StepSessionMissing, st.Method)
	}
	// Every session a rule probe opened was ended: a probe leaves nothing behind.
	if n := srv.Sessions(); n != 0 {
		t.Errorf("%d sessions left on the server", n)
	}
	// What was bent reached the server bent, and nothing else was.
	sawForeign := 0
	for _, req := range rh.all() {
		if req.header.Get("Origin") != "" {
			sawForeign++
			if req.header.Get("Origin") != ForeignOrigin || !strings.Contains(string(req.body), `"initialize"`) {
				t.Errorf("Origin %q on %s %s", req.header.Get("Origin"), req.method, req.body)
			}
		}
	}
	if sawForeign != 1 {
		t.Errorf("%d requests with an Origin, want the one initialize", sawForeign)
	}
}

// A rule probe never calls a tool the server lists: tools/call goes out once, with a name
// the listing on its own connection showed to be absent.
func TestUnknownToolProbeNeverCallsAListedTool(t *testing.T) {
	_, rh, url := fixtureServer(t, fixture.Conformant)
	res, _ := runProbe(t, Target{URL: url}, ruleTestOptions())
	listed := map[string]bool{}
	for _, st := range res.Steps {
		if st.Name != StepToolsList || st.Outcome != OutcomeOK {
			continue
		}
		var page struct {
			Tools []struct{ Name string } `json:"tools"`
		}
		_ = json.Unmarshal(st.Result, &page)
		for _, tool := range page.Tools {
			listed[tool.Name] = true
		}
	}
	if len(listed) == 0 {
		t.Fatal("the fixture listed no tools: the test would prove nothing")
	}
	calls := 0
	for _, req := range rh.all() {
		var m struct {
			Method string `json:"method"`
			Params struct {
				Name string `json:"name"`
			} `json:"params"`
		}
		if json.Unmarshal(req.body, &m) != nil || m.Method != "tools/call" {
			continue
		}
		calls++
		if listed[m.Params.Name] || !strings.HasPrefix(m.Params.Name, UnknownToolPrefix) {
			t.Errorf("tools/call of %q", m.Params.Name)
		}
	}
	if calls != 1 {
		t.Errorf("%d tools/call requests, want 1", calls)
	}
}

// The auth probe carries none of the user's credentials, and discovers the metadata at the
// URL the 401 names; no frame holds the token.
func TestAuthProbeGoesWithoutCredentials(t *testing.T) {
	_, rh, url := fixtureServer(t, fixture.AuthRequired)
	target := Target{URL: url, Header: http.Header{"Authorization": {"Bearer " + fixture.BearerToken}}}
	res, _ := runProbe(t, target, ruleTestOptions())
	if res.Err != "" {
		t.Fatalf("probe failed: %s", res.Err)
	}
	init := ruleStep(t, res, ConnAuth, StepAuthInitialize)
	if init.HTTPStatus != http.StatusUnauthorized {
		t.Fatalf("initialize without credentials: HTTP %d", init.HTTPStatus)
	}
	meta := ruleStep(t, res, ConnAuth, StepResourceMetadata)
	out, _ := frameAt(res, meta.Request)
	if meta.HTTPStatus != 200 || out.HTTP == nil || !strings.HasSuffix(out.HTTP.URL, WellKnownResourceMetadata+"/mcp") {
		t.Errorf("metadata: HTTP %d from %+v", meta.HTTPStatus, out.HTTP)
	}
	if head, _ := frameAt(res, meta.Response); head.Kind != KindHTTPResponse || !strings.Contains(string(head.Raw), "authorization_servers") {
		t.Errorf("the metadata document is recorded as %s %q", head.Kind, head.Raw)
	}
	anonymous := 0
	for _, req := range rh.all() {
		if req.header.Get("Authorization") == "" {
			anonymous++
		}
	}
	// The anonymous initialize, the protected resource metadata GET and the authorization
	// server metadata GET; the bogus token's initialize carries its own, every other request
	// had the user's.
	if anonymous != 3 {
		t.Errorf("%d requests without credentials, want 3", anonymous)
	}
	for _, f := range res.Frames {
		raw, _ := json.Marshal(f)
		if strings.Contains(string(raw)+string(f.Raw), fixture.BearerToken) {
			t.Errorf("frame %d holds the token", f.Seq)
		}
	}
}

func TestRuleProbesOverStdioRideTheNegotiationProcess(t *testing.T) {
	o := stdioTestOptions()
	o.skipRules = false
	res, _ := runProbe(t, stdioTestTarget(t, "fixture:"+string(fixture.Conformant)), o)
	pids := map[int]bool{}
	for _, p := range res.Processes {
		if pids[p.PID] || !p.Exited {
			t.Errorf("process %+v shared or left running", p)
		}
		pids[p.PID] = true
	}
	// Main, and negotiation carrying the robustness probes; the HTTP rules do not run on
	// stdio.
	if len(res.Processes) != 2 {
		t.Errorf("%d processes, want 2", len(res.Processes))
	}
	for _, conn := range []int{ConnSession, ConnGetStream, ConnOrigin, ConnAuth} {
		for _, s := range res.Steps {
			if s.Conn == conn {
				t.Errorf("step %s on connection %d: an HTTP rule probe ran on stdio", s.Name, conn)
			}
		}
	}
	for _, w := range []struct {
		conn int
		step string
		code int64
	}{
		{ConnNegotiation, StepInvalidRequest, -32600},
		{ConnNegotiation, StepParseError, -32700},
		{ConnMain, StepUnknownTool, -32602},
		{ConnMain, StepInvalidCursor, -32602},
	} {
		if st := ruleStep(t, res, w.conn, w.step); code(st) != w.code {
			t.Errorf("%s: %s code %d, want %d", w.step, st.Outcome, code(st), w.code)
		}
	}
	if st := ruleStep(t, res, ConnNegotiation, StepParseErrorPing); st.Outcome != OutcomeOK {
		t.Errorf("ping after the parse error: %s", st.Outcome)
	}
}

// A server that answers no initialize is not waited for again: the robustness probes get no
// connection (and no process) of their own, and under era detection, which makes the
// negotiation connection wait for the main one, the bogus revision is not offered either.
func TestServerThatNeverAnswersIsNotWaitedForTwice(t *testing.T) {
	for _, tc := range []struct {
		name      string
		detectEra bool
		wantBogus bool
	}{
		{name: "revision given", wantBogus: true},
		{name: "era detection", detectEra: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := stdioTestOptions()
			o.skipRules = false
			o.InitTimeout = 400 * time.Millisecond
			if tc.detectEra {
				o.ProtocolVersion, o.detectEra = protocol.LatestRevision, true
			}
			res, _ := runProbe(t, stdioTestTarget(t, "deaf"), o)
			if !strings.HasPrefix(res.Err, "initialize failed") {
				t.Fatalf("probe error %q, want the failed initialize", res.Err)
			}
			bogus := false
			for _, s := range res.Steps {
				if s.Conn == ConnRobustness {
					t.Errorf("step %s on a robustness connection of its own", s.Name)
				}
				bogus = bogus || s.Name == StepInitializeBogus
			}
			if bogus != tc.wantBogus {
				t.Errorf("initialize with the bogus revision sent: %v, want %v", bogus, tc.wantBogus)
			}
			// Under era detection the era probe starts a process of its own once the era
			// window passed without an answer to server/discover (see settleStdioEra).
			if want := 2 + btoi(tc.detectEra); len(res.Processes) != want {
				t.Errorf("%d processes, want %d (main, negotiation and, under era detection, the era probe)", len(res.Processes), want)
			}
			for _, p := range res.Processes {
				if !p.Exited {
					t.Errorf("process %+v left running", p)
				}
			}
		})
	}
}

// Over HTTP the rule connections are left out only when the main connection's handshake got
// no HTTP answer at all: a hanging server makes none of them wait out the init timeout again,
// while one that answers 401 still gets the authorization probes that judge it.
func TestHTTPRuleProbesFollowWhetherTheServerAnswered(t *testing.T) {
	hanging := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Read to the end, so that the server notices when the probe hangs up.
		_, _ = io.Copy(io.Discard, r.Body)
		<-r.Context().Done()
	}))
	t.Cleanup(hanging.Close)
	_, _, protected := fixtureServer(t, fixture.AuthRequired)
	for _, tc := range []struct {
		name     string
		url      string
		wantAuth bool // the auth probe ran
	}{
		{name: "a server that hangs", url: hanging.URL},
		{name: "a server that wants credentials the probe lacks", url: protected, wantAuth: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := ruleTestOptions()
			o.InitTimeout = 400 * time.Millisecond
			o.ProtocolVersion, o.detectEra = protocol.LatestRevision, true
			res, _ := runProbe(t, Target{URL: tc.url}, o)
			if !strings.HasPrefix(res.Err, "initialize failed") {
				t.Fatalf("probe error %q, want the failed initialize", res.Err)
			}
			conns := map[int]bool{}
			for _, s := range res.Steps {
				conns[s.Conn] = true
			}
			if conns[ConnAuth] != tc.wantAuth {
				t.Errorf("auth probe ran: %v, want %v", conns[ConnAuth], tc.wantAuth)
			}
			for _, conn := range []int{ConnRobustness, ConnSession, ConnProtocolHeader, ConnGetStream, ConnOrigin, ConnDeleteSession} {
				if conns[conn] && !tc.wantAuth {
					t.Errorf("connection %d probed a server that answered nothing", conn)
				}
			}
		})
	}
}

// A server that exits on a line it cannot parse takes only the robustness probes' process
// with it, after the request without a method was answered; the probe records how, and does not wait out its timeouts.
func TestParseErrorProbeSurvivesAServerThatExitsOnGarbage(t *testing.T) {
	o := stdioTestOptions()
	o.skipRules = false
	start := time.Now()
	res, _ := runProbe(t, stdioTestTarget(t, "garbage-exits"), o)
	if took := time.Since(start); took > o.RequestTimeout {
		t.Errorf("the probe took %v: it waited for an answer from a dead server", took)
	}
	if st := ruleStep(t, res, ConnNegotiation, StepInvalidRequest); st.Outcome != OutcomeError {
		t.Errorf("invalid request step, before the garbage: %s", st.Outcome)
	}
	st := ruleStep(t, res, ConnNegotiation, StepParseError)
	if st.Outcome == OutcomeOK || st.Outcome == OutcomeError {
		t.Errorf("parse error step: %s", st.Outcome)
	}
	if ping := ruleStep(t, res, ConnNegotiation, StepParseErrorPing); ping.Outcome == OutcomeOK {
		t.Error("the ping after the garbage was answered by a dead server")
	}
	for _, p := range res.Processes {
		switch {
		case p.Conn == ConnNegotiation && (p.EndedBy != "exit" || p.ExitCode != 1):
			t.Errorf("parse-error process: %+v", p)
		case p.Conn == ConnMain && p.EndedBy != "stdin-eof":
			t.Errorf("main process: %+v, want it undisturbed", p)
		}
	}
	if init := ruleStep(t, res, ConnMain, StepInitialize); init.Outcome != OutcomeOK {
		t.Errorf("main initialize: %s", init.Outcome)
	}
}

// An explicitly stateless probe has no sessions: the session-era rule probes do not run,
// but those that need no initialize (the robustness probes) do.
func TestSessionRuleProbesNeedSessions(t *testing.T) {
	o := Options{ProtocolVersion: protocol.Revision20260728}.WithDefaults()
	for _, p := range ruleProbes() {
		if got, want := p.appliesTo(Target{URL: "http://127.0.0.1:1/mcp"}, o), !p.sessions || p.stateless; got != want {
			t.Errorf("connection %d: applies %v under %s, want %v", p.conn, got, o.ProtocolVersion, want)
		}
	}
	o = Options{}.WithDefaults() // era detection: a server may speak both eras
	for _, p := range ruleProbes() {
		if !p.appliesTo(Target{URL: "http://127.0.0.1:1/mcp"}, o) {
			t.Errorf("connection %d does not apply with era detection", p.conn)
		}
	}
}

func TestMetadataURLsFollowTheDiscoveryOrder(t *testing.T) {
	cases := []struct {
		name, endpoint, challenge string
		want                      []string
	}{
		{"the named URL alone", "https://h/mcp", `Bearer resource_metadata="https://h/.well-known/oauth-protected-resource/mcp"`,
			[]string{"https://h/.well-known/oauth-protected-resource/mcp"}},
		{"the path's well-known URL, then the root's", "https://h:8443/api/mcp/", `Bearer realm="x"`,
			[]string{"https://h:8443/.well-known/oauth-protected-resource/api/mcp", "https://h:8443/.well-known/oauth-protected-resource"}},
		{"an endpoint at the root has one", "http://127.0.0.1:9/", "",
			[]string{"http://127.0.0.1:9/.well-known/oauth-protected-resource"}},
		{"a named URL that is not absolute is unusable", "https://h/mcp", `Bearer resource_metadata="/prm"`, nil},
		{"nor is one of another scheme", "https://h/mcp", `Bearer resource_metadata="file:///etc/passwd"`, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var values []string
			if tc.challenge != "" {
				values = []string{tc.challenge}
			}
			got := MetadataURLs(tc.endpoint, ParseChallenges(values))
			if strings.Join(got, " ") != strings.Join(tc.want, " ") {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestParseChallenges(t *testing.T) {
	cases := []struct {
		name   string
		values []string
		want   string // scheme{param=value,...} per challenge
	}{
		{"bearer with params", []string{`Bearer realm="mcp", resource_metadata="https://h/prm", scope="a b"`},
			`Bearer{realm=mcp,resource_metadata=https://h/prm,scope=a b}`},
		{"two challenges in one value", []string{`Basic realm="x", Bearer error="invalid_token", resource_metadata=https://h/prm`},
			`Basic{realm=x} Bearer{error=invalid_token,resource_metadata=https://h/prm}`},
		{"two header lines", []string{`Basic realm=x`, `Bearer resource_metadata="u"`}, `Basic{realm=x} Bearer{resource_metadata=u}`},
		{"a token68", []string{`Negotiate abc123==, Bearer resource_metadata="u"`}, `Negotiate{} Bearer{resource_metadata=u}`},
		{"escapes and case", []string{`BEARER Resource_Metadata="a\"b"`}, `BEARER{resource_metadata=a"b}`},
		{"a bare scheme", []string{`Bearer`}, `Bearer{}`},
		{"junk", []string{`=,, "unterminated`}, ``},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var parts []string
			for _, c := range ParseChallenges(tc.values) {
				var ps []string
				for _, k := range []string{"error", "realm", "resource_metadata", "scope"} {
					if v, ok := c.Params[k]; ok {
						ps = append(ps, k+"="+v)
					}
				}
				parts = append(parts, c.Scheme+"{"+strings.Join(ps, ",")+"}")
			}
			if got := strings.Join(parts, " "); got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}

// A stateless server gets the probes that need no initialize: the robustness probes, fenced
// by server/discover (the revision has no ping), and the unknown tool and cursor on the
// main connection, every request carrying the revision's _meta.
func TestStatelessServersGetTheRobustnessAndToolProbes(t *testing.T) {
	ts, _ := eraFixture(t, fixture.Config{StatelessOnly: true})
	o := eraOptions()
	o.skipRules = false
	res, _ := runProbe(t, Target{URL: ts.URL + "/mcp"}, o)
	if res.Discover == nil {
		t.Fatalf("not probed statelessly: %s", res.Err)
	}
	for _, w := range []struct {
		conn   int
		step   string
		method string
		code   int64
	}{
		{ConnNegotiation, StepInvalidRequest, "", -32600},
		{ConnNegotiation, StepParseError, "", -32700},
		{ConnMain, StepUnknownTool, "tools/call", -32602},
		{ConnMain, StepInvalidCursor, "tools/list", -32602},
	} {
		if st := ruleStep(t, res, w.conn, w.step); st.Outcome != OutcomeError || code(st) != w.code {
			t.Errorf("%s: %s code %d (%s), want error %d", w.step, st.Outcome, code(st), st.Err, w.code)
		}
	}
	for _, fence := range []string{StepInvalidRequestPing, StepParseErrorPing} {
		if st := ruleStep(t, res, ConnNegotiation, fence); st.Method != methodDiscover || st.Outcome != OutcomeOK {
			t.Errorf("%s: %s %s, want server/discover answered", fence, st.Method, st.Outcome)
		}
	}
	for _, st := range res.Steps {
		if st.Name == StepRuleInitialize {
			t.Errorf("initialize sent on connection %d to a stateless server", st.Conn)
		}
	}
}

// A server that refuses the bogus initialize leaves the negotiation connection uninitialized:
// the robustness probes then open a connection (a server process) of their own.
func TestRobustnessProbesFallBackToTheirOwnConnection(t *testing.T) {
	o := stdioTestOptions()
	o.skipRules = false
	res, _ := runProbe(t, stdioTestTarget(t, "fixture:"+string(fixture.BogusVersionError)), o)
	if len(res.Processes) != 3 {
		t.Errorf("%d processes, want 3 (main, negotiation, robustness)", len(res.Processes))
	}
	if st := ruleStep(t, res, ConnRobustness, StepInvalidRequest); code(st) != -32600 {
		t.Errorf("invalid request on its own connection: %s code %d", st.Outcome, code(st))
	}
	for _, st := range res.Steps {
		if st.Conn == ConnNegotiation && st.Name != StepInitializeBogus {
			t.Errorf("step %s on the negotiation connection, whose initialize was refused", st.Name)
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// http.concurrent-requests rides the session of ConnProtocolHeader in the session era, and
// has a connection of its own against a server found stateless, dual-era ones included
// (whose stateless requests must not ride a session): the two requests are sent in every
// era, where its check finds them, and nowhere else.
func TestConcurrentRequestsRideTheirEraSession(t *testing.T) {
	for _, tc := range []struct {
		name       string
		cfg        fixture.Config
		conn, none int
		method     string
	}{
		{"a session-era server", fixture.Config{Fault: fixture.Conformant}, ConnConcurrentSession, ConnConcurrent, "ping"},
		{"a stateless server", fixture.Config{Fault: fixture.ConformantStateless}, ConnConcurrent, ConnConcurrentSession, methodDiscover},
		{"a stateless server that speaks a session revision too", fixture.Config{Stateless: true}, ConnConcurrent, ConnConcurrentSession, methodDiscover},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, err := fixture.New(tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			ts := httptest.NewServer(srv.Handler())
			t.Cleanup(ts.Close)
			o := ruleTestOptions()
			o.ProtocolVersion, o.detectEra = protocol.LatestRevision, true
			res, _ := runProbe(t, Target{URL: ts.URL + "/mcp"}, o)
			defer logFramesOnFailure(t, res.Frames)
			for _, name := range []string{StepConcurrentFirst, StepConcurrentSecond} {
				if st := ruleStep(t, res, tc.conn, name); st.Method != tc.method || st.Outcome != OutcomeOK {
					t.Errorf("%s on connection %d: %s %s (%s), want %s answered", name, tc.conn, st.Method, st.Outcome, st.Err, tc.method)
				}
				if _, ok := stepOn(res, tc.none, name); ok {
					t.Errorf("%s on connection %d too", name, tc.none)
				}
			}
		})
	}
}
