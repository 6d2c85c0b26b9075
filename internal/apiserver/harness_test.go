package apiserver

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/checks"
	"github.com/mcpwatch/mcpwatch/internal/netguard"
	"github.com/mcpwatch/mcpwatch/internal/testkit/fixture"
	"github.com/mcpwatch/mcpwatch/internal/testkit/pgtest"
	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/protocol"
	"github.com/mcpwatch/mcpwatch/store"
)

const testToken = "test-admin-token-0123456789"

// fakeResolver answers the test names; nothing here resolves a name on the network.
type fakeResolver map[string][]netip.Addr

func (r fakeResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if as, ok := r[host]; ok {
		return as, nil
	}
	return nil, &netErr{host}
}

type netErr struct{ host string }

func (e *netErr) Error() string { return "lookup " + e.host + ": no such host" }

func testGuard() *netguard.Guard {
	return netguard.New(netguard.Config{Resolver: fakeResolver{
		"public.test":   {netip.MustParseAddr("93.184.216.34")},
		"internal.test": {netip.MustParseAddr("10.0.0.7")},
		"meta.test":     {netip.MustParseAddr("169.254.169.254")},
		"local.test":    {netip.MustParseAddr("127.0.0.1"), netip.MustParseAddr("93.184.216.34")},
	}})
}

// world is a database seeded with servers and runs, and an API over it.
type world struct {
	t       testing.TB
	st      *store.Store
	api     *API
	http    *httptest.Server
	catalog *checks.Registry
	now     time.Time
	alpha   store.Server // config, http, runs in eu and us
	beta    store.Server // api, paused, no runs
	gamma   store.Server // config, stdio with secrets in its command and env
	runs    []store.RunRecord
	// withTranscript is alpha's newest eu run, the one stored with a recording.
	withTranscript store.RunRecord
}

type worldOption func(*Config)

