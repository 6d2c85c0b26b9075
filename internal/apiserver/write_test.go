package apiserver

import (
	"net/http"
	"strings"
	"testing"

	"golang.org/x/time/rate"
)

func TestRegisterChangePauseAndDeleteAServer(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	body := `{"name":"svc-1","url":"https://public.test/mcp","transport":"http","schedule":"@every 2m","timeoutMs":5000,
		"labels":{"team":"a"},"headers":[{"name":"Authorization","fromEnv":"MCPWATCH_HEADER_SVC1","prefix":"Bearer "}]}`
	resp := w.do(t, req{method: "POST", path: "/api/v1/servers", token: testToken, body: body})
	if resp.status != http.StatusCreated || resp.header.Get("Location") != "/api/v1/servers/svc-1" {
		t.Fatalf("create: %d %v %s", resp.status, resp.header, resp.body)
	}
	var v serverView
	resp.json(t, &v)
	if v.Name != "svc-1" || v.Source != "api" || v.Paused || v.TimeoutMs != 5000 || v.Headers[0] != "Authorization" {
		t.Errorf("created %+v", v)
	}
	if strings.Contains(string(resp.body), "MCPWATCH_HEADER_SVC1") {
		t.Error("the answer names the header's variable")
	}
	if r := w.get(t, "/api/v1/servers/svc-1"); r.status != 200 || strings.Contains(string(r.body), "MCPWATCH_HEADER_SVC1") {
		t.Errorf("read back: %d %s", r.status, r.body)
	}
	if r := w.do(t, req{method: "POST", path: "/api/v1/servers", token: testToken, body: body}); r.status != 409 || r.errorCode(t) != codeConflict {
		t.Errorf("second create: %d %s", r.status, r.body)
	}
	resp = w.do(t, req{method: "PATCH", path: "/api/v1/servers/svc-1", token: testToken, body: `{"schedule":"*/5 * * * *","labels":{}}`})
	v = serverView{}
	resp.json(t, &v)
	if resp.status != 200 || v.Schedule != "*/5 * * * *" || len(v.Labels) != 0 || v.TimeoutMs != 5000 {
		t.Errorf("patch: %d %+v", resp.status, v)
	}
	resp = w.do(t, req{method: "POST", path: "/api/v1/servers/svc-1/pause", token: testToken})
	resp.json(t, &v)
	if resp.status != 200 || !v.Paused {
		t.Errorf("pause: %d %+v", resp.status, v)
	}
	var status statusView
	w.get(t, "/api/v1/servers/svc-1").json(t, &status)
	if status.State != "paused" {
		t.Errorf("paused server shows %s", status.State)
	}
	resp = w.do(t, req{method: "POST", path: "/api/v1/servers/svc-1/resume", token: testToken})
	resp.json(t, &v)
	if resp.status != 200 || v.Paused {
		t.Errorf("resume: %d %+v", resp.status, v)
	}
	if r := w.do(t, req{method: "DELETE", path: "/api/v1/servers/svc-1", token: testToken}); r.status != http.StatusNoContent {
		t.Errorf("delete: %d %s", r.status, r.body)
	}
	if r := w.get(t, "/api/v1/servers/svc-1"); r.status != 404 {
		t.Errorf("deleted server: %d", r.status)
	}
	for _, r := range []req{
		{method: "DELETE", path: "/api/v1/servers/svc-1"},
		{method: "PATCH", path: "/api/v1/servers/svc-1", body: `{"paused":true}`},
		{method: "POST", path: "/api/v1/servers/nope/pause"},
	} {
		r.token = testToken
		if resp := w.do(t, r); resp.status != 404 || resp.errorCode(t) != codeNotFound {
			t.Errorf("%s %s of a missing server: %d %s", r.method, r.path, resp.status, resp.body)
		}
	}
}

// Servers of the config file are the operator's: the API neither takes their names nor
// changes them.
func TestConfigServersCannotBeChangedThroughTheAPI(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	for _, r := range []req{
		{method: "PATCH", path: "/api/v1/servers/alpha", body: `{"paused":true}`},
		{method: "POST", path: "/api/v1/servers/alpha/pause"},
		{method: "DELETE", path: "/api/v1/servers/gamma"},
	} {
		r.token = testToken
		if resp := w.do(t, r); resp.status != 409 || resp.errorCode(t) != codeManagedElsewhere {
			t.Errorf("%s %s: %d %s", r.method, r.path, resp.status, resp.body)
		}
	}
	if r := w.do(t, req{method: "POST", path: "/api/v1/servers", token: testToken, body: `{"name":"alpha","url":"https://public.test/"}`}); r.status != 409 {
		t.Errorf("create over a config server: %d %s", r.status, r.body)
	}
	var v statusView
	w.get(t, "/api/v1/servers/alpha").json(t, &v)
	if v.Paused || v.URL == "https://public.test/" {
		t.Errorf("alpha changed: %+v", v.serverView)
	}
}

