//go:build !checkonly

package main

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/internal/testkit/pgtest"
	"github.com/mcpwatch/mcpwatch/store"
)

func TestServersAddListRemove(t *testing.T) {
	t.Parallel()
	db, pool := pgtest.Migrated(t)
	ctx := t.Context()
	prober := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := testEnv(&out, &errb, map[string]string{"MCPWATCH_DATABASE_URL": db.URL}).servers(ctx, args)
		return code, out.String(), errb.String()
	}
	// A server of the configuration file, which these commands must leave alone.
	if _, err := store.New(pool).SyncServers(ctx, store.SourceConfig, []store.Server{{Name: "from-config", Transport: "stdio",
		Command: "./server", Schedule: "@every 1m", Timeout: time.Second, Enabled: true}}); err != nil {
		t.Fatal(err)
	}

	code, out, errs := prober("add", "weather", "https://mcp.example.com/mcp", "--schedule", "@every 2m",
		"--header", "Authorization=Bearer ${MCP_TOKEN}", "--label", "team=platform", "--timeout", "20s")
	if code != exitOK || !strings.Contains(out, "weather: https://mcp.example.com/mcp @every 2m, timeout 20s, enabled true") {
		t.Fatalf("add: exit %d, %q %q", code, out, errs)
	}
	code, out, _ = prober("list")
	if code != exitOK || !strings.Contains(out, "NAME") || !regexpLine(out, "weather", "api", "http", "https://mcp.example.com/mcp", "@every 2m", "20s", "true") ||
		!regexpLine(out, "from-config", "config", "stdio", "./server") {
		t.Errorf("list: exit %d:\n%s", code, out)
	}
	code, out, _ = prober("list", "--json")
	var listed []serverJSON
	if err := json.Unmarshal([]byte(out), &listed); code != exitOK || err != nil || len(listed) != 2 {
		t.Fatalf("list --json: exit %d, %v:\n%s", code, err, out)
	}
	w := listed[1]
	if w.Name != "weather" || w.Source != store.SourceAPI || !reflect.DeepEqual(w.Headers, []store.HeaderRef{{Name: "Authorization", FromEnv: "MCP_TOKEN", Prefix: "Bearer "}}) ||
		w.Labels["team"] != "platform" {
		t.Errorf("listed %+v", w)
	}

	// add again updates it.
	if code, out, errs = prober("add", "--disabled", "weather", "https://mcp.example.com/v2"); code != exitOK || !strings.Contains(out, "enabled false") {
		t.Errorf("add again: exit %d, %q %q", code, out, errs)
	}

	refused := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"a literal header value", []string{"add", "api", "https://x.example.com/mcp", "--header", "Authorization=Bearer abc123secret"}, exitUsage, "want NAME=PREFIX${VARIABLE}"},
		{"not an http URL", []string{"add", "api", "ftp://x.example.com/mcp"}, exitUsage, "is not an http:// or https:// URL"},
		{"a bad schedule", []string{"add", "api", "https://x.example.com/mcp", "--schedule", "sometimes"}, exitUsage, "not a schedule"},
		// The rules every server follows, the API's included (store.Server.Validate).
		{"a name with a space", []string{"add", "my server", "https://x.example.com/mcp"}, exitUsage,
			`"my server" is not a server name: 1-64 letters, digits and . _ - starting with a letter or digit`},
		{"a name with a slash", []string{"add", "team/api", "https://x.example.com/mcp"}, exitUsage,
			`"team/api" is not a server name`},
		{"a header the prober sets", []string{"add", "api", "https://x.example.com/mcp", "--header", "Mcp-Session-Id=${SESSION}"}, exitUsage,
			"headers[0].name: Mcp-Session-Id is set by the prober"},
		{"a lower-case variable", []string{"add", "api", "https://x.example.com/mcp", "--header", "Authorization=Bearer ${token}"}, exitUsage,
			`header Authorization: fromEnv: "token": name the prober's environment variable in upper case`},
		{"a header given twice", []string{"add", "api", "https://x.example.com/mcp", "--header", "X-Key=${A_KEY}", "--header", "x-key=${B_KEY}"}, exitUsage,
			"header x-key is given twice"},
		{"a label key with a space", []string{"add", "api", "https://x.example.com/mcp", "--label", "team name=core"}, exitUsage,
			`labels: key "team name" must be 1-64 letters, digits and . _ / -`},
		{"a label value on two lines", []string{"add", "api", "https://x.example.com/mcp", "--label", "team=a\nb"}, exitUsage,
			"labels: value of team holds a NUL or another control character"},
		{"a server of the configuration", []string{"add", "from-config", "https://x.example.com/mcp"}, exitFailed, "is a server of the configuration file"},
		{"removing a server of the configuration", []string{"remove", "from-config"}, exitFailed, "comes from the configuration file"},
		{"removing a server that is not there", []string{"remove", "nobody"}, exitFailed, `no server named "nobody"`},
		{"too few arguments", []string{"add", "only-a-name"}, exitUsage, "want 2 arguments, got 1"},
		{"an unknown subcommand", []string{"rename", "a", "b"}, exitUsage, `unknown subcommand "rename"`},
	}
	for _, tt := range refused {
		code, out, errs := prober(tt.args...)
		if code != tt.code || !strings.Contains(errs, tt.want) {
			t.Errorf("%s: exit %d, %q %q; want %d and %q", tt.name, code, out, errs, tt.code, tt.want)
		}
		if strings.Contains(out+errs, "abc123secret") {
			t.Errorf("%s: the output repeats the header value", tt.name)
		}
	}

	if code, out, errs = prober("remove", "weather"); code != exitOK || !strings.Contains(out, "removed weather") {
		t.Errorf("remove: exit %d, %q %q", code, out, errs)
	}
	if _, out, _ = prober("list"); strings.Contains(out, "weather") || !strings.Contains(out, "from-config") {
		t.Errorf("list after remove:\n%s", out)
	}
}

// regexpLine reports whether some line of out holds all the fields, in order.
func regexpLine(out string, fields ...string) bool {
	for _, line := range strings.Split(out, "\n") {
		rest, ok := line, true
		for _, f := range fields {
			i := strings.Index(rest, f)
			if i < 0 {
				ok = false
				break
			}
			rest = rest[i+len(f):]
		}
		if ok {
			return true
		}
	}
	return false
}

func TestParseHeaderRef(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want store.HeaderRef
		ok   bool
	}{
		{"Authorization=Bearer ${MCP_TOKEN}", store.HeaderRef{Name: "Authorization", Prefix: "Bearer ", FromEnv: "MCP_TOKEN"}, true},
		{"X-Api-Key=${KEY}", store.HeaderRef{Name: "X-Api-Key", FromEnv: "KEY"}, true},
		{"X-Api-Key=literal", store.HeaderRef{}, false},
		{"X-Api-Key=${KEY} trailing", store.HeaderRef{}, false},
		{"X=${A}${B}", store.HeaderRef{}, false},
		{"=${KEY}", store.HeaderRef{}, false},
		{"X=${1BAD}", store.HeaderRef{}, false},
	}
	for _, tt := range tests {
		got, err := parseHeaderRef(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("parseHeaderRef(%q) = %+v, %v; want %+v, ok %v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}
