//go:build linux

package interop

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/checks"
	"github.com/mcpwatch/mcpwatch/internal/testkit/modroot"
	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/protocol"
)

// prepared is what TestMain built before any test runs.
type prepared struct {
	root     string
	bins     map[string]string // Go server name (or proberBinary) -> binary
	buildErr error
}

// built is set once by TestMain, before m.Run, and only read by the tests.
var built prepared

func TestMain(m *testing.M) {
	if mode := os.Getenv(helperEnv); mode != "" {
		os.Exit(runHelper(mode))
	}
	flag.Parse()
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	if testing.Short() {
		return m.Run() // the tests skip themselves; nothing to build
	}
	root, err := modroot.Find(".")
	if err != nil {
		built.buildErr = err
		return m.Run()
	}
	built.root = root
	dir, err := os.MkdirTemp("", "mcpwatch-interop-")
	if err != nil {
		built.buildErr = err
		return m.Run()
	}
	defer os.RemoveAll(dir)
	goCmd, err := GoCommand()
	if err != nil {
		built.buildErr = err
		return m.Run()
	}
	// A cold module cache downloads and compiles the SDKs; later runs only link.
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	start := time.Now()
	// The prober command itself is built beside them: the verdict tests judge what a user
	// of `prober check` gets, exit code included.
	servers := append(GoServers(), GoServer{proberBinary, "github.com/mcpwatch/mcpwatch/cmd/prober"})
	built.bins, built.buildErr = BuildGoServers(ctx, goCmd, root, dir, servers)
	if built.buildErr == nil && testing.Verbose() {
		fmt.Fprintf(os.Stderr, "interop: built %d example servers in %s\n", len(built.bins), time.Since(start).Round(time.Millisecond))
	}
	return m.Run()
}

// transcriptsEnv, when set, logs every case's transcript (with -v), not only failing ones:
// how to see what a real server really sent.
const transcriptsEnv = "MCPWATCH_INTEROP_TRANSCRIPTS"

// Bounds of one interop case.
const (
	serverStartTimeout = 30 * time.Second
	probeTimeout       = 45 * time.Second
)

// known is a finding a real server must produce: its deviation from the spec, or a check that
// must pass where a naive check would not (the why says which).
type known struct {
	id     string
	status checks.Status
	// tools the evidence must name (tools.* checks).
	tools []string
	why   string
}

// serverCase is one real server over one transport.
type serverCase struct {
	name string
	// target starts whatever the case needs (stopped in t.Cleanup) and returns what to probe.
	target     func(t *testing.T) probe.Target
	negotiated string
	// transport is the one the probe must end up speaking ("" for the target's own): a
	// URL whose transport is detected may turn out to be legacy HTTP+SSE.
	transport string
	tools     int
	known     []known
	// more asserts what findings alone do not show.
	more func(t *testing.T, res *probe.Result, fs map[string]checks.Finding)
}