func TestWritesRefuseBadInput(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	big := `{"name":"big","url":"https://public.test/","labels":{"k":"` + strings.Repeat("x", MaxBodyBytes) + `"}}`
	for _, tc := range []struct {
		name, body, contentType string
		status                  int
		code                    string
	}{
		{"malformed JSON", `{"name":"x",`, "", 400, codeInvalidJSON},
		{"not an object", `[1,2]`, "", 400, codeInvalidJSON},
		{"two values", `{"name":"x","url":"https://public.test/"} {}`, "", 400, codeInvalidJSON},
		{"wrong type", `{"name":5,"url":"https://public.test/"}`, "", 400, codeInvalidJSON},
		{"unknown field", `{"name":"x","url":"https://public.test/","colour":"red"}`, "", 400, codeUnknownField},
		{"a command", `{"name":"x","command":"rm -rf /"}`, "", 400, codeUnknownField},
		{"oversized body", big, "", 413, codeBodyTooLarge},
		{"not JSON", `name=x`, "application/x-www-form-urlencoded", 415, codeUnsupportedMedia},
		{"no name", `{"url":"https://public.test/"}`, "", 422, codeValidation},
		{"bad name", `{"name":"a/b","url":"https://public.test/"}`, "", 422, codeValidation},
		{"no url", `{"name":"x"}`, "", 422, codeValidation},
		{"stdio", `{"name":"x","url":"https://public.test/","transport":"stdio"}`, "", 422, codeValidation},
		{"unknown transport", `{"name":"x","url":"https://public.test/","transport":"carrier-pigeon"}`, "", 422, codeValidation},
		{"ftp url", `{"name":"x","url":"ftp://public.test/"}`, "", 422, codeValidation},
		{"credentials in url", `{"name":"x","url":"https://u:p@public.test/"}`, "", 422, codeValidation},
		{"unresolvable", `{"name":"x","url":"https://nowhere.test/"}`, "", 422, codeValidation},
		{"loopback literal", `{"name":"x","url":"http://127.0.0.1:8080/mcp"}`, "", 422, codeForbiddenAddress},
		{"loopback v6 literal", `{"name":"x","url":"http://[::1]/mcp"}`, "", 422, codeForbiddenAddress},
		{"mapped loopback", `{"name":"x","url":"http://[::ffff:127.0.0.1]/mcp"}`, "", 422, codeForbiddenAddress},
		{"metadata literal", `{"name":"x","url":"http://169.254.169.254/latest/meta-data/"}`, "", 422, codeForbiddenAddress},
		{"private literal", `{"name":"x","url":"http://10.1.2.3/mcp"}`, "", 422, codeForbiddenAddress},
		{"cgnat literal", `{"name":"x","url":"http://100.64.1.1/mcp"}`, "", 422, codeForbiddenAddress},
		{"name to private", `{"name":"x","url":"https://internal.test/mcp"}`, "", 422, codeForbiddenAddress},
		{"name to metadata", `{"name":"x","url":"https://meta.test/mcp"}`, "", 422, codeForbiddenAddress},
		{"name to public and loopback", `{"name":"x","url":"https://local.test/mcp"}`, "", 422, codeForbiddenAddress},
		{"header variable outside prefix", `{"name":"x","url":"https://public.test/","headers":[{"name":"X-Key","fromEnv":"DATABASE_PASSWORD"}]}`, "", 422, codeValidation},
		{"reserved header", `{"name":"x","url":"https://public.test/","headers":[{"name":"Host","fromEnv":"MCPWATCH_HEADER_H"}]}`, "", 422, codeValidation},
		{"too frequent", `{"name":"x","url":"https://public.test/","schedule":"@every 5s"}`, "", 422, codeValidation},
		{"bad schedule", `{"name":"x","url":"https://public.test/","schedule":"whenever"}`, "", 422, codeValidation},
		// The worker refuses @every longer than 31 days (and would probe such a server hourly).
		{"too rare", `{"name":"x","url":"https://public.test/","schedule":"@every 800h"}`, "", 422, codeValidation},
		{"timeout too long", `{"name":"x","url":"https://public.test/","timeoutMs":3600000}`, "", 422, codeValidation},
	} {
		resp := w.do(t, req{method: "POST", path: "/api/v1/servers", token: testToken, body: tc.body, contentType: tc.contentType})
		if resp.status != tc.status || resp.errorCode(t) != tc.code {
			t.Errorf("%s: %d %.200s, want %d %s", tc.name, resp.status, resp.body, tc.status, tc.code)
		}
	}
	if r := w.do(t, req{method: "PATCH", path: "/api/v1/servers/beta", token: testToken, body: `{"name":"renamed"}`}); r.status != 422 {
		t.Errorf("rename: %d %s", r.status, r.body)
	}
	if r := w.do(t, req{method: "PATCH", path: "/api/v1/servers/beta", token: testToken, body: `{"url":"http://169.254.169.254/"}`}); r.status != 422 || r.errorCode(t) != codeForbiddenAddress {
		t.Errorf("patch to metadata: %d %s", r.status, r.body)
	}
	// Only the operator's configuration file may have the monitor call a tool: a caller of the
	// API that asks for calls is told so, on a new server and on one it registered.
	for _, r := range []req{
		{method: "POST", path: "/api/v1/servers", token: testToken, body: `{"name":"caller","url":"https://public.test/","calls":[{"tool":"delete_everything","arguments":{}}]}`},
		{method: "PATCH", path: "/api/v1/servers/beta", token: testToken, body: `{"calls":[{"tool":"echo"}]}`},
		{method: "PATCH", path: "/api/v1/servers/beta", token: testToken, body: `{"calls":null}`},
	} {
		resp := w.do(t, r)
		if resp.status != 400 || resp.errorCode(t) != codeBadRequest || !strings.Contains(string(resp.body), "only the operator's configuration file may have the monitor call") {
			t.Errorf("%s %s with calls: %d %.300s, want 400 saying calls come from the configuration file", r.method, r.path, resp.status, resp.body)
		}
	}
	var list struct{ Servers []serverView }
	w.get(t, "/api/v1/servers").json(t, &list)
	if len(list.Servers) != 3 {
		t.Errorf("refused writes stored servers: %d", len(list.Servers))
	}
}

