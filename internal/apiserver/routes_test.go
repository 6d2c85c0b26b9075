package apiserver

import (
	"encoding/json"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// Every route is documented and every documented operation is served.
func TestOpenAPIDocumentsEveryRouteAndNothingElse(t *testing.T) {
	t.Parallel()
	var doc struct {
		OpenAPI string                                `json:"openapi"`
		Paths   map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(openAPIDocument, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.OpenAPI != "3.1.0" {
		t.Errorf("openapi %q", doc.OpenAPI)
	}
	var documented []string
	for path, ops := range doc.Paths {
		for method := range ops {
			if method == "parameters" {
				continue
			}
			documented = append(documented, strings.ToUpper(method)+" "+path)
		}
	}
	s := &API{}
	var served []string
	for _, rt := range s.routeTable() {
		served = append(served, rt.method+" "+rt.pattern)
	}
	slices.Sort(documented)
	slices.Sort(served)
	if !slices.Equal(documented, served) {
		t.Errorf("documented and served routes differ:\ndocumented %q\nserved     %q", documented, served)
	}
	// Every $ref points at a component that exists.
	var whole map[string]any
	_ = json.Unmarshal(openAPIDocument, &whole)
	comps := whole["components"].(map[string]any)
	for _, m := range regexp.MustCompile(`"#/components/(\w+)/(\w+)"`).FindAllStringSubmatch(string(openAPIDocument), -1) {
		if _, ok := comps[m[1]].(map[string]any)[m[2]]; !ok {
			t.Errorf("dangling $ref %s/%s", m[1], m[2])
		}
	}
}

func readUnknownPathsAndMethodsAnswerJSON(t *testing.T, w *world) {
	for _, tc := range []struct {
		method, path string
		status       int
		code, allow  string
	}{
		{"GET", "/api/v1/nothing", 404, codeNotFound, ""},
		{"GET", "/api/v2/servers", 404, codeNotFound, ""},
		{"PUT", "/api/v1/servers", 405, codeMethodNotAllowed, "GET"},
		{"DELETE", "/api/v1/runs/abc", 405, codeMethodNotAllowed, "GET"},
		{"GET", "/api/v1/servers/beta/pause", 405, codeMethodNotAllowed, "POST"},
		{"GET", "/badge/alpha/other.svg", 404, codeNotFound, ""},
		{"GET", "/", 404, codeNotFound, ""},
	} {
		resp := w.do(t, req{method: tc.method, path: tc.path})
		if resp.status != tc.status || resp.errorCode(t) != tc.code || !strings.HasPrefix(resp.header.Get("Content-Type"), "application/json") {
			t.Errorf("%s %s: %d %s", tc.method, tc.path, resp.status, resp.body)
		}
		if tc.allow != "" && !strings.Contains(strings.Join(resp.header.Values("Allow"), ","), tc.allow) {
			t.Errorf("%s %s: Allow %v, want %s", tc.method, tc.path, resp.header.Values("Allow"), tc.allow)
		}
	}
}

func TestOperationalEndpoints(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	if r := w.get(t, "/healthz"); r.status != 200 {
		t.Errorf("healthz %d", r.status)
	}
	if r := w.get(t, "/readyz"); r.status != 200 {
		t.Errorf("readyz %d %s", r.status, r.body)
	}
	if r := w.get(t, "/api/v1/openapi.json"); r.status != 200 || !json.Valid(r.body) {
		t.Errorf("openapi %d", r.status)
	}
	w.get(t, "/api/v1/servers")
	r := w.get(t, "/metrics")
	if r.status != 200 || !strings.Contains(string(r.body), `mcpwatch_api_requests_total{code="200",method="GET",route="GET /api/v1/servers"} 1`) ||
		!strings.Contains(string(r.body), "go_goroutines") {
		t.Errorf("metrics %d:\n%.2000s", r.status, r.body)
	}
	// The database gone: not ready, still healthy.
	w.st.Close()
	if r := w.get(t, "/readyz"); r.status != http.StatusServiceUnavailable || r.errorCode(t) != codeUnavailable {
		t.Errorf("readyz without database: %d %s", r.status, r.body)
	}
	if r := w.get(t, "/healthz"); r.status != 200 {
		t.Errorf("healthz without database: %d", r.status)
	}
}

func TestWebIsMountedAtTheRoot(t *testing.T) {
	t.Parallel()
	web := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("dashboard " + r.URL.Path)) })
	w := newWorld(t, func(c *Config) { c.Web = web })
	if r := w.get(t, "/servers/alpha"); r.status != 200 || string(r.body) != "dashboard /servers/alpha" {
		t.Errorf("web: %d %s", r.status, r.body)
	}
	if r := w.get(t, "/api/v1/nothing"); r.status != 404 || r.errorCode(t) != codeNotFound {
		t.Errorf("api 404 went to the web: %d %s", r.status, r.body)
	}
}