func TestInteropRealServers(t *testing.T) {
	if testing.Short() {
		t.Skip("interop tests start real servers; skipped with -short")
	}
	if built.buildErr != nil {
		t.Fatalf("building the example servers: %v", built.buildErr)
	}
	reg, err := checks.Default()
	if err != nil {
		t.Fatal(err)
	}
	before, err := Children(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	var stdioPIDs pidLog
	var surfaces toolSurfaces

	t.Run("servers", func(t *testing.T) {
		for _, c := range append(serverCases(), transportCases()...) {
			t.Run(c.name, func(t *testing.T) {
				t.Parallel()
				runCase(t, reg, c, &stdioPIDs, &surfaces)
			})
		}
	})

	// A server's tools do not depend on the transport they are listed over, so neither may
	// their fingerprint: a difference means a transport altered what it carried.
	t.Run("one tool fingerprint per server across transports", func(t *testing.T) {
		compared := 0
		for server, byTransport := range surfaces.all() {
			if len(byTransport) < 2 {
				continue
			}
			compared++
			var first string
			for _, hash := range byTransport {
				if first == "" {
					first = hash
				}
				if hash != first {
					t.Errorf("%s: tools.fingerprint differs between transports: %v", server, byTransport)
					break
				}
			}
		}
		if compared == 0 {
			t.Skip("no server was probed over both transports")
		}
	})

	// Every subtest has ended and its cleanups (stopping the HTTP servers) have run: whatever
	// the test process still has as children now was left behind.
	t.Run("no server process survives", func(t *testing.T) {
		after, err := Children(os.Getpid())
		if err != nil {
			t.Fatal(err)
		}
		if left := newProcs(before, after); len(left) > 0 {
			t.Errorf("%d child process(es) outlived the interop runs (had %d before, %d after):\n%s",
				len(left), len(before), len(after), procLines(left))
		}
		pids := stdioPIDs.all()
		if len(pids) == 0 {
			t.Skip("no stdio server ran (filtered out or skipped): nothing to check")
		}
		for _, pid := range pids {
			members, err := GroupMembers(pid)
			if err != nil {
				t.Fatal(err)
			}
			if len(members) > 0 {
				t.Errorf("process group %d of a probed stdio server still has members:\n%s", pid, procLines(members))
			}
		}
		t.Logf("%d stdio server processes started by the probe, none left; children before %d, after %d",
			len(pids), len(before), len(after))
	})
}

func runCase(t *testing.T, reg *checks.Registry, c serverCase, pids *pidLog, surfaces *toolSurfaces) {
	target := c.target(t)
	ctx, cancel := context.WithTimeout(t.Context(), probeTimeout+15*time.Second)
	defer cancel()
	res, err := probe.Run(ctx, target, probe.Options{
		Timeout:        probeTimeout,
		InitTimeout:    30 * time.Second,
		RequestTimeout: 10 * time.Second,
		ClientName:     "mcpwatch-interop",
		Logger:         slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn})),
	})
	if err != nil {
		t.Fatalf("probe.Run: %v", err)
	}
	for _, p := range res.Processes {
		pids.add(p.PID)
	}
	findings := reg.Evaluate(res)
	byID := make(map[string]checks.Finding, len(findings))
	for _, f := range findings {
		byID[f.ID] = f
	}
	t.Logf("%s: %s in %s\n%s", res.Target, summaryLine(findings), res.Duration.Round(time.Millisecond), reportLines(findings))
	defer func() {
		if t.Failed() || os.Getenv(transcriptsEnv) != "" {
			t.Logf("transcript:\n%s", transcriptLines(res))
		}
	}()

	if res.Err != "" {
		t.Errorf("the probe did not run to the end: %s", res.Err)
	}
	first := probe.StepInitialize
	if protocol.Stateless(res.ProtocolVersion) {
		first = probe.StepDiscover // a stateless server has no initialize
	}
	init, ok := res.FirstStep(first)
	if !ok || init.Outcome != probe.OutcomeOK {
		t.Fatalf("%s did not succeed: %+v", first, init)
	}
	if res.Negotiated != c.negotiated {
		t.Errorf("negotiated revision %q, want %q", res.Negotiated, c.negotiated)
	}
	if n := toolCount(t, res); n != c.tools {
		t.Errorf("tools/list returned %d tools, want %d", n, c.tools)
	}
	noListedToolCalled(t, res)

	expected := map[string]bool{}
	if c.transport != "" && res.Transport != c.transport {
		t.Errorf("spoke %s, want %s", res.Transport, c.transport)
	}
	for _, k := range withCommon(res.Transport, res.ProtocolVersion, c.known) {
		expected[k.id] = true
		f, ok := byID[k.id]
		if !ok {
			t.Errorf("no finding %s (%s)", k.id, k.why)
			continue
		}
		if f.Status != k.status {
			t.Errorf("%s is %s (%s), want %s: %s", k.id, f.Status, f.Message, k.status, k.why)
		}
		for _, tool := range k.tools {
			if !evidenceNamesTool(f, tool) {
				t.Errorf("%s does not name tool %q in its evidence: %+v", k.id, tool, f.Evidence)
			}
		}
	}
	// Nothing else may fail or warn: every non-pass verdict on a real server is either one of
	// its known deviations or a wrong check.
	for _, f := range findings {
		if expected[f.ID] || (f.Status != checks.StatusFail && f.Status != checks.StatusWarn) {
			continue
		}
		t.Errorf("unexpected %s %s: %s%s", f.Status, f.ID, f.Message, evidenceFrames(f))
	}
	if f, ok := byID["tools.fingerprint"]; ok && f.Status == checks.StatusInfo {
		fp, n, ok := checks.ToolFingerprint(f)
		if !ok || n != c.tools {
			t.Errorf("tools.fingerprint counts %v tools (data %v), want %d", n, f.Data, c.tools)
		}
		server, _, _ := strings.Cut(c.name, "/")
		surfaces.add(server, res.Transport, fp.String())
	}
	if c.more != nil {
		c.more(t, res, byID)
	}
}

// toolSurfaces collects the tools.fingerprint hash of each server per transport.
type toolSurfaces struct {
	mu     sync.Mutex
	hashes map[string]map[string]string
}

func (s *toolSurfaces) add(server, transport, hash string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.hashes == nil {
		s.hashes = map[string]map[string]string{}
	}
	if s.hashes[server] == nil {
		s.hashes[server] = map[string]string{}
	}
	s.hashes[server][transport] = hash
}

