package monitor

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/alert"
	"github.com/mcpwatch/mcpwatch/checks"
	"github.com/mcpwatch/mcpwatch/internal/netguard"
	"github.com/mcpwatch/mcpwatch/internal/testkit/fixture"
	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/protocol"
	"github.com/mcpwatch/mcpwatch/store"
)

// sharedChecks compiles the check registry once for the package's tests.
var sharedChecks = sync.OnceValues(checks.Default)

func testChecks(t testing.TB) *checks.Registry {
	t.Helper()
	reg, err := sharedChecks()
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

func testProber(t testing.TB, env map[string]string, transcripts string) *Prober {
	t.Helper()
	return testProberWith(t, env, ProberConfig{Transcripts: transcripts})
}

// testProberWith is testProber with more of the configuration given.
func testProberWith(t testing.TB, env map[string]string, cfg ProberConfig) *Prober {
	t.Helper()
	cfg.Checks = testChecks(t)
	cfg.LookupEnv = func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	cfg.Version = "test"
	p, err := NewProber(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// fixtureURL serves an MCP fixture with the given fault on loopback.
func fixtureURL(t testing.TB, fault fixture.Fault) string {
	t.Helper()
	srv, err := fixture.New(fixture.Config{Fault: fault})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	return ts.URL + "/mcp"
}

func httpTarget(name, url string) store.Server {
	return store.Server{ID: 7, Name: name, Source: store.SourceConfig, Transport: protocol.TransportHTTP, URL: url,
		Schedule: "@every 1m", Timeout: 15 * time.Second, Enabled: true}
}

func TestRecordOutcomesAndExactCodes(t *testing.T) {
	t.Parallel()
	closed := httptest.NewServer(http.NotFoundHandler())
	closedURL := closed.URL + "/mcp"
	closed.Close()

	errorPage := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "upstream unavailable", http.StatusBadGateway)
	}))
	t.Cleanup(errorPage.Close)
	signIn := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = io.WriteString(w, "<html>\n  <title>Sign in</title>\n</html>")
	}))
	t.Cleanup(signIn.Close)

	statelessSrv, err := fixture.New(fixture.Config{StatelessOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	stateless := httptest.NewServer(statelessSrv.Handler())
	t.Cleanup(stateless.Close)

	tests := []struct {
		name      string
		server    store.Server
		outcome   string
		errorCode *int64
		http      *int
		exit      *int
		tools     bool   // a tool count and fingerprint are expected
		errText   string // in Error
		response  string // in the observation's snippet of the failing answer of a down run
	}{
		{"a conformant server is up", httpTarget("ok", fixtureURL(t, fixture.Conformant)), store.OutcomeUp, nil, nil, nil, true, "", ""},
		{"a stateless server, answering server/discover and never initialized, is up",
			httpTarget("stateless", stateless.URL+"/mcp"), store.OutcomeUp, nil, nil, nil, true, "", ""},
		{"a broken SHOULD alone keeps it up", httpTarget("warn", fixtureURL(t, fixture.ToolNoDescription)), store.OutcomeUp, nil, nil, nil, true, "", ""},
		{"initialize answered with an error is down with the exact code", httpTarget("init", fixtureURL(t, fixture.InitError)),
			store.OutcomeDown, ptr[int64](-32603), ptr(200), nil, false, "initialize: JSON-RPC error -32603", "configuration store unavailable"},
		{"tools/list answered 500 is degraded with the status", httpTarget("500", fixtureURL(t, fixture.HTTP500)),
			store.OutcomeDegraded, nil, ptr(500), nil, false, "tools/list: HTTP status 500, the body of the answer is not a JSON-RPC response", ""},
		{"initialize answered 502 with an error page is down, says the error once and shows the page's start",
			httpTarget("page", errorPage.URL+"/mcp"), store.OutcomeDown, nil, ptr(502), nil, false,
			"initialize: HTTP status 502, the body of the answer is not a JSON-RPC response", "upstream unavailable"},
		{"a body that is not JSON-RPC is an answer, not \"no answer\"", httpTarget("html", signIn.URL+"/mcp"), store.OutcomeDown, nil, ptr(200), nil, false,
			"initialize: the body of the answer is not a JSON-RPC response", "<html> <title>Sign in</title> </html>"},
		{"a wrong error code is degraded with that code", httpTarget("code", fixtureURL(t, fixture.UnknownMethodWrongCode)),
			store.OutcomeDegraded, ptr[int64](-32603), ptr(200), nil, true, "lifecycle.unknown-method", ""},
		{"an unreachable server is down", httpTarget("gone", closedURL), store.OutcomeDown, nil, nil, nil, false, "initialize: ", ""},
		{"a stdio server that exits is down with its exit status",
			store.Server{ID: 8, Name: "exits", Source: store.SourceConfig, Transport: protocol.TransportStdio, Command: "sh", Args: []string{"-c", "exit 3"},
				Schedule: "@every 1m", Timeout: 15 * time.Second, Enabled: true},
			store.OutcomeDown, nil, nil, ptr(3), false, "initialize: ", ""},
	}
	p := testProber(t, nil, TranscriptsAll)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rec, obs := p.Probe(t.Context(), tt.server, time.Time{}, "", tt.server.Timeout, "eu", "w1")
			if err := rec.Validate(); err != nil {
				t.Fatalf("the store would refuse the run: %v", err)
			}
			// The alert engine judges the run as stored, plus the tool surface.
			if err := obs.Validate(); err != nil {
				t.Errorf("the alert engine would refuse the run: %v", err)
			}
			if obs.ServerID != rec.ServerID || obs.Server != tt.server.Name || obs.Region != "eu" || obs.RunID != rec.ID.String() ||
				!obs.At.Equal(rec.Start) || obs.Outcome != rec.Outcome || obs.Error != rec.Error ||
				!equalPtr(obs.ErrorCode, rec.ErrorCode) || !equalPtr(obs.HTTPStatus, rec.HTTPStatus) || !equalPtr(obs.ExitStatus, rec.ExitStatus) ||
				len(obs.Checks) != len(rec.Findings) {
				t.Errorf("observation %+v does not say what the run %+v says", obs, rec)
			}
			if (obs.Tools != nil) != tt.tools || (tt.tools && len(obs.Tools.Tools) != len(fixture.DefaultTools())) {
				t.Errorf("tool surface %+v, want the fixture's: %v", obs.Tools, tt.tools)
			}
			if rec.Outcome != tt.outcome {
				t.Fatalf("outcome %s (%s), want %s", rec.Outcome, rec.Error, tt.outcome)
			}
			if !equalPtr(rec.ErrorCode, tt.errorCode) || !equalPtr(rec.HTTPStatus, tt.http) || !equalPtr(rec.ExitStatus, tt.exit) {
				t.Errorf("error code %v, HTTP status %v, exit %v; want %v, %v, %v",
					show(rec.ErrorCode), show(rec.HTTPStatus), show(rec.ExitStatus), show(tt.errorCode), show(tt.http), show(tt.exit))
			}
			if !strings.Contains(rec.Error, tt.errText) || (tt.errText == "") != (rec.Error == "") {
				t.Errorf("error %q, want one containing %q", rec.Error, tt.errText)
			}
			if n := strings.Count(rec.Error, "HTTP status"); rec.Outcome == store.OutcomeDown && (n > 1 || strings.Contains(rec.Error, "initialize failed")) {
				t.Errorf("error %q says the failure more than once", rec.Error)
			}
			if !strings.Contains(obs.Response, tt.response) || (tt.response == "") != (obs.Response == "") {
				t.Errorf("response snippet %q, want one containing %q", obs.Response, tt.response)
			}
			if tt.tools != (rec.ToolCount != nil) || tt.tools != strings.HasPrefix(rec.ToolFingerprint, "sha256:") {
				t.Errorf("tool count %v, fingerprint %q; want them: %v", show(rec.ToolCount), rec.ToolFingerprint, tt.tools)
			}
			if tt.tools && *rec.ToolCount != len(fixture.DefaultTools()) {
				t.Errorf("tool count %d, want %d", *rec.ToolCount, len(fixture.DefaultTools()))
			}
			// A run that reached the server has an answer time, within the whole probe; a down
			// run has none.
			if (rec.AnswerTime > 0) != (tt.outcome != store.OutcomeDown) || rec.AnswerTime > rec.Duration {
				t.Errorf("answer time %v of a %s run of %v, want one within it exactly when the run is not down", rec.AnswerTime, rec.Outcome, rec.Duration)
			}
			if rec.ServerID != tt.server.ID || rec.Region != "eu" || rec.Worker != "w1" || rec.ID.IsZero() {
				t.Errorf("run identity %v/%s/%s/%s", rec.ServerID, rec.Region, rec.Worker, rec.ID)
			}
			if len(rec.Findings) != len(testChecks(t).Checks()) {
				t.Errorf("%d findings, want one per check (%d)", len(rec.Findings), len(testChecks(t).Checks()))
			}
			if tt.outcome != store.OutcomeDown {
				if rec.ProtocolVersion == "" || rec.ServerName == "" || len(rec.Steps) < 5 {
					t.Errorf("revision %q, server %q, %d steps: want all", rec.ProtocolVersion, rec.ServerName, len(rec.Steps))
				}
			}
			res, err := probe.ReadRecording(bytes.NewReader(rec.Transcript))
			if err != nil {
				t.Fatalf("the transcript is no recording: %v", err)
			}
			if len(res.Steps) != len(rec.Steps) {
				t.Errorf("recording has %d steps, run %d", len(res.Steps), len(rec.Steps))
			}
		})
	}
}