func TestWritesNeedTheAdminToken(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	body := `{"name":"x","url":"https://public.test/"}`
	for _, tc := range []struct {
		auth string
		code string
	}{
		{"", codeUnauthorized},
		{"Bearer wrong-token-wrong-token", codeUnauthorized},
		{"Basic " + testToken, codeUnauthorized},
		{"Bearer " + testToken + "x", codeUnauthorized},
		{"Bearer " + testToken[:len(testToken)-1], codeUnauthorized},
	} {
		resp := w.do(t, req{method: "POST", path: "/api/v1/servers", body: body, header: map[string]string{"Authorization": tc.auth}})
		if resp.status != 401 || resp.errorCode(t) != tc.code || !strings.HasPrefix(resp.header.Get("WWW-Authenticate"), "Bearer") {
			t.Errorf("auth %q: %d %v %s", tc.auth, resp.status, resp.header, resp.body)
		}
	}
	if r := w.do(t, req{method: "DELETE", path: "/api/v1/servers/beta"}); r.status != 401 {
		t.Errorf("delete without token: %d", r.status)
	}
	if r := w.do(t, req{method: "POST", path: "/api/v1/servers", body: body, header: map[string]string{"Authorization": "bearer " + testToken}}); r.status != 201 {
		t.Errorf("lower-case scheme: %d %s", r.status, r.body)
	}

	ro := newWorld(t, func(c *Config) { c.AdminToken = "" })
	if r := ro.do(t, req{method: "POST", path: "/api/v1/servers", body: body, token: testToken}); r.status != 403 || r.errorCode(t) != codeWritesDisabled {
		t.Errorf("writes without a configured token: %d %s", r.status, r.body)
	}
}