func (s *toolSurfaces) all() map[string]map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]map[string]string, len(s.hashes))
	for server, m := range s.hashes {
		out[server] = maps.Clone(m)
	}
	return out
}

// toolCount counts the tools of every tools/list page that came back.
func toolCount(t *testing.T, res *probe.Result) int {
	t.Helper()
	n := 0
	for _, st := range res.StepsNamed(probe.StepToolsList) {
		if st.Outcome != probe.OutcomeOK {
			t.Errorf("tools/list page %d: %s %s", st.Page, st.Outcome, st.Err)
			continue
		}
		var r struct {
			Tools []json.RawMessage `json:"tools"`
		}
		if err := json.Unmarshal(st.Result, &r); err != nil {
			t.Errorf("tools/list page %d: %v", st.Page, err)
		}
		n += len(r.Tools)
	}
	return n
}

// noListedToolCalled: without a calls file the probe calls no tool the server lists (a call
// may charge a card or delete a row); the only tools/call it may send, on any connection, is
// the unknown-tool probe's, of a name no listing showed.
func noListedToolCalled(t *testing.T, res *probe.Result) {
	t.Helper()
	listed := map[string]bool{}
	for _, st := range res.Steps {
		if st.Method != "tools/list" || st.Outcome != probe.OutcomeOK {
			continue
		}
		var page struct {
			Tools []struct {
				Name string `json:"name"`
			} `json:"tools"`
		}
		_ = json.Unmarshal(st.Result, &page)
		for _, tool := range page.Tools {
			listed[tool.Name] = true
		}
	}
	if len(listed) == 0 {
		return // nothing listed, nothing to call
	}
	for _, c := range res.SentToolCalls() {
		if listed[c.Tool] || !strings.HasPrefix(c.Tool, probe.UnknownToolPrefix) {
			t.Errorf("frame %d (connection %d): tools/call of %q without a calls file", c.Frame.Seq, c.Frame.Conn, c.Tool)
		}
	}
	if len(res.Calls) != 0 {
		t.Errorf("Result.Calls = %+v without a calls file, want none", res.Calls)
	}
}

func evidenceNamesTool(f checks.Finding, tool string) bool {
	for _, e := range f.Evidence {
		if e.Tool == tool {
			return true
		}
	}
	return false
}

// pidLog collects the stdio server processes the probe started, across parallel cases.
type pidLog struct {
	mu   sync.Mutex
	pids []int
}

func (l *pidLog) add(pid int) {
	if pid <= 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.pids = append(l.pids, pid)
}

func (l *pidLog) all() []int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.pids)
}

func newProcs(before, after []Proc) []Proc {
	seen := map[int]bool{}
	for _, p := range before {
		seen[p.PID] = true
	}
	var out []Proc
	for _, p := range after {
		if !seen[p.PID] {
			out = append(out, p)
		}
	}
	return out
}

func procLines(ps []Proc) string {
	var b strings.Builder
	for _, p := range ps {
		fmt.Fprintf(&b, "  %s\n", p)
	}
	return b.String()
}

