package monitor

import (
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/internal/calls"
	"github.com/mcpwatch/mcpwatch/internal/metrics"
	"github.com/mcpwatch/mcpwatch/internal/testkit/pgtest"
	"github.com/mcpwatch/mcpwatch/store"
)

// A server's calls: take the calls file's form as written (issue 23), camelCase or
// kebab-case, and keep each argument read from the environment a reference.
func TestAServersCallsTakeTheCallsFileForm(t *testing.T) {
	t.Parallel()
	cfg, err := ParseConfig("mcpwatch.yaml", []byte(`servers:
  - name: s
    url: http://127.0.0.1:1/mcp
    calls:
      - tool: echo
        arguments: {message: hello}
        expect: {isError: false, textContains: hello}
      - tool: add
        arguments: {a: 1, b: 2, key: {fromEnv: ADD_KEY}}
        timeout: 5s
        invalid-arguments: true
        expect: {pointer: /sum, equals: 3}
`))
	if err != nil {
		t.Fatal(err)
	}
	got := cfg.Servers[0].Calls
	if len(got) != 2 || got[0].Tool != "echo" || string(got[0].Arguments) != `{"message":"hello"}` {
		t.Fatalf("calls = %+v", got)
	}
	if string(got[1].Arguments) != `{"a":1,"b":2,"key":{"fromEnv":"ADD_KEY"}}` || got[1].Timeout() != 5*time.Second || !got[1].InvalidArguments {
		t.Errorf("second call = %+v", got[1])
	}
	if missing := cfg.MissingEnv(func(string) (string, bool) { return "", false }); strings.Join(missing, ",") != "ADD_KEY" {
		t.Errorf("MissingEnv = %q, want the call's variable", missing)
	}
	v := cfg.StoreServers()[0]
	if err := v.Validate(); err != nil {
		t.Fatal(err)
	}
	back, err := calls.Decode(v.Calls)
	if err != nil || len(back) != 2 || back[1].Env()[0] != "ADD_KEY" {
		t.Errorf("stored calls %s decode to %+v, %v", v.Calls, back, err)
	}
}

// Each problem of a calls: list is placed at its line and column, with the field's path in
// the file; the rest of the file is judged as usual.
func TestACallsProblemIsPlacedAtItsLineAndColumn(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, calls, want string }{
		{"unknown key", "      - tool: echo\n        argumens: {}\n",
			"mcpwatch.yaml:6:9: servers[0].calls[0].argumens: unknown key (known: arguments, expect, invalid-arguments, timeout, tool); did you mean arguments?"},
		{"no tool", "      - arguments: {a: 1}\n", "mcpwatch.yaml:5:9: servers[0].calls[0].tool: want the name of a tool the server lists"},
		{"arguments not a mapping", "      - tool: echo\n        arguments: [1]\n", "mcpwatch.yaml:6:20: servers[0].calls[0].arguments: want a mapping"},
		{"a variable that is no name", "      - tool: echo\n        arguments: {t: {fromEnv: 'a b'}}\n", "mcpwatch.yaml:6:20: servers[0].calls[0].arguments: line 6: fromEnv wants the name of an environment variable"},
		{"a bad expectation", "      - tool: echo\n        expect: {equals: 3}\n", "mcpwatch.yaml:6:17: servers[0].calls[0].expect: equals and matches need a pointer"},
		{"a timeout longer than the probe's", "      - tool: echo\n        timeout: 1m\n", "mcpwatch.yaml:6:18: servers[0].calls[0].timeout: 1m0s is longer than the server's probe timeout (30s)"},
		{"a timeout that is no duration", "      - tool: echo\n        timeout: soon\n", "mcpwatch.yaml:6:18: servers[0].calls[0].timeout"},
		{"an empty list", "      []\n", "servers[0].calls: an empty list"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			doc := "servers:\n  - name: s\n    url: http://127.0.0.1:1/mcp\n    calls:\n" + tc.calls
			_, err := ParseConfig("mcpwatch.yaml", []byte(doc))
			var errs ConfigErrors
			if !errors.As(err, &errs) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want a ConfigError containing %q", err, tc.want)
			}
		})
	}
}