func equalPtr[T comparable](a, b *T) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

func show[T any](p *T) any {
	if p == nil {
		return "none"
	}
	return *p
}

func TestProbeReadsHeaderSecretsAtProbeTimeAndKeepsThemOut(t *testing.T) {
	t.Parallel()
	srv, err := fixture.New(fixture.Config{})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer s3cret-value" {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		srv.Handler().ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	server := httpTarget("auth", ts.URL+"/mcp")
	server.Headers = []store.HeaderRef{{Name: "Authorization", FromEnv: "MCP_TOKEN", Prefix: "Bearer "}}

	// (The server's bare 401s fail the auth checks, so the run is degraded rather than up;
	// what matters here is that the header got the main session through.)
	rec, _ := testProber(t, map[string]string{"MCP_TOKEN": "s3cret-value"}, TranscriptsAll).Probe(t.Context(), server, time.Time{}, "", 10*time.Second, "eu", "w")
	if rec.Outcome == store.OutcomeDown || rec.ServerName == "" {
		t.Fatalf("with the variable set: %s (%s), want initialize through", rec.Outcome, rec.Error)
	}
	if bytes.Contains(rec.Transcript, []byte("s3cret-value")) {
		t.Error("the header's value is in the stored transcript")
	}

	rec, _ = testProber(t, nil, TranscriptsAll).Probe(t.Context(), server, time.Time{}, "", 10*time.Second, "eu", "w")
	if rec.Outcome != store.OutcomeDown || !strings.Contains(rec.Error, "MCP_TOKEN (for header Authorization) is not set") {
		t.Errorf("without the variable: %s %q, want down naming MCP_TOKEN", rec.Outcome, rec.Error)
	}
	if err := rec.Validate(); err != nil {
		t.Errorf("the store would refuse the run: %v", err)
	}
}

