package probe

import (
	"bytes"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/mcpwatch/mcpwatch/internal/testkit/fixture"
	"github.com/mcpwatch/mcpwatch/protocol"
)

// sentHeader is the header of the request a step sent, as the transcript recorded it.
func sentHeader(t *testing.T, res *Result, st Step) http.Header {
	t.Helper()
	if st.Request < 0 || st.Request >= len(res.Frames) || res.Frames[st.Request].HTTP == nil {
		t.Fatalf("%s: no HTTP request recorded", st.Name)
	}
	return res.Frames[st.Request].HTTP.Header
}

// The stateless.headers probe bends one header at a time on a stateless server, and the
// server of the fixture (which validates them as 2026-07-28 basic/transports/streamable-http,
// "Server Validation", prescribes) refuses each with 400 and -32020, except the request whose
// header names are lowercase, which it serves.
func TestStatelessHeaderProbeBendsOneHeaderAtATime(t *testing.T) {
	ts, rec := eraFixture(t, fixture.Config{StatelessOnly: true, Resources: true})
	o := eraOptions()
	o.skipRules = false
	res, _ := runProbe(t, Target{URL: ts.URL + "/mcp"}, o)
	defer logFramesOnFailure(t, res.Frames)
	if res.Discover == nil {
		t.Fatalf("not probed statelessly: %s", res.Err)
	}
	for _, w := range []struct {
		step    string
		missing string // the header the request went without ("" for none)
		value   [2]string
	}{
		{StepHeadersNoProtocolVersion, canonicalProtocolVersion, [2]string{}},
		{StepHeadersProtocolMismatch, "", [2]string{canonicalProtocolVersion, protocol.BogusStatelessRevision}},
		{StepHeadersNoMethod, protocol.HeaderMethod, [2]string{}},
		{StepHeadersMethodMismatch, "", [2]string{protocol.HeaderMethod, HeadersMismatchedMethod}},
		{StepHeadersNoName, protocol.HeaderName, [2]string{}},
		{StepHeadersNameMismatch, "", [2]string{protocol.HeaderName, ""}},
	} {
		st := ruleStep(t, res, ConnStatelessHeaders, w.step)
		if st.HTTPStatus != http.StatusBadRequest || code(st) != -32020 {
			t.Errorf("%s: HTTP %d code %d (%s), want 400 with -32020", w.step, st.HTTPStatus, code(st), st.Outcome)
		}
		h := sentHeader(t, res, st)
		if w.missing != "" && h.Get(w.missing) != "" {
			t.Errorf("%s: sent %s: %q", w.step, w.missing, h.Get(w.missing))
		}
		if name := w.value[0]; name != "" {
			got := h.Get(name)
			if want := w.value[1]; want != "" && got != want || want == "" && !strings.HasPrefix(got, HeadersMismatchedNamePrefix) {
				t.Errorf("%s: %s %q", w.step, name, got)
			}
		}
	}
	lower := ruleStep(t, res, ConnStatelessHeaders, StepHeadersLowercase)
	if lower.Outcome != OutcomeOK {
		t.Errorf("lowercase header names: %s HTTP %d, want served", lower.Outcome, lower.HTTPStatus)
	}
	h := sentHeader(t, res, lower)
	for _, name := range []string{"mcp-protocol-version", "mcp-method"} {
		if len(h[name]) != 1 {
			t.Errorf("lowercase header names: %s not sent under that spelling (%v)", name, h)
		}
	}
	// Mcp-Name went with a read of a listed resource; no tool was ever called.
	if st := ruleStep(t, res, ConnStatelessHeaders, StepHeadersNoName); st.Method != "resources/read" {
		t.Errorf("Mcp-Name probed with %s, want resources/read", st.Method)
	}
	for _, req := range rec.requests() {
		if req.method == "tools/call" && !bytes.Contains(req.body, []byte(UnknownToolPrefix)) {
			t.Errorf("a tool was called: %s", req.body)
		}
	}
}

