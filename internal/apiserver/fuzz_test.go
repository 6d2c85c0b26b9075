package apiserver

import (
	"bufio"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/store"
	"github.com/mcpwatch/mcpwatch/web"
)

// withDashboard mounts the real dashboard at "/", as the api command does.
func withDashboard(t testing.TB) worldOption {
	return func(c *Config) {
		dash, err := web.New(web.Deps{Store: c.Store.(*store.Store), Checks: c.Catalog, Version: "test"})
		if err != nil {
			t.Fatal(err)
		}
		c.Web = dash
	}
}

// readRequest is the request net/http's server would hand the handler for this request line,
// or nil when the server would refuse the line itself (an invalid method, a malformed target).
// The path is the decoded path: it is escaped into the target as a client would. A body is
// sent as JSON.
func readRequest(method, path, query, body string, admin bool) *http.Request {
	if !strings.HasPrefix(path, "/") {
		path = "/" + path
	}
	target := (&url.URL{Path: path}).EscapedPath()
	if query != "" {
		target += "?" + query
	}
	head := method + " " + target + " HTTP/1.1\r\nHost: api.test\r\n"
	if admin {
		head += "Authorization: Bearer " + testToken + "\r\n"
	}
	if body != "" {
		head += "Content-Type: application/json\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n"
	}
	r, err := http.ReadRequest(bufio.NewReader(strings.NewReader(head + "\r\n" + body)))
	if err != nil {
		return nil
	}
	r.RemoteAddr = "127.0.0.1:40000"
	return r
}

// The routes answer every request, whatever its method, path, query and body, with a status
// below 500: a 5xx says the server failed, and nothing a client sends is the server's failure.
func FuzzAPIRoutes(f *testing.F) {
	w := newWorld(f, withDashboard(f))
	for _, s := range []struct {
		method, path, query, body string
		admin                     bool
	}{
		{"GET", "/api/v1/servers", "", "", false},
		{"GET", "/api/v1/servers/alpha", "", "", false},
		{"GET", "/api/v1/servers/alpha/runs", "region=eu&outcome=down&limit=5", "", false},
		{"GET", "/api/v1/servers/alpha/runs", "region=%00", "", false},
		{"GET", "/api/v1/servers/alpha/runs", "region=%ff", "", false},
		{"GET", "/api/v1/servers/alpha/runs", "cursor=abc", "", false},
		{"GET", "/api/v1/servers/alpha/tools", "", "", false},
		{"GET", "/api/v1/servers/alpha/alerts", "kind=down&limit=2", "", false},
		{"GET", "/api/v1/servers/a\x00b", "", "", false},
		{"GET", "/api/v1/servers/\xff\xfe", "", "", false},
		{"GET", "/api/v1/runs/" + w.withTranscript.ID.String(), "", "", false},
		{"GET", "/api/v1/runs/\x00", "", "", false},
		{"GET", "/api/v1/alerts", "kind=\x00", "", false},
		{"GET", "/badge/alpha/uptime.svg", "window=7d", "", false},
		{"GET", "/badge/alpha/latency.svg", "quantile=0.95", "", false},
		{"GET", "/badge/\x00/status.svg", "", "", false},
		{"DELETE", "/api/v1/servers/\x00", "", "", true},
		{"PATCH", "/api/v1/servers/beta", "", "", true},
		{"POST", "/api/v1/servers/\xff/pause", "", "", true},
		{"GET", "/servers/alpha", "", "", false},
		{"GET", "/servers/\x00", "", "", false},
		{"GET", "/servers/alpha/runs", "region=\xff", "", false},
		{"BREW", "/api/v1/servers", "", "", false},
		{"POST", "/api/v1/servers", "", `{"name":"svc","url":"https://public.test/mcp","labels":{"team":"a\u0000"},"timeoutMs":1500.0}`, true},
		{"POST", "/api/v1/servers", "", `{"name":"svc2","url":"https://public.test/mcp\u0000","schedule":"@every 1m\u0000"}`, true},
		{"PATCH", "/api/v1/servers/beta", "", `{"headers":[{"name":"X-K\u0000","fromEnv":"MCPWATCH_HEADER_K","prefix":"\u0000"}]}`, true},
		{"PATCH", "/api/v1/servers/beta", "", `{"paused":true,"labels":{"\u0000":"x"}}`, true},
	} {
		f.Add(s.method, s.path, s.query, s.body, s.admin)
	}
	f.Fuzz(func(t *testing.T, method, path, query, body string, admin bool) {
		r := readRequest(method, path, query, body, admin)
		if r == nil {
			return
		}
		rec := httptest.NewRecorder()
		start := time.Now()
		w.api.ServeHTTP(rec, r.WithContext(t.Context()))
		if took := time.Since(start); took > 5*time.Second {
			t.Fatalf("%s %s: took %v", r.Method, r.RequestURI, took)
		}
		if rec.Code >= 500 {
			t.Fatalf("%s %s: %d %s", r.Method, r.RequestURI, rec.Code, rec.Body)
		}
	})
}

// A NUL or bytes that are not UTF-8 in a path segment or a query parameter are the client's
// mistake: 400 with a JSON error that says so, not a 500 from the database refusing the text.
func TestUnreadablePathsAndParametersAre400(t *testing.T) {
	t.Parallel()
	w := newWorld(t, withDashboard(t))
	for _, tc := range []struct{ method, path, query string }{
		{"GET", "/api/v1/servers/a\x00b", ""},
		{"GET", "/api/v1/servers/\xff", ""},
		{"GET", "/api/v1/servers/alpha/runs", "region=%00"},
		{"GET", "/api/v1/servers/alpha/runs", "region=%ff%fe"},
		{"GET", "/api/v1/servers/alpha/runs", "outcome=up%00"},
		{"GET", "/api/v1/servers/\x00/tools", ""},
		{"GET", "/api/v1/servers/\x00/alerts", ""},
		{"GET", "/api/v1/alerts", "kind=%00"},
		{"GET", "/badge/\xc3/status.svg", ""},
		{"DELETE", "/api/v1/servers/\x00", ""},
		{"GET", "/servers/\x00", ""},
		{"GET", "/servers/alpha", "region=%ff"},
	} {
		r := readRequest(tc.method, tc.path, tc.query, "", true)
		rec := httptest.NewRecorder()
		w.api.ServeHTTP(rec, r)
		resp := response{status: rec.Code, header: rec.Header(), body: rec.Body.Bytes()}
		if resp.status != http.StatusBadRequest {
			t.Errorf("%s %q ?%s: %d %s", tc.method, tc.path, tc.query, resp.status, resp.body)
			continue
		}
		if code := resp.errorCode(t); code != codeBadRequest {
			t.Errorf("%s %q ?%s: code %s", tc.method, tc.path, tc.query, code)
		}
	}
}
