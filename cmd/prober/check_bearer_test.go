package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/mcpwatch/mcpwatch/internal/testkit/fixture"
	"github.com/mcpwatch/mcpwatch/probe"
)

func TestBearerTokenUsageErrorsNeverShowTheToken(t *testing.T) {
	const token = "sk-bearer-9c2f41d7e0"
	const url = "http://127.0.0.1:1/mcp"
	t.Setenv("PROBER_TEST_EMPTY_TOKEN", "")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"both forms", []string{"check", "--bearer-token", token, "--bearer-token-env", "X", url}, "not both"},
		{"for a command", []string{"check", "--bearer-token", token, "--", "srv"}, "--bearer-token applies to an HTTP URL"},
		{"with an Authorization header", []string{"check", "--bearer-token", token, "-H", "Authorization: Basic " + token, url}, "give one"},
		{"an unset variable", []string{"check", "--bearer-token-env", "PROBER_TEST_NO_SUCH_VARIABLE", url}, "--bearer-token-env PROBER_TEST_NO_SUCH_VARIABLE: the variable is not set or empty"},
		{"an empty variable", []string{"check", "--bearer-token-env", "PROBER_TEST_EMPTY_TOKEN", url}, "not set or empty"},
		{"not a variable name", []string{"check", "--bearer-token-env", "A=B", url}, "is not the name of an environment variable"},
		{"a line break in the token", []string{"check", "--bearer-token", token + "\nX-Evil: 1", url}, "the token is not shown"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, context.Background(), tc.args...)
			if code != exitUsage || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr, exitUsage, tc.want)
			}
			if strings.Contains(stdout+stderr, token) {
				t.Errorf("the output shows the token: %q", stdout+stderr)
			}
		})
	}
}

// The token from the environment reaches the server, the probe without it meets the 401, and
// the token appears in no output.
func TestBearerTokenFromTheEnvironmentProbesAProtectedServer(t *testing.T) {
	srv, err := fixture.New(fixture.Config{Fault: fixture.AuthRequired})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	auth := map[string]int{}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auth[r.Header.Get("Authorization")]++
		mu.Unlock()
		srv.Handler().ServeHTTP(w, r)
	}))
	defer ts.Close()
	t.Setenv("PROBER_TEST_TOKEN", fixture.BearerToken)

	code, stdout, stderr := runCLI(t, context.Background(), "check", "--format", "json", "--verbose", "--log-level", "debug",
		"--bearer-token-env", "PROBER_TEST_TOKEN", ts.URL+"/mcp")
	if strings.Contains(stdout+stderr, fixture.BearerToken) {
		t.Error("the output shows the token")
	}
	var rep struct {
		Checks []struct {
			ID, Status, Message string
		} `json:"checks"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("exit %d, report: %v\n%s", code, err, stderr)
	}
	status := map[string]string{}
	for _, c := range rep.Checks {
		status[c.ID] = c.Status
	}
	for _, id := range []string{"lifecycle.initialize", "auth.challenge", "auth.resource-metadata", "auth.server-metadata",
		"auth.pkce", "auth.client-registration", "auth.invalid-token", "auth.scope"} {
		if status[id] != "pass" {
			t.Errorf("%s: %q", id, status[id])
		}
	}
	mu.Lock()
	defer mu.Unlock()
	// Without the token: the challenge's initialize, the protected resource metadata GET and
	// the authorization server metadata GET; then one initialize with a bogus token.
	bogus := 0
	for value, n := range auth {
		if strings.HasPrefix(value, "Bearer "+probe.InvalidTokenPrefix) {
			bogus += n
		}
	}
	if auth["Bearer "+fixture.BearerToken] == 0 || auth[""] != 3 || bogus != 1 {
		t.Errorf("requests by Authorization: %d with the token, %d without (want the challenge's initialize and the two metadata GETs), %d with a bogus token (want 1)",
			auth["Bearer "+fixture.BearerToken], auth[""], bogus)
	}
}