// An env value taken from the monitor's environment is a secret like a header value: a
// server echoing it (in its serverInfo, a tool, an error, its stderr) must not put it into
// the stored run, the findings, the transcript or what the alert engine sees.
func TestProbeRedactsEnvValuesFromTheEnvironmentEverywhere(t *testing.T) {
	t.Parallel()
	const token = "tok-3f9a8c7e51d2"
	script, err := filepath.Abs("testdata/echo_env_server.sh")
	if err != nil {
		t.Fatal(err)
	}
	server := store.Server{ID: 1, Name: "echo", Source: store.SourceConfig, Transport: protocol.TransportStdio, Command: "sh", Args: []string{script},
		Env: []store.EnvVar{{Name: "TOKEN", FromEnv: "MCP_TOKEN"}}, Schedule: "@every 1m", Timeout: 10 * time.Second, Enabled: true}
	rec, obs := testProber(t, map[string]string{"MCP_TOKEN": token}, TranscriptsAll).Probe(t.Context(), server, time.Time{}, "", 10*time.Second, "eu", "w")
	if rec.Outcome == store.OutcomeDown {
		t.Fatalf("the echoing server is down: %s", rec.Error)
	}
	if rec.ServerName != "echo [redacted]" || rec.ServerVersion != "1.0 [redacted]" {
		t.Errorf("serverInfo stored as %q %q, want the token redacted", rec.ServerName, rec.ServerVersion)
	}
	if rec.Transcript == nil {
		t.Fatal("no transcript kept")
	}
	if _, err := probe.ReadRecording(bytes.NewReader(rec.Transcript)); err != nil {
		t.Errorf("the redacted transcript does not read back: %v", err)
	}
	stored, _ := json.Marshal(rec)
	seen, _ := json.Marshal(obs)
	for what, b := range map[string][]byte{"run": stored, "transcript": rec.Transcript, "observation": seen} {
		if bytes.Contains(b, []byte(token)) {
			t.Errorf("the %s holds the env value: %s", what, b[max(0, bytes.Index(b, []byte(token))-80):bytes.Index(b, []byte(token))+len(token)])
		}
	}
	if !bytes.Contains(rec.Transcript, []byte("[redacted]")) {
		t.Error("the transcript shows no redaction: did the server echo at all?")
	}
}

