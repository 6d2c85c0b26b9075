package probe

import (
	"context"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"testing"

	"github.com/mcpwatch/mcpwatch/internal/netguard"
	"github.com/mcpwatch/mcpwatch/internal/testkit/fixture"
)

// 2025-11-25 basic/authorization, Authorization Server Metadata Discovery: "For issuer URLs
// with path components (e.g., https://auth.example.com/tenant1), clients MUST try endpoints in
// the following priority order: 1. OAuth 2.0 Authorization Server Metadata with path
// insertion: https://auth.example.com/.well-known/oauth-authorization-server/tenant1 2. OpenID
// Connect Discovery 1.0 with path insertion:
// https://auth.example.com/.well-known/openid-configuration/tenant1 3. OpenID Connect
// Discovery 1.0 path appending: https://auth.example.com/tenant1/.well-known/openid-configuration"
// and, without a path, the OAuth URL then the OpenID Connect one.
func TestServerMetadataURLsFollowTheSpecsOrder(t *testing.T) {
	cases := []struct {
		issuer string
		want   []string
	}{
		{"https://auth.example.com/tenant1", []string{
			"https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
			"https://auth.example.com/.well-known/openid-configuration/tenant1",
			"https://auth.example.com/tenant1/.well-known/openid-configuration"}},
		// RFC 8414 §3.1: "any terminating "/" MUST be removed before inserting".
		{"https://auth.example.com/tenant1/", []string{
			"https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
			"https://auth.example.com/.well-known/openid-configuration/tenant1",
			"https://auth.example.com/tenant1/.well-known/openid-configuration"}},
		{"https://auth.example.com", []string{
			"https://auth.example.com/.well-known/oauth-authorization-server",
			"https://auth.example.com/.well-known/openid-configuration"}},
		{"http://127.0.0.1:8080/", []string{
			"http://127.0.0.1:8080/.well-known/oauth-authorization-server",
			"http://127.0.0.1:8080/.well-known/openid-configuration"}},
		{"https://auth.example.com/?tenant=1", nil},
		{"https://auth.example.com/#x", nil},
		{"auth.example.com", nil},
		{"file:///etc/passwd", nil},
	}
	for _, tc := range cases {
		if got := ServerMetadataURLs(tc.issuer); strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("%s: got %q, want %q", tc.issuer, got, tc.want)
		}
	}
}

// A client sends nothing to an authorization server on plain http elsewhere ("All
// authorization server endpoints MUST be served over HTTPS"); plain http on this machine is
// exempt.
func TestFetchableIssuerIsHTTPSOrLoopback(t *testing.T) {
	for issuer, want := range map[string]bool{
		"https://auth.example.com":  true,
		"http://127.0.0.2:9/oauth":  true,
		"http://localhost:9":        true,
		"http://[::1]:9":            true,
		"http://auth.example.com":   false,
		"http://10.0.0.1/oauth":     false,
		"https://auth.example.com?": true,
		"ftp://auth.example.com":    false,
	} {
		if got := FetchableIssuer(issuer); got != want {
			t.Errorf("%s: %v, want %v", issuer, got, want)
		}
	}
}

// oauthFront is an MCP endpoint on 127.0.0.1 that wants a token and names an authorization
// server on 127.0.0.2 ("another host") whose metadata is only at the last URL a client tries.
func oauthFront(t *testing.T) (front, as *countingServer, asHeaders func() []http.Header, tokens func() []string) {
	t.Helper()
	var mu sync.Mutex
	var headers []http.Header
	var seen []string // the Authorization of every request to the endpoint
	var issuer string
	as = serveOn(t, "127.0.0.2", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		headers = append(headers, r.Header.Clone())
		mu.Unlock()
		switch r.URL.Path {
		case WellKnownOAuthServer + "/tenant":
			// A redirect to another origin is not followed.
			http.Redirect(w, r, front.URL+"/elsewhere", http.StatusFound)
		case "/tenant" + WellKnownOpenID:
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"issuer":"` + issuer + `"}`))
		default:
			http.NotFound(w, r)
		}
	}))
	issuer = as.URL + "/tenant"
	front = serveOn(t, "127.0.0.1", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case WellKnownResourceMetadata + "/mcp":
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"resource":"` + front.URL + `/mcp","authorization_servers":["` + issuer + `","http://auth.example.com"]}`))
		default:
			mu.Lock()
			seen = append(seen, r.Header.Get("Authorization"))
			mu.Unlock()
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+front.URL+WellKnownResourceMetadata+`/mcp"`)
			w.WriteHeader(http.StatusUnauthorized)
		}
	}))
	return front, as, func() []http.Header {
			mu.Lock()
			defer mu.Unlock()
			return headers
		}, func() []string {
			mu.Lock()
			defer mu.Unlock()
			return seen
		}
}