// requireCommand finds a command the case cannot run without. Outside CI its absence skips
// the case (with how to get it); in CI it fails it, so that a missing install step shows.
func requireCommand(t *testing.T, path, hint string) string {
	t.Helper()
	p, err := exec.LookPath(path)
	if err == nil {
		return p
	}
	msg := fmt.Sprintf("%v; %s", err, hint)
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

func npmEverything(t *testing.T) string { return installed(t, ServerEverything, true) }

// installed finds a server .ci/interop-deps installs (needsNode: an npm package, run by node).
func installed(t *testing.T, s Installed, needsNode bool) string {
	t.Helper()
	if needsNode {
		requireCommand(t, "node", "install Node.js (the CI script installs nodejs and npm)")
	}
	return requireCommand(t, s.Path(built.root), "run .ci/interop-deps to install "+s.Name)
}

// startHTTP starts a server and stops it when the test ends (its output is logged then if the
// test failed).
func startHTTP(t *testing.T, spec ServerSpec) *Process {
	t.Helper()
	p, err := startServer(t, spec)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// startOnFreePort starts the server spec(port) builds for a free loopback port. A port found
// free can be taken before the server binds it; then the server exits and another port is
// tried.
func startOnFreePort(t *testing.T, spec func(port int) ServerSpec) (*Process, int) {
	t.Helper()
	const attempts = 3
	for i := 1; ; i++ {
		port := freePort(t)
		p, err := startServer(t, spec(port))
		if err == nil {
			return p, port
		}
		if !errors.Is(err, ErrExitedEarly) || i == attempts {
			t.Fatal(err)
		}
		t.Logf("attempt %d: %v", i, err)
	}
}

func startServer(t *testing.T, spec ServerSpec) (*Process, error) {
	ctx, cancel := context.WithTimeout(t.Context(), serverStartTimeout)
	defer cancel()
	p, err := StartServer(ctx, spec)
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() {
		if err := p.Stop(); err != nil {
			t.Error(err)
		}
		if t.Failed() {
			t.Logf("server output (tail):\n%s", lastBytes(p.Output(), 2048))
		}
	})
	return p, nil
}

// requireLoopbackOnly fails the test when anything listens on port beyond loopback.
func requireLoopbackOnly(t *testing.T, port int) {
	t.Helper()
	addrs, err := ListeningAddrs(port)
	if err != nil {
		t.Fatal(err)
	}
	if len(addrs) == 0 {
		t.Fatalf("nothing listens on port %d", port)
	}
	for _, a := range addrs {
		if a != "127.0.0.1" && a != "::1" {
			t.Fatalf("the server listens on %s:%d, not only on loopback", a, port)
		}
	}
}

// requireGroupOnLoopback fails the test when a process of the server's group listens beyond
// loopback, on its port or on any other (a metrics or health listener of its own).
func requireGroupOnLoopback(t *testing.T, p *Process) {
	t.Helper()
	ls, err := GroupListeners(p.PID())
	if err != nil {
		t.Fatal(err)
	}
	if len(ls) == 0 {
		t.Errorf("no process of group %d listens, though the server answered on its port", p.PID())
	}
	for _, l := range ls {
		if !l.IP.IsLoopback() {
			t.Errorf("the server listens on %s, beyond loopback", l)
		}
	}
}

func freePort(t *testing.T) int {
	t.Helper()
	port, err := FreeLoopbackPort()
	if err != nil {
		t.Fatal(err)
	}
	return port
}

func goServer(t *testing.T, name string) string {
	t.Helper()
	p, ok := built.bins[name]
	if !ok {
		t.Fatalf("example server %s was not built", name)
	}
	return p
}

// testWriter sends the probe's log lines to the test log.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

func summaryLine(fs []checks.Finding) string {
	s := map[checks.Status]int{}
	for _, f := range fs {
		s[f.Status]++
	}
	return fmt.Sprintf("%d pass, %d fail, %d warn, %d untested, %d skip, %d info",
		s[checks.StatusPass], s[checks.StatusFail], s[checks.StatusWarn], s[checks.StatusUntested], s[checks.StatusSkip], s[checks.StatusInfo])
}

func reportLines(fs []checks.Finding) string {
	var b strings.Builder
	// Problems first, the way a report reads.
	rank := map[checks.Status]int{checks.StatusFail: 0, checks.StatusWarn: 1, checks.StatusUntested: 2}
	sorted := slices.Clone(fs)
	slices.SortStableFunc(sorted, func(a, b checks.Finding) int { return rankOr(rank, a.Status) - rankOr(rank, b.Status) })
	for _, f := range sorted {
		fmt.Fprintf(&b, "  %-4s %-32s %s\n", f.Status, f.ID, f.Message)
	}
	return b.String()
}

func rankOr(rank map[checks.Status]int, s checks.Status) int {
	if r, ok := rank[s]; ok {
		return r
	}
	return len(rank)
}

func evidenceFrames(f checks.Finding) string {
	var seqs []int
	for _, e := range f.Evidence {
		seqs = append(seqs, e.Frames...)
	}
	if len(seqs) == 0 {
		return ""
	}
	sort.Ints(seqs)
	return fmt.Sprintf(" (frames %v)", slices.Compact(seqs))
}

// transcriptLines prints a transcript for a failing case: enough to tell whether the server or
// the check is wrong.
func transcriptLines(res *probe.Result) string {
	var b strings.Builder
	for _, f := range res.Frames {
		fmt.Fprintf(&b, "  #%d c%d %s %s", f.Seq, f.Conn, f.Dir, f.Kind)
		if f.Exchange != 0 {
			fmt.Fprintf(&b, " x%d", f.Exchange)
		}
		if f.HTTP != nil {
			fmt.Fprintf(&b, " %s %s %d %s", f.HTTP.Method, f.HTTP.URL, f.HTTP.Status, f.HTTP.ContentType)
		}
		if f.SSE != nil {
			fmt.Fprintf(&b, " event=%q id=%q", f.SSE.Event, f.SSE.ID)
		}
		if f.Note != "" {
			fmt.Fprintf(&b, " %s %s", f.Note, f.Detail)
		}
		if len(f.Raw) > 0 {
			fmt.Fprintf(&b, " %s", checks.Clip(f.Raw))
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// lastBytes keeps the end of a server's output for the log: the lines before a failure are
// the ones that explain it.
func lastBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}