func TestProbeRefusesStdioServersThatDidNotComeFromTheConfig(t *testing.T) {
	t.Parallel()
	marker := t.TempDir() + "/ran"
	server := store.Server{ID: 1, Name: "injected", Source: store.SourceAPI, Transport: protocol.TransportStdio,
		Command: "sh", Args: []string{"-c", "touch " + marker}, Schedule: "@every 1m", Timeout: 5 * time.Second, Enabled: true}
	p := testProber(t, nil, TranscriptsAll)
	if _, _, err := p.target(server); !errors.Is(err, ErrStdioNotFromConfig) {
		t.Fatalf("target of an API stdio server: %v, want ErrStdioNotFromConfig", err)
	}
	rec, _ := p.Probe(t.Context(), server, time.Time{}, "", 5*time.Second, "eu", "w")
	if rec.Outcome != store.OutcomeDown || !strings.Contains(rec.Error, "configuration file") {
		t.Errorf("run %s %q, want down saying why", rec.Outcome, rec.Error)
	}
	if _, _, err := p.target(store.Server{Name: "env", Source: store.SourceConfig, Transport: protocol.TransportStdio, Command: "true",
		Env: []store.EnvVar{{Name: "KEY", FromEnv: "UNSET_VARIABLE"}}}); err == nil || !strings.Contains(err.Error(), "UNSET_VARIABLE") {
		t.Errorf("a stdio env reference to an unset variable: %v", err)
	}
}

func TestTranscriptPolicy(t *testing.T) {
	t.Parallel()
	up := httpTarget("up", fixtureURL(t, fixture.Conformant))
	down := httpTarget("down", fixtureURL(t, fixture.InitError))
	// previous is the outcome of the slot's last run ("" unknown).
	tests := []struct {
		policy, previous string
		upKept, down     bool
	}{
		{TranscriptsAll, store.OutcomeUp, true, true},
		{TranscriptsFailing, store.OutcomeUp, false, true},
		{TranscriptsNone, store.OutcomeDown, false, false},
		{TranscriptsChanges, store.OutcomeUp, false, true}, // up again: nothing to see
		{TranscriptsChanges, store.OutcomeDown, true, true},
		{TranscriptsChanges, store.OutcomeDegraded, true, true},
		{TranscriptsChanges, "", true, true}, // a first run, or the last one unknown
	}
	for _, tt := range tests {
		p := testProber(t, nil, tt.policy)
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		if rec, _ := p.Probe(ctx, up, time.Time{}, tt.previous, 10*time.Second, "r", "w"); (rec.Transcript != nil) != tt.upKept {
			t.Errorf("%s after %q: up run kept its transcript: %v, want %v", tt.policy, tt.previous, rec.Transcript != nil, tt.upKept)
		}
		if rec, _ := p.Probe(ctx, down, time.Time{}, tt.previous, 10*time.Second, "r", "w"); (rec.Transcript != nil) != tt.down {
			t.Errorf("%s after %q: down run kept its transcript: %v, want %v", tt.policy, tt.previous, rec.Transcript != nil, tt.down)
		}
		cancel()
	}
	if p := testProber(t, nil, ""); p.transcripts != TranscriptsChanges {
		t.Errorf("the default transcript policy is %q, want %q", p.transcripts, TranscriptsChanges)
	}
}