// The authorization server's metadata is looked up at the spec's URLs in its order, without
// credentials or MCP headers, following no redirect to another origin; the plain-http server
// elsewhere gets nothing; one request with a bogus token follows.
func TestAuthProbeFollowsTheOAuthChainAsAClientWould(t *testing.T) {
	front, as, asHeaders, tokens := oauthFront(t)
	target := Target{URL: front.URL + "/mcp", Header: http.Header{"Authorization": {"Bearer user-secret-token"}}}
	res, _ := runProbe(t, target, ruleTestOptions())
	var urls []string
	for _, st := range res.Steps {
		if st.Conn == ConnAuth && st.Name == StepAuthServerMetadata {
			out, _ := frameAt(res, st.Request)
			urls = append(urls, out.HTTP.URL)
		}
	}
	want := ServerMetadataURLs(as.URL + "/tenant")
	if strings.Join(urls, " ") != strings.Join(want, " ") {
		t.Errorf("fetched %q, want %q", urls, want)
	}
	for _, h := range asHeaders() {
		if h.Get("Authorization") != "" || h.Get("Mcp-Protocol-Version") != "" || h.Get("Mcp-Session-Id") != "" {
			t.Errorf("the authorization server got credentials or MCP headers: %v", h)
		}
	}
	if got := front.requests(); strings.Contains(strings.Join(got, " "), "/elsewhere") {
		t.Errorf("a redirect to another origin was followed: %v", got)
	}
	if bogus := ruleStep(t, res, ConnAuth, StepAuthInvalidToken); bogus.HTTPStatus != http.StatusUnauthorized {
		t.Errorf("bogus token: HTTP %d", bogus.HTTPStatus)
	}
	sent := 0
	for _, v := range tokens() {
		if strings.HasPrefix(v, "Bearer "+InvalidTokenPrefix) {
			sent++
		}
	}
	if sent != 1 {
		t.Errorf("%d requests with a bogus token, want 1 (the endpoint saw %q)", sent, tokens())
	}
}

