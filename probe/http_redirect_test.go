package probe

import (
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/mcpwatch/mcpwatch/protocol"
)

// countingServer serves h on host (a loopback address) and counts the requests it gets.
type countingServer struct {
	*httptest.Server
	mu   sync.Mutex
	seen []string // method and path of every request
}

func (c *countingServer) requests() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.seen...)
}

// serveOn starts h on host: 127.0.0.1 for the server probed, 127.0.0.2 for "another host".
func serveOn(t *testing.T, host string, h http.Handler) *countingServer {
	t.Helper()
	l, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		t.Skipf("cannot listen on %s: %v", host, err)
	}
	c := &countingServer{}
	c.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.mu.Lock()
		c.seen = append(c.seen, r.Method+" "+r.URL.Path)
		c.mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	_ = c.Server.Listener.Close()
	c.Server.Listener = l
	c.Start()
	t.Cleanup(c.Close)
	return c
}

// No transport of the specification asks a client to follow a redirect (2025-11-25
// basic/transports, Streamable HTTP: "If the input is a JSON-RPC request, the server MUST
// either return Content-Type: text/event-stream ... or Content-Type: application/json"), and
// following one elsewhere would re-POST the message to a host the user never named and make
// its answer evidence. The probe follows none of an MCP request: the redirect is the answer.
func TestHTTPRedirectsOfMCPRequestsAreNotFollowed(t *testing.T) {
	const secret = "key-0b9d6e55aa31"
	for _, tc := range []struct {
		name   string
		status int
		// to is where the front server sends the client: another host or its own origin.
		elsewhere bool
	}{
		{"a 307 to another host", http.StatusTemporaryRedirect, true},
		{"a 308 to another host", http.StatusPermanentRedirect, true},
		{"a 307 on the same origin", http.StatusTemporaryRedirect, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fx := newMCPFixture(t, protocol.Revision20251125)
			fx.sessions = false
			other := serveOn(t, "127.0.0.2", fx)
			var front *countingServer
			front = serveOn(t, "127.0.0.1", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/moved" {
					fx.ServeHTTP(w, r)
					return
				}
				to := front.URL + "/moved"
				if tc.elsewhere {
					to = other.URL + "/mcp"
				}
				http.Redirect(w, r, to, tc.status)
			}))
			target := Target{URL: front.URL + "/mcp", Header: http.Header{"X-Team-Key": {secret}}}
			o := testOptions()
			o.skipRules = false // the rule probes' connections must not follow either
			res, _ := runProbe(t, target, o)
			init := stepNamed(t, res, ConnMain, StepInitialize)
			if init.HTTPStatus != tc.status || init.Outcome != OutcomeTransport {
				t.Errorf("initialize: HTTP %d %s (%s), want the redirect as the answer", init.HTTPStatus, init.Outcome, init.Err)
			}
			head, _ := frameAt(res, init.Response)
			// HTTPInfo.URL is empty: the answer came from the URL asked.
			if head.HTTP == nil || head.HTTP.Header.Get("Location") == "" || head.HTTP.URL != "" {
				t.Errorf("the redirect is not recorded with its Location: %+v", head.HTTP)
			}
			if got := other.requests(); len(got) > 0 {
				t.Errorf("the other host got %d requests: %v", len(got), got)
			}
			for _, req := range front.requests() {
				if strings.HasSuffix(req, "/moved") {
					t.Errorf("the same-origin redirect was followed: %s", req)
				}
			}
			if len(front.requests()) < 2 {
				t.Errorf("the probe made %d requests: the rule probes did not run", len(front.requests()))
			}
		})
	}
}