func TestRecordLeavesOutATranscriptBeyondItsBound(t *testing.T) {
	t.Parallel()
	flooded := &probe.Result{Start: time.Now(), Requested: "2025-11-25", InitializedAt: -1,
		Steps: []probe.Step{{Name: probe.StepInitialize, Method: "initialize", Conn: probe.ConnMain, Request: 0, Response: -1,
			Outcome: probe.OutcomeTransport, Err: "limit exceeded"}}}
	note := []byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"` + strings.Repeat("x", 200) + `"}}`)
	for i := range 10_000 {
		flooded.Frames = append(flooded.Frames, probe.Frame{Seq: i, Dir: probe.In, Kind: probe.KindMessage, Conn: probe.ConnMain, Raw: note})
	}
	small := &probe.Result{Start: time.Now(), Requested: "2025-11-25", InitializedAt: -1, Steps: flooded.Steps, Frames: flooded.Frames[:10]}
	meta := RunMeta{ServerID: 1, Region: "r", Worker: "w", Transcripts: TranscriptsAll}
	if rec := RunRecordOf(flooded, nil, meta); rec.Transcript != nil || rec.Outcome != store.OutcomeDown {
		t.Errorf("a flooded probe: outcome %s, transcript of %d bytes; want down and no transcript", rec.Outcome, len(rec.Transcript))
	}
	rec := RunRecordOf(small, nil, meta)
	if rec.Transcript == nil {
		t.Fatal("a small probe lost its transcript")
	}
	if est := recordingSize(small); est < len(rec.Transcript) {
		t.Errorf("estimated %d bytes, the recording has %d: the estimate must not fall short", est, len(rec.Transcript))
	}
}

func TestProbesOfRegisteredServersGoThroughTheGuard(t *testing.T) {
	t.Parallel()
	url := fixtureURL(t, fixture.Conformant) // on loopback, which the guard refuses
	guard := netguard.New(netguard.Config{})
	p, err := NewProber(ProberConfig{Checks: testChecks(t), LookupEnv: func(string) (string, bool) { return "", false }, GuardedDial: guard.DialContext})
	if err != nil {
		t.Fatal(err)
	}
	registered := httpTarget("registered", url)
	registered.Source = store.SourceAPI
	rec, _ := p.Probe(t.Context(), registered, time.Time{}, "", 10*time.Second, "eu", "w")
	if rec.Outcome != store.OutcomeDown || !strings.Contains(rec.Error, "not allowed") {
		t.Errorf("a registered server on loopback: %s %q, want down, refused by the guard", rec.Outcome, rec.Error)
	}
	if rec, _ := p.Probe(t.Context(), httpTarget("operator", url), time.Time{}, "", 10*time.Second, "eu", "w"); rec.Outcome != store.OutcomeUp {
		t.Errorf("the operator's own server on loopback: %s %q, want up (the configuration is trusted)", rec.Outcome, rec.Error)
	}
	allowed := netguard.New(netguard.Config{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}})
	p.guardedDial = allowed.DialContext
	if rec, _ := p.Probe(t.Context(), registered, time.Time{}, "", 10*time.Second, "eu", "w"); rec.Outcome != store.OutcomeUp {
		t.Errorf("a registered server in an allowed range: %s %q, want up", rec.Outcome, rec.Error)
	}
}

func TestProbeLimitsShareTheBudgetBetweenConcurrentProbes(t *testing.T) {
	t.Parallel()
	const mib = 1 << 20
	for _, tc := range []struct {
		budget      int64
		concurrency int
		max, worst  int64
	}{
		{512 * mib, 32, 5 * mib, 16 * mib},    // the defaults: the rule connections at their floor
		{512 * mib, 1, 64 * mib, 152 * mib},   // one probe: the probe's own bound
		{4096 * mib, 32, 53 * mib, 127 * mib}, // every rule connection at an eighth
		{512 * mib, 1000, 1 * mib, 12 * mib},  // too small a budget: the least a probe needs
		{0, 32, 5 * mib, 16 * mib},            // the default budget
	} {
		l, worst := ProbeLimits(tc.budget, tc.concurrency)
		if l.MaxTotalBytes/mib != tc.max/mib || worst/mib != tc.worst/mib {
			t.Errorf("ProbeLimits(%d MiB, %d) = %d MiB, worst %d MiB; want %d MiB, %d MiB",
				tc.budget/mib, tc.concurrency, l.MaxTotalBytes/mib, worst/mib, tc.max/mib, tc.worst/mib)
		}
		if tc.budget >= int64(tc.concurrency)*12*mib && worst*int64(tc.concurrency) > max(tc.budget, DefaultMemoryBudget) {
			t.Errorf("budget %d MiB, concurrency %d: worst case %d MiB a probe exceeds the budget", tc.budget/mib, tc.concurrency, worst/mib)
		}
		if int64(l.MaxMessageBytes) > l.MaxTotalBytes {
			t.Errorf("a message bound of %d above the probe's %d", l.MaxMessageBytes, l.MaxTotalBytes)
		}
	}
}

// A server that floods its answer costs a probe of a monitor running 32 probes at once its
// share of the memory budget, not the 64 MiB a lone probe may read.
func TestProbeOfAFloodingServerReadsItsShareOfTheBudget(t *testing.T) {
	t.Parallel()
	event := []byte(`data: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"` + strings.Repeat("x", 1<<20) + `"}}` + "\n\n")
	var mu sync.Mutex
	var most int64
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		var sent int64
		defer func() { mu.Lock(); most = max(most, sent); mu.Unlock() }()
		for sent < 256<<20 {
			n, err := w.Write(event)
			sent += int64(n)
			if err != nil {
				return
			}
		}
	}))
	defer ts.Close()
	p := testProberWith(t, nil, ProberConfig{Transcripts: TranscriptsAll, Concurrency: 32})
	rec, _ := p.Probe(t.Context(), httpTarget("flood", ts.URL+"/mcp"), time.Time{}, "", 20*time.Second, "eu", "w")
	if rec.Outcome != store.OutcomeDown {
		t.Errorf("the flooding server is %s, want down", rec.Outcome)
	}
	ts.CloseClientConnections()
	ts.Close() // waits for the handlers
	limit, _ := ProbeLimits(DefaultMemoryBudget, 32)
	mu.Lock()
	defer mu.Unlock()
	// What the server got written is what the probe read plus what the sockets buffered.
	if most > limit.MaxTotalBytes+16<<20 {
		t.Errorf("the server wrote %d MiB on one connection before the probe gave up, want about the probe's share (%d MiB)", most>>20, limit.MaxTotalBytes>>20)
	}
}

// A server the file names `transport: sse` is probed over the legacy HTTP+SSE transport,
// which a Streamable HTTP probe of the same URL is not.
func TestProbeOfALegacySSEServerOfTheFile(t *testing.T) {
	t.Parallel()
	srv, err := fixture.New(fixture.Config{})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.SSEHandler())
	t.Cleanup(ts.Close)
	cfg, err := ParseConfig("mcpwatch.yaml", []byte("servers:\n  - name: legacy\n    url: "+ts.URL+"/sse\n    transport: sse\n    timeout: 10s\n"))
	if err != nil {
		t.Fatal(err)
	}
	server := cfg.StoreServers()[0]
	p := testProber(t, nil, TranscriptsNone)
	rec, _ := p.Probe(t.Context(), server, time.Time{}, "", 10*time.Second, "eu", "w")
	if rec.Outcome == store.OutcomeDown {
		t.Errorf("legacy SSE server probed as sse: down (%s)", rec.Error)
	}
	server.Transport = protocol.TransportHTTP
	if rec, _ := p.Probe(t.Context(), server, time.Time{}, "", 10*time.Second, "eu", "w"); rec.Outcome != store.OutcomeDown {
		t.Errorf("the same URL probed as Streamable HTTP: %s, want down (the transport was not what the file said)", rec.Outcome)
	}
	if _, _, err := p.target(store.Server{Name: "odd", Source: store.SourceConfig, Transport: "websocket", URL: ts.URL}); err == nil ||
		!strings.Contains(err.Error(), `"websocket" is not supported`) {
		t.Errorf("target of an unknown transport: %v", err)
	}
}

// A worker without alerts asks for no observation: the run it stores is the same run, and
// the tool surface is not read for nothing.
func TestProbeWithoutObservationStoresTheSameRun(t *testing.T) {
	t.Parallel()
	p := testProber(t, nil, TranscriptsAll)
	server := httpTarget("up", fixtureURL(t, fixture.Conformant))
	observed, obs := p.probe(t.Context(), server, time.Time{}, "", 10*time.Second, "eu", "w", true)
	if obs.Tools == nil || obs.RunID != observed.ID.String() {
		t.Fatalf("observed probe: tools %v, run %v of %v", obs.Tools != nil, obs.RunID, observed.ID)
	}
	rec, none := p.probe(t.Context(), server, time.Time{}, "", 10*time.Second, "eu", "w", false)
	if !reflect.DeepEqual(none, alert.Observation{}) {
		t.Errorf("probe without observation returned one: %+v", none)
	}
	summary := func(r store.RunRecord) string {
		var b strings.Builder
		fmt.Fprintf(&b, "%s %q %s %s %v;", r.Outcome, r.Error, r.ServerName, r.ToolFingerprint, r.Transcript != nil)
		// The rule probes run side by side: their steps are in no fixed order.
		var steps []string
		for _, s := range r.Steps {
			steps = append(steps, s.Name+"/"+s.Outcome)
		}
		slices.Sort(steps)
		b.WriteString(strings.Join(steps, " "))
		for _, f := range r.Findings {
			fmt.Fprintf(&b, " %s=%s", f.CheckID, f.Status)
		}
		return b.String()
	}
	if got, want := summary(rec), summary(observed); got != want {
		t.Errorf("the run without observation differs:\n got %s\nwant %s", got, want)
	}
}

// serverInfoCases are results whose serverInfo the scanner must read as encoding/json does:
// plain ones, which it reads itself, and the odd ones it leaves to encoding/json.
var serverInfoCases = []struct {
	result  string
	scanned bool // read by the scanner
}{
	{`{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"a","version":"1.0"}}`, true},
	{`{"serverInfo":{"name":"caf\u00e9 \"x\"","version":7}}`, false},
	{`{"serverInfo":{"name":"a","title":"A","version":null}}`, true},
	{`{"serverInfo":null,"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"m","version":"2"}}}`, true},
	{`{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"m"},"io.modelcontextprotocol/serverInfo":{"version":"3"}}}`, true},
	{`{"_meta":{"io.modelcontextprotocol\/serverInfo":{"name":"escaped key"}}}`, true},
	{`{"_meta":{"io.modelcontextprotocol/serverInfo":null}}`, true},
	{`{"_meta":{"other":1}}`, true},
	{`{}`, true},
	{`{"serverInfo":{"name":"a"},"_meta":[]}`, false},
	{`{"serverInfo":"a string"}`, false},
	{`{"ServerInfo":{"name":"folded"}}`, false},
	{`{"serverinfo":{"NAME":"folded","Version":"1"}}`, false},
	{`{"\u0073erverInfo":{"name":"escaped"}}`, false},
	{`{"ſerverInfo":{"name":"long s"}}`, false},
	{`{"serverInfo":{"name":"first"},"serverInfo":{"version":"second"}}`, false},
	{`{"serverInfo":{"name":"a","version":1e400}}`, false},
	{`{"serverInfo":{"name":["x"]}}`, false},
	{`{"serverInfo":{"name":"a"}`, false},
	{`[]`, false},
	{`null`, false},
	{"{\"serverInfo\":{\"name\":\"not UTF-8: \xff\"}}", true},
}