// The monitor dials servers registered by strangers through a netguard.Guard
// (Options.DialContext); the authorization server fetches go through it too, so metadata
// cannot point the probe at an address the guard blocks.
func TestAuthServerFetchesGoThroughTheGuardedDialer(t *testing.T) {
	front, as, _, _ := oauthFront(t)
	guard := netguard.New(netguard.Config{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}})
	var mu sync.Mutex
	var dialled []string
	o := ruleTestOptions()
	o.DialContext = func(ctx context.Context, network, address string) (net.Conn, error) {
		mu.Lock()
		dialled = append(dialled, address)
		mu.Unlock()
		return guard.DialContext(ctx, network, address)
	}
	res, _ := runProbe(t, Target{URL: front.URL + "/mcp"}, o)
	if got := as.requests(); len(got) > 0 {
		t.Errorf("the guard let %d requests through to 127.0.0.2: %v", len(got), got)
	}
	fetches := 0
	for _, st := range res.Steps {
		if st.Conn == ConnAuth && st.Name == StepAuthServerMetadata {
			fetches++
			if st.HTTPStatus != 0 || !strings.Contains(st.Err, "netguard") {
				t.Errorf("a blocked fetch: HTTP %d, err %q", st.HTTPStatus, st.Err)
			}
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if fetches == 0 || !strings.Contains(strings.Join(dialled, " "), strings.TrimPrefix(as.URL, "http://")) {
		t.Errorf("%d fetches; dialled %v, want the authorization server among them", fetches, dialled)
	}
}

// A stateless server is asked without credentials with the handshake of its era:
// server/discover, self-contained, not initialize, which 2026-07-28 removed ("remove the
// initialize/notifications/initialized handshake", changelog). A session-era server still gets
// initialize.
func TestTheAnonymousRequestIsTheHandshakeOfTheServersEra(t *testing.T) {
	for _, tc := range []struct {
		name   string
		cfg    fixture.Config
		method string
	}{
		{"stateless only", fixture.Config{Fault: fixture.AuthRequired, StatelessOnly: true}, "server/discover"},
		{"session era", fixture.Config{Fault: fixture.AuthRequired}, "initialize"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts, _ := eraFixture(t, tc.cfg)
			target := Target{URL: ts.URL + "/mcp", Header: http.Header{"Authorization": {"Bearer " + fixture.BearerToken}}}
			o := ruleTestOptions()
			o.ProtocolVersion = "" // the era is detected
			res, _ := runProbe(t, target, o)
			for _, name := range []string{StepAuthInitialize, StepAuthInvalidToken} {
				st := ruleStep(t, res, ConnAuth, name)
				if st.Method != tc.method || st.HTTPStatus != http.StatusUnauthorized {
					t.Errorf("%s: %s answered HTTP %d, want %s answered 401", name, st.Method, st.HTTPStatus, tc.method)
				}
			}
		})
	}
}

// Without credentials of the user the main handshake is already the request without
// credentials: it is the authorization probe's evidence unless it got a 401, which the probe
// follows with discovery on its own connection. A target with credentials, or a 401, gets
// the probe's own request, as before.
func TestTheAuthProbeTakesTheMainHandshakeOnlyWhenItCarriedNoCredentials(t *testing.T) {
	for _, tc := range []struct {
		name     string
		cfg      fixture.Config
		header   http.Header
		method   string
		status   int
		borrowed bool
	}{
		{"session era, no credentials", fixture.Config{}, nil, "initialize", http.StatusOK, true},
		{"stateless, no credentials", fixture.Config{StatelessOnly: true}, nil, "server/discover", http.StatusOK, true},
		{"a header of the user", fixture.Config{}, http.Header{"X-Tenant": {"t1"}}, "initialize", http.StatusOK, false},
		{"401 without credentials", fixture.Config{Fault: fixture.AuthRequired}, nil, "initialize", http.StatusUnauthorized, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts, _ := eraFixture(t, tc.cfg)
			o := ruleTestOptions()
			o.ProtocolVersion = "" // the era is detected
			res, _ := runProbe(t, Target{URL: ts.URL + "/mcp", Header: tc.header}, o)
			st := ruleStep(t, res, ConnAuth, StepAuthInitialize)
			if st.Method != tc.method || st.HTTPStatus != tc.status {
				t.Errorf("%s answered HTTP %d, want %s answered %d", st.Method, st.HTTPStatus, tc.method, tc.status)
			}
			out, ok := frameAt(res, st.Request)
			if !ok || out.HTTP == nil {
				t.Fatalf("the request frame %d was not recorded", st.Request)
			}
			if borrowed := out.Conn == ConnMain; borrowed != tc.borrowed {
				t.Errorf("the request went out on connection %d; borrowed from the main handshake: %v, want %v", out.Conn, borrowed, tc.borrowed)
			}
			authFrames := 0
			for _, f := range res.Frames {
				if f.Conn == ConnAuth {
					authFrames++
				}
			}
			if (authFrames == 0) != tc.borrowed {
				t.Errorf("%d frames on the authorization probe's connection, borrowed %v", authFrames, tc.borrowed)
			}
		})
	}
}
