package netguard_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/internal/netguard"
	"github.com/mcpwatch/mcpwatch/internal/testkit/fixture"
	"github.com/mcpwatch/mcpwatch/probe"
)

// The prober with a guarded dialer reaches an allowed server, and nothing else: not an
// address outside the allow list, not one a redirect points at (the probe follows no
// redirect of an MCP request: the redirect is the answer), not one the server names for its
// metadata.
func TestProbeWithGuardedDialerReachesOnlyAllowedServers(t *testing.T) {
	t.Parallel()
	srv, err := fixture.New(fixture.Config{})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(ts.URL, "http://"))
	redirect := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://127.0.0.2:"+port+"/", http.StatusTemporaryRedirect)
	}))
	defer redirect.Close()
	locked := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="http://127.0.0.2:`+port+`/prm"`)
		w.WriteHeader(http.StatusUnauthorized)
	}))
	defer locked.Close()
	safety := &net.Dialer{Timeout: 5 * time.Second, Control: func(_, address string, _ syscall.RawConn) error {
		if ap, err := netip.ParseAddrPort(address); err != nil || !ap.Addr().IsLoopback() {
			t.Errorf("a connection to %s got through", address)
			return errors.New("not loopback")
		}
		return nil
	}}
	g := netguard.New(netguard.Config{Dialer: safety, Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}})
	opts := probe.Options{Timeout: 20 * time.Second, InitTimeout: 10 * time.Second, RequestTimeout: 5 * time.Second, DialContext: g.DialContext}

	res, err := probe.Run(t.Context(), probe.Target{URL: ts.URL}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if st, ok := res.FirstStep(probe.StepInitialize); !ok || st.Outcome != probe.OutcomeOK {
		t.Fatalf("initialize through the guard: %+v", st)
	}

	closed := netguard.New(netguard.Config{Dialer: safety})
	opts.DialContext = closed.DialContext
	res, err = probe.Run(t.Context(), probe.Target{URL: ts.URL}, opts)
	if err == nil {
		assertRefused(t, res, "loopback without an allow list")
	}

	var (
		mu        sync.Mutex
		elsewhere []string
	)
	opts.DialContext = func(ctx context.Context, network, address string) (net.Conn, error) {
		if !strings.HasPrefix(address, "127.0.0.1:") {
			mu.Lock()
			elsewhere = append(elsewhere, address)
			mu.Unlock()
		}
		return g.DialContext(ctx, network, address)
	}
	res, err = probe.Run(t.Context(), probe.Target{URL: redirect.URL}, opts)
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if st, _ := res.FirstStep(probe.StepInitialize); st.HTTPStatus != http.StatusTemporaryRedirect {
		t.Errorf("a redirect to 127.0.0.2: initialize %+v, want the redirect as its answer", st)
	}
	if len(elsewhere) > 0 {
		t.Errorf("a redirect to 127.0.0.2 made the probe dial %v", elsewhere)
	}

	opts.DialContext = g.DialContext
	res, err = probe.Run(t.Context(), probe.Target{URL: locked.URL}, opts)
	if err != nil {
		t.Fatal(err)
	}
	var meta *probe.Step
	for i, st := range res.Steps {
		if st.Name == probe.StepResourceMetadata {
			meta = &res.Steps[i]
		}
	}
	if meta == nil || !strings.Contains(meta.Err, "not allowed") {
		t.Errorf("metadata named at 127.0.0.2: %+v, want it refused by the guard", meta)
	}
}

func assertRefused(t *testing.T, res *probe.Result, what string) {
	t.Helper()
	st, ok := res.FirstStep(probe.StepInitialize)
	if !ok || st.Outcome == probe.OutcomeOK || !strings.Contains(st.Err, "not allowed") {
		t.Errorf("%s: initialize %+v, want it refused by the guard", what, st)
	}
}