// The run's server name and version are what encoding/json decodes from the result, whether
// the scanner read them or left them to it.
func TestServerInfoIsReadAsEncodingJSONDecodesIt(t *testing.T) {
	t.Parallel()
	for _, tc := range serverInfoCases {
		name, version := serverInfo(json.RawMessage(tc.result))
		wantName, wantVersion := serverInfoDecoded(json.RawMessage(tc.result))
		if name != wantName || version != wantVersion {
			t.Errorf("%s: read %q %q, encoding/json decodes %q %q", tc.result, name, version, wantName, wantVersion)
		}
		if _, _, scanned := serverInfoScanned([]byte(tc.result)); scanned != tc.scanned {
			t.Errorf("%s: read by the scanner %v, want %v", tc.result, scanned, tc.scanned)
		}
	}
}

func FuzzServerInfo(f *testing.F) {
	for _, tc := range serverInfoCases {
		f.Add([]byte(tc.result))
	}
	f.Fuzz(func(t *testing.T, result []byte) {
		name, version := serverInfo(result)
		wantName, wantVersion := serverInfoDecoded(result)
		if name != wantName || version != wantVersion {
			t.Errorf("%q: read %q %q, encoding/json decodes %q %q", result, name, version, wantName, wantVersion)
		}
	})
}