// newWorld seeds a fresh schema and serves the API over it on loopback.
func newWorld(t testing.TB, opts ...worldOption) *world {
	t.Helper()
	_, pool := pgtest.Migrated(t)
	w := &world{t: t, st: store.New(pool), now: time.Now().UTC(), catalog: testCatalog(t)}
	ctx := t.Context()
	var err error
	up := func(v store.Server) store.Server {
		out, err := w.st.UpsertServer(ctx, v)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	w.alpha = up(store.Server{Name: "alpha", Source: store.SourceConfig, Transport: "http",
		URL: "https://alpha.example.com/mcp?api_key=s3cret-key", Schedule: "@every 10m", Timeout: 10 * time.Second,
		Headers: []store.HeaderRef{{Name: "Authorization", FromEnv: "ALPHA_TOKEN_VAR", Prefix: "Bearer "}}, Enabled: true})
	w.beta = up(store.Server{Name: "beta", Source: store.SourceAPI, Transport: "http", URL: "https://public.test/mcp",
		Schedule: "@every 5m", Timeout: 10 * time.Second})
	w.gamma = up(store.Server{Name: "gamma", Source: store.SourceConfig, Transport: protocol.TransportStdio,
		Command: "secret-cmd", Args: []string{"--token=stdio-secret-arg"}, Env: []store.EnvVar{{Name: "TOKEN", Value: "stdio-secret-env"}},
		Schedule: "@every 1m", Timeout: 10 * time.Second, Enabled: true})
	for _, region := range []string{"eu", "us"} {
		if err := w.st.RegisterRegion(ctx, region); err != nil {
			t.Fatal(err)
		}
	}
	w.seedRuns()
	// Writes are not limited unless a test says so: the tests write more than a person would.
	cfg := Config{Store: w.st, Guard: testGuard(), AdminToken: testToken, Catalog: w.catalog, Version: "test",
		WriteRate: 1e6, WriteBurst: 1e6}
	for _, o := range opts {
		o(&cfg)
	}
	if w.api, err = New(cfg); err != nil {
		t.Fatal(err)
	}
	w.http = httptest.NewServer(w.api)
	t.Cleanup(w.http.Close)
	return w
}

func testCatalog(t testing.TB) *checks.Registry {
	t.Helper()
	reg, err := checks.Default()
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

// recordFixture probes a fixture server with the given tools and returns the recording and
// the findings the checks give it.
func (w *world) recordFixture(tools []fixture.Tool) ([]byte, []store.FindingRecord, *probe.Result) {
	w.t.Helper()
	srv, err := fixture.New(fixture.Config{Tools: tools})
	if err != nil {
		w.t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	res, err := probe.Run(w.t.Context(), probe.Target{URL: ts.URL}, probe.Options{Timeout: 20 * time.Second})
	if err != nil {
		w.t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := probe.WriteRecording(&buf, res); err != nil {
		w.t.Fatal(err)
	}
	var findings []store.FindingRecord
	for _, f := range w.catalog.Evaluate(res) {
		findings = append(findings, store.FindingRecord{CheckID: f.ID, Status: string(f.Status), Severity: string(f.Severity), Message: f.Message})
	}
	return buf.Bytes(), findings, res
}

// seedRuns gives alpha runs every 10 minutes over 30 hours in eu and us and every 6 hours
// over 8 days before that, with random outcomes and latencies; the runs of the last 30 hours
// that reached the server have an answer time of a fifth of their duration, the older ones
// none (as if written before answer times were kept); the newest eu run carries a
// recording and is up, the newest us run is down with an exact error code. Two earlier runs
// carry recordings of a smaller tool surface, so that the tool history has a change.
func (w *world) seedRuns() {
	rng := rand.New(rand.NewPCG(1, 2))
	outcomes := []string{store.OutcomeUp, store.OutcomeUp, store.OutcomeUp, store.OutcomeDegraded, store.OutcomeDown}
	var starts []time.Time
	for t := w.now.Add(-8 * 24 * time.Hour); t.Before(w.now.Add(-30 * time.Hour)); t = t.Add(6 * time.Hour) {
		starts = append(starts, t)
	}
	for t := w.now.Add(-30 * time.Hour); t.Before(w.now.Add(-time.Minute)); t = t.Add(10 * time.Minute) {
		starts = append(starts, t)
	}
	mk := func(region string, start time.Time, outcome string) store.RunRecord {
		r := store.RunRecord{ID: store.NewRunID(start), ServerID: w.alpha.ID, Region: region, Worker: "w1", Start: start,
			Duration: time.Duration(5+rng.IntN(1500)) * time.Millisecond, Outcome: outcome,
			ProtocolVersion: "2025-06-18", ServerName: "alpha", ServerVersion: "1.0", ToolFingerprint: "sha256:old",
			Steps: []store.StepRecord{{Name: "initialize", Method: "initialize", Outcome: "ok", Latency: 3 * time.Millisecond}},
			Findings: []store.FindingRecord{{CheckID: "lifecycle.initialize", Status: "pass", Message: "ok"},
				{CheckID: "tools.list", Status: "fail", Severity: "error", Message: "tools/list failed"}}}
		if outcome != store.OutcomeDown && start.After(w.now.Add(-30*time.Hour)) {
			r.AnswerTime = r.Duration / 5
		}
		if outcome == store.OutcomeDown {
			code := int64(-32603)
			r.ErrorCode, r.Error = &code, "initialize failed: JSON-RPC error -32603"
			r.ToolFingerprint = "" // no tools/list without initialize
		}
		return r
	}
	for i, start := range starts {
		w.runs = append(w.runs, mk("eu", start, outcomes[rng.IntN(len(outcomes))]))
		if i%2 == 0 {
			w.runs = append(w.runs, mk("us", start.Add(7*time.Second), outcomes[rng.IntN(len(outcomes))]))
		}
	}
	small := fixture.DefaultTools()[:3]
	oldRec, oldFindings, _ := w.recordFixture(small)
	newRec, newFindings, _ := w.recordFixture(nil)
	// The tool surface changed five hours ago, as both regions see. The first run that saw
	// it and the run before it (runs are in time order) carry recordings.
	change := -1
	for i, r := range w.runs {
		if r.Start.After(w.now.Add(-5*time.Hour)) && r.ToolFingerprint != "" {
			if change < 0 {
				change = i
			}
			w.runs[i].ToolFingerprint = "sha256:new"
		}
	}
	for i := change - 1; i >= 0; i-- {
		if w.runs[i].ToolFingerprint != "" {
			w.runs[i].Transcript, w.runs[i].Findings = oldRec, oldFindings
			break
		}
	}
	w.runs[change].Transcript, w.runs[change].Findings = newRec, newFindings
	lastEU, lastUS := -1, -1
	for i, r := range w.runs {
		if r.Region == "eu" {
			lastEU = i
		} else {
			lastUS = i
		}
	}
	w.runs[lastEU].Outcome, w.runs[lastEU].Transcript, w.runs[lastEU].Findings = store.OutcomeUp, newRec, newFindings
	w.runs[lastEU].ErrorCode, w.runs[lastEU].Error = nil, ""
	w.runs[lastUS] = mk("us", w.runs[lastUS].Start, store.OutcomeDown)
	w.withTranscript = w.runs[lastEU]
	if _, err := w.st.WriteRuns(w.t.Context(), w.runs); err != nil {
		w.t.Fatal(err)
	}
}

// response is an answer read whole.
type response struct {
	status int
	header http.Header
	body   []byte
}

func (r response) json(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal(r.body, v); err != nil {
		t.Fatalf("answer is not JSON (%v): %.300s", err, r.body)
	}
}

// errorCode is the code of a JSON error answer.
func (r response) errorCode(t *testing.T) string {
	t.Helper()
	var e errorBody
	r.json(t, &e)
	if e.Error.Code == "" || e.Error.Message == "" {
		t.Fatalf("error answer without code or message: %s", r.body)
	}
	return e.Error.Code
}

type req struct {
	method, path string
	body         string
	token        string
	contentType  string
	header       map[string]string
}

func (w *world) do(t *testing.T, r req) response {
	t.Helper()
	var body io.Reader
	if r.body != "" {
		body = strings.NewReader(r.body)
	}
	hr, err := http.NewRequestWithContext(t.Context(), r.method, w.http.URL+r.path, body)
	if err != nil {
		t.Fatal(err)
	}
	if r.body != "" {
		ct := r.contentType
		if ct == "" {
			ct = "application/json"
		}
		hr.Header.Set("Content-Type", ct)
	}
	if r.token != "" {
		hr.Header.Set("Authorization", "Bearer "+r.token)
	}
	for k, v := range r.header {
		hr.Header.Set(k, v)
	}
	resp, err := w.http.Client().Do(hr)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return response{status: resp.StatusCode, header: resp.Header, body: b}
}

func (w *world) get(t *testing.T, path string) response {
	return w.do(t, req{method: "GET", path: path})
}