// net/http writes a header name as the map holds it (HTTP/1.1), so what lowercaseNames
// leaves is what the server reads.
func TestLowercaseHeaderNamesReachTheWireAsWritten(t *testing.T) {
	req, err := http.NewRequest(http.MethodPost, "http://127.0.0.1:1/mcp", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set(protocol.HeaderProtocolVersion, protocol.Revision20260728)
	req.Header.Set(protocol.HeaderMethod, methodDiscover)
	lowercaseNames(req.Header)
	var b bytes.Buffer
	if err := req.Write(&b); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"mcp-protocol-version: 2026-07-28\r\n", "mcp-method: server/discover\r\n"} {
		if !strings.Contains(b.String(), line) {
			t.Errorf("request lacks %q:\n%s", line, b.String())
		}
	}
	if strings.Contains(b.String(), "Mcp-Method") {
		t.Errorf("the canonical spelling went out too:\n%s", b.String())
	}
}

// A server of the session era gets no stateless header probe.
func TestSessionEraServersGetNoStatelessHeaderProbe(t *testing.T) {
	_, _, url := fixtureServer(t, fixture.Conformant)
	res, _ := runProbe(t, Target{URL: url}, ruleTestOptions())
	for _, st := range res.Steps {
		if st.Conn == ConnStatelessHeaders {
			t.Errorf("step %s on the stateless header connection of a session-era server", st.Name)
		}
	}
}

// teeListener keeps every byte the server read, to see what went on the wire.
type teeListener struct {
	net.Listener
	mu  sync.Mutex
	got bytes.Buffer
}

func (l *teeListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &teeConn{Conn: c, l: l}, nil
}

func (l *teeListener) read() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.got.String()
}

type teeConn struct {
	net.Conn
	l *teeListener
}

func (c *teeConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.l.mu.Lock()
	c.l.got.Write(p[:n])
	c.l.mu.Unlock()
	return n, err
}

// Over plain http the padded request goes out with a space around its values (net/http
// would trim them), and a server that reads values as RFC 9110 §5.5 says serves it.
func TestPaddedHeaderValuesGoOutPadded(t *testing.T) {
	srv, err := fixture.New(fixture.Config{StatelessOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewUnstartedServer(srv.Handler())
	tee := &teeListener{Listener: ts.Listener}
	ts.Listener = tee
	ts.Start()
	t.Cleanup(ts.Close)
	o := eraOptions()
	o.skipRules = false
	res, _ := runProbe(t, Target{URL: ts.URL + "/mcp"}, o)
	defer logFramesOnFailure(t, res.Frames)
	st := ruleStep(t, res, ConnStatelessHeaders, StepHeadersPadded)
	if st.Outcome != OutcomeOK {
		t.Errorf("padded values: %s HTTP %d, want served", st.Outcome, st.HTTPStatus)
	}
	for _, line := range []string{"Mcp-Protocol-Version:  2026-07-28 \r\n", "Mcp-Method:  server/discover \r\n"} {
		if n := strings.Count(tee.read(), line); n != 1 {
			t.Errorf("%q went out %d times, want once (the padded request)", line, n)
		}
	}
	if got := sentHeader(t, res, st).Get(protocol.HeaderMethod); got != " server/discover " {
		t.Errorf("the transcript shows Mcp-Method %q, want it as sent", got)
	}
}

func TestPadHeaderValues(t *testing.T) {
	raw := "POST /mcp HTTP/1.1\r\nHost: h\r\nMcp-Method: ping\r\nmcp-name:x\r\nX-Other: keep\r\n\r\n{\"a\": \"Mcp-Method: no\"}"
	got := string(padHeaderValues([]byte(raw), []string{protocol.HeaderMethod, protocol.HeaderName}))
	want := "POST /mcp HTTP/1.1\r\nHost: h\r\nMcp-Method:  ping \r\nmcp-name:  x \r\nX-Other: keep\r\n\r\n{\"a\": \"Mcp-Method: no\"}"
	if got != want {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
}