func TestWritesAreRateLimitedPerClient(t *testing.T) {
	t.Parallel()
	w := newWorld(t, func(c *Config) { c.WriteRate, c.WriteBurst = rate.Limit(0.001), 3 })
	codes := []int{}
	for range 5 {
		resp := w.do(t, req{method: "POST", path: "/api/v1/servers/beta/pause", token: testToken})
		codes = append(codes, resp.status)
		if resp.status == 429 && (resp.errorCode(t) != codeRateLimited || resp.header.Get("Retry-After") == "") {
			t.Errorf("429 without code or Retry-After: %v %s", resp.header, resp.body)
		}
	}
	if codes[0] != 200 || codes[2] != 200 || codes[3] != 429 || codes[4] != 429 {
		t.Errorf("statuses %v, want three 200 then 429", codes)
	}
	if r := w.get(t, "/api/v1/servers/beta"); r.status != 200 {
		t.Errorf("reads are limited too: %d", r.status)
	}
}

func TestPrivateServerNeedsTheTokenToRead(t *testing.T) {
	t.Parallel()
	w := newWorld(t, func(c *Config) { c.Private = true })
	for _, p := range []string{"/api/v1/servers", "/api/v1/servers/alpha", "/badge/alpha/status.svg", "/api/v1/alerts"} {
		if r := w.get(t, p); r.status != 401 {
			t.Errorf("GET %s without token: %d", p, r.status)
		}
		if r := w.do(t, req{method: "GET", path: p, token: testToken}); r.status != 200 {
			t.Errorf("GET %s with token: %d", p, r.status)
		}
	}
	for _, p := range []string{"/healthz", "/readyz", "/metrics", "/api/v1/openapi.json"} {
		if r := w.get(t, p); r.status != 200 {
			t.Errorf("GET %s: %d", p, r.status)
		}
	}
}

// The message of a refused write names what is wrong with the value sent, not another fault.
func TestWriteErrorsSayWhatIsWrong(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	for _, tc := range []struct {
		name, body string
		status     int
		code, msg  string
	}{
		{"fractional timeout", `{"name":"x","url":"https://public.test/","timeoutMs":1500.0}`, 400, codeInvalidJSON,
			"timeoutMs must be a whole number of milliseconds, not 1500.0"},
		{"timeout in exponent form", `{"name":"x","url":"https://public.test/","timeoutMs":1.5e3}`, 400, codeInvalidJSON,
			"timeoutMs must be a whole number of milliseconds, not 1.5e3"},
		{"timeout as a string", `{"name":"x","url":"https://public.test/","timeoutMs":"1500"}`, 400, codeInvalidJSON,
			"timeoutMs must be a whole number of milliseconds, not a string"},
		{"name as a number", `{"name":5,"url":"https://public.test/"}`, 400, codeInvalidJSON,
			"name must be a string, not a number"},
		{"paused as a string", `{"name":"x","url":"https://public.test/","paused":"yes"}`, 400, codeInvalidJSON,
			"paused must be a boolean, not a string"},
		{"NUL in a label", `{"name":"x","url":"https://public.test/","labels":{"team":"a\u0000b"}}`, 422, codeValidation,
			"labels: value of team holds a NUL or another control character"},
		{"line break in a label", `{"name":"x","url":"https://public.test/","labels":{"team":"a\nb"}}`, 422, codeValidation,
			"labels: value of team holds a NUL or another control character"},
		{"long label", `{"name":"x","url":"https://public.test/","labels":{"team":"` + strings.Repeat("x", 257) + `"}}`, 422, codeValidation,
			"labels: value of team is longer than 256 bytes"},
		{"NUL in a header prefix", `{"name":"x","url":"https://public.test/","headers":[{"name":"X-Key","fromEnv":"MCPWATCH_HEADER_K","prefix":"a\u0000"}]}`, 422, codeValidation,
			"headers[0].prefix: holds a NUL or another control character"},
		{"long header prefix", `{"name":"x","url":"https://public.test/","headers":[{"name":"X-Key","fromEnv":"MCPWATCH_HEADER_K","prefix":"` + strings.Repeat("x", 65) + `"}]}`, 422, codeValidation,
			"headers[0].prefix: longer than 64 bytes"},
	} {
		resp := w.do(t, req{method: "POST", path: "/api/v1/servers", token: testToken, body: tc.body})
		var e errorBody
		resp.json(t, &e)
		if resp.status != tc.status || e.Error.Code != tc.code || e.Error.Message != tc.msg {
			t.Errorf("%s: %d %s %q, want %d %s %q", tc.name, resp.status, e.Error.Code, e.Error.Message, tc.status, tc.code, tc.msg)
		}
	}
}