// The calls are part of the server's configuration: another call, or another argument, is
// another generation; the same calls in the other spelling are the same one.
func TestACallsChangeIsAChangeOfTheServersConfiguration(t *testing.T) {
	t.Parallel()
	const base = "servers:\n  - name: s\n    url: http://127.0.0.1:1/mcp\n"
	hash := func(body string) string {
		t.Helper()
		cfg, err := ParseConfig("mcpwatch.yaml", []byte(body))
		if err != nil {
			t.Fatal(err)
		}
		gen, err := cfg.Generation()
		if err != nil {
			t.Fatal(err)
		}
		return gen.Hash
	}
	without := hash(base)
	with := hash(base + "    calls:\n      - tool: echo\n        arguments: {message: hello}\n        invalidArguments: true\n")
	for _, tc := range []struct {
		name, body string
		want       string
	}{
		{"calls added", base + "    calls:\n      - tool: echo\n        arguments: {message: hello}\n        invalidArguments: true\n", with},
		{"the kebab-case spelling", base + "    calls:\n      - tool: echo\n        arguments: {message: hello}\n        invalid-arguments: true\n", with},
	} {
		if got := hash(tc.body); got != tc.want || got == without {
			t.Errorf("%s: hash %s, want %s (without calls %s)", tc.name, got[:12], tc.want[:12], without[:12])
		}
	}
	for _, body := range []string{
		base + "    calls:\n      - tool: echo\n        arguments: {message: bye}\n        invalidArguments: true\n",
		base + "    calls:\n      - tool: echo\n        arguments: {message: hello}\n",
	} {
		if got := hash(body); got == with || got == without {
			t.Errorf("%q hashes as another configuration does", body)
		}
	}
}

// The file's calls reach the database with the server, through the generation sync, and a
// reload with other calls replaces them; no secret is in what is stored.
func TestTheConfigSyncStoresTheCallsAndAReloadReplacesThem(t *testing.T) {
	t.Parallel()
	db, _ := pgtest.Migrated(t)
	st := openStore(t, db.URL)
	const base = "servers:\n  - name: s\n    url: http://127.0.0.1:1/mcp\n"
	m, err := NewMetrics(metrics.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	sync := func(body string, written time.Time) store.Server {
		t.Helper()
		cfg, err := ParseConfig("mcpwatch.yaml", []byte(body))
		if err != nil {
			t.Fatal(err)
		}
		cfg.ModTime = written
		if err := syncConfig(t.Context(), st, cfg, syncOptions{worker: "w"}, m, slog.New(slog.DiscardHandler)); err != nil {
			t.Fatal(err)
		}
		s, err := st.ServerByName(t.Context(), "s")
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	now := time.Now()
	s := sync(base+"    calls:\n      - tool: echo\n        arguments: {token: {fromEnv: ECHO_TOKEN}}\n", now)
	if want := `[{"tool":"echo","arguments":{"token":{"fromEnv":"ECHO_TOKEN"}}}]`; string(s.Calls) != want {
		t.Errorf("stored calls %s, want %s", s.Calls, want)
	}
	s = sync(base+"    calls:\n      - tool: add\n        arguments: {a: 1}\n", now.Add(time.Second))
	if want := `[{"tool":"add","arguments":{"a":1}}]`; string(s.Calls) != want {
		t.Errorf("after a reload: stored calls %s, want %s", s.Calls, want)
	}
	if s = sync(base, now.Add(2*time.Second)); s.Calls != nil {
		t.Errorf("after the calls were taken out: stored calls %s, want none", s.Calls)
	}
}

// A server registered outside the file (prober servers add) cannot carry calls.
func TestAServerFromOutsideTheFileCannotHaveCalls(t *testing.T) {
	t.Parallel()
	s := store.Server{Name: "s", Source: store.SourceAPI, Transport: "http", URL: "https://example.com/mcp",
		Schedule: "@every 5m", Timeout: time.Second, Enabled: true, Calls: []byte(`[{"tool":"echo"}]`)}
	if err := CheckServer(s); !errors.Is(err, ErrInvalidConfig) || !strings.Contains(err.Error(), "tool calls come from the configuration file only") {
		t.Errorf("CheckServer = %v, want a refusal of the calls", err)
	}
	s.Calls = nil
	if err := CheckServer(s); err != nil {
		t.Errorf("without calls: %v", err)
	}
}