// A client looks for the protected resource metadata where the 401 says (2025-11-25
// basic/authorization, Protected Resource Metadata Discovery). A document fetch may follow a
// redirect on its own origin, never one to another host.
func TestHTTPMetadataFetchFollowsRedirectsOnlyOnItsOrigin(t *testing.T) {
	// The authorization server is on loopback (a refused port): the probe looks it up, and
	// nothing of this test leaves the machine.
	const document = `{"resource":"r","authorization_servers":["http://127.0.0.1:1"]}`
	for _, tc := range []struct {
		name       string
		elsewhere  bool
		wantStatus int
	}{
		{"a redirect on the same origin is followed", false, http.StatusOK},
		{"a redirect to another host is not", true, http.StatusTemporaryRedirect},
	} {
		t.Run(tc.name, func(t *testing.T) {
			serveDocument := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(document))
			})
			other := serveOn(t, "127.0.0.2", serveDocument)
			var front *countingServer
			front = serveOn(t, "127.0.0.1", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				switch r.URL.Path {
				case "/prm":
					serveDocument(w, r)
				case "/prm-moved":
					to := front.URL + "/prm"
					if tc.elsewhere {
						to = other.URL + "/prm"
					}
					http.Redirect(w, r, to, http.StatusTemporaryRedirect)
				default:
					w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+front.URL+`/prm-moved"`)
					w.WriteHeader(http.StatusUnauthorized)
				}
			}))
			res, _ := runProbe(t, Target{URL: front.URL + "/mcp"}, ruleTestOptions())
			meta := ruleStep(t, res, ConnAuth, StepResourceMetadata)
			if meta.HTTPStatus != tc.wantStatus {
				t.Errorf("metadata: HTTP %d (%s), want %d", meta.HTTPStatus, meta.Err, tc.wantStatus)
			}
			if got := other.requests(); len(got) > 0 {
				t.Errorf("the other host got %d requests: %v", len(got), got)
			}
		})
	}
}

// A client given in Options.HTTPClient (net/http's default policy follows ten redirects
// anywhere) gets the probe's policy too.
func TestHTTPGivenClientFollowsNoRedirectElsewhere(t *testing.T) {
	fx := newMCPFixture(t, protocol.Revision20251125)
	fx.sessions = false
	other := serveOn(t, "127.0.0.2", fx)
	front := serveOn(t, "127.0.0.1", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/mcp", http.StatusTemporaryRedirect)
	}))
	o := testOptions()
	o.HTTPClient = &http.Client{}
	res, _ := runProbe(t, Target{URL: front.URL + "/mcp"}, o)
	if init := stepNamed(t, res, ConnMain, StepInitialize); init.HTTPStatus != http.StatusTemporaryRedirect {
		t.Errorf("initialize: HTTP %d (%s), want the redirect", init.HTTPStatus, init.Err)
	}
	if got := other.requests(); len(got) > 0 {
		t.Errorf("the other host got %d requests: %v", len(got), got)
	}
	if o.HTTPClient.CheckRedirect != nil {
		t.Error("the caller's client was changed")
	}
}

// A redirect whose Location cannot be parsed fails the request, with the words net/http's
// client uses: the probe sends most requests straight through its own transport, and that
// must not turn such an answer into evidence of another kind.
func TestHTTPRedirectWithUnreadableLocationFailsTheRequest(t *testing.T) {
	for _, status := range []int{http.StatusFound, http.StatusTemporaryRedirect} {
		t.Run(http.StatusText(status), func(t *testing.T) {
			front := serveOn(t, "127.0.0.1", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Location", "http://[::1%zz]/mcp")
				w.WriteHeader(status)
			}))
			res, _ := runProbe(t, Target{URL: front.URL + "/mcp"}, testOptions())
			init := stepNamed(t, res, ConnMain, StepInitialize)
			if init.Outcome != OutcomeTransport || init.HTTPStatus != 0 || !strings.Contains(init.Err, `failed to parse Location header "http://[::1%zz]/mcp"`) {
				t.Errorf("initialize: %s, HTTP %d (%s); want a transport failure that names the Location", init.Outcome, init.HTTPStatus, init.Err)
			}
		})
	}
}
