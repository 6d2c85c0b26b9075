package store

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/protocol"
)

func TestServerValidate(t *testing.T) {
	t.Parallel()
	stdio := Server{Name: "s", Source: SourceConfig, Transport: protocol.TransportStdio, Command: "npx",
		Args: []string{"-y", "pkg"}, Env: []EnvVar{{Name: "A", Value: "1"}, {Name: "KEY", FromEnv: "MY_KEY"}},
		Schedule: "@every 1m", Timeout: time.Second}
	tests := []struct {
		name   string
		edit   func(*Server)
		server Server
		valid  bool
	}{
		{"http server", nil, httpServer("h"), true},
		{"stdio server", nil, stdio, true},
		{"no name", func(v *Server) { v.Name = "" }, httpServer("h"), false},
		{"no source", func(v *Server) { v.Source = "" }, httpServer("h"), false},
		{"no schedule", func(v *Server) { v.Schedule = "" }, httpServer("h"), false},
		{"no timeout", func(v *Server) { v.Timeout = 0 }, httpServer("h"), false},
		{"http without URL", func(v *Server) { v.URL = "" }, httpServer("h"), false},
		{"legacy sse server", func(v *Server) { v.Transport = protocol.TransportSSE }, httpServer("h"), true},
		{"auto-detected http server", func(v *Server) { v.Transport = protocol.TransportAuto }, httpServer("h"), true},
		{"unknown transport", func(v *Server) { v.Transport = "websocket" }, httpServer("h"), false},
		{"http with a command", func(v *Server) { v.Command = "sh" }, httpServer("h"), false},
		{"stdio without command", func(v *Server) { v.Command = "" }, stdio, false},
		{"stdio with URL", func(v *Server) { v.URL = "http://x" }, stdio, false},
		{"header holding a value instead of a reference", func(v *Server) {
			v.Headers = []HeaderRef{{Name: "Authorization", Prefix: "Bearer secret"}}
		}, httpServer("h"), false},
		{"env with value and fromEnv", func(v *Server) { v.Env = []EnvVar{{Name: "A", Value: "1", FromEnv: "B"}} }, stdio, false},
		{"env without name", func(v *Server) { v.Env = []EnvVar{{Value: "1"}} }, stdio, false},
		// The rules every source follows: the configuration file, `prober servers add`, the API.
		{"name with a space", func(v *Server) { v.Name = "my server" }, httpServer("h"), false},
		{"name with a slash", func(v *Server) { v.Name = "team/server" }, httpServer("h"), false},
		{"name starting with a dot", func(v *Server) { v.Name = ".h" }, httpServer("h"), false},
		{"name of 65 bytes", func(v *Server) { v.Name = strings.Repeat("n", 65) }, httpServer("h"), false},
		{"name of 64 bytes", func(v *Server) { v.Name = strings.Repeat("n", 64) }, httpServer("h"), true},
		{"timeout below 100ms", func(v *Server) { v.Timeout = 99 * time.Millisecond }, httpServer("h"), false},
		{"timeout above 10m", func(v *Server) { v.Timeout = 10*time.Minute + 1 }, httpServer("h"), false},
		{"ftp URL", func(v *Server) { v.URL = "ftp://h.example.com/mcp" }, httpServer("h"), false},
		{"credentials in the URL", func(v *Server) { v.URL = "https://u:p@h.example.com/mcp" }, httpServer("h"), false},
		{"header the prober sets", func(v *Server) { v.Headers = []HeaderRef{{Name: "Mcp-Session-Id", FromEnv: "SESSION"}} }, httpServer("h"), false},
		{"header that is no token", func(v *Server) { v.Headers = []HeaderRef{{Name: "X Key", FromEnv: "KEY"}} }, httpServer("h"), false},
		{"header given twice in two cases", func(v *Server) {
			v.Headers = []HeaderRef{{Name: "X-Key", FromEnv: "A"}, {Name: "x-key", FromEnv: "B"}}
		}, httpServer("h"), false},
		{"header read from a lower-case variable", func(v *Server) { v.Headers = []HeaderRef{{Name: "X-Key", FromEnv: "key"}} }, httpServer("h"), false},
		{"header prefix on two lines", func(v *Server) { v.Headers = []HeaderRef{{Name: "X-Key", FromEnv: "KEY", Prefix: "a\nb"}} }, httpServer("h"), false},
		{"env read from a lower-case variable", func(v *Server) { v.Env = []EnvVar{{Name: "KEY", FromEnv: "my_key"}} }, stdio, false},
		{"env of a lower-case name", func(v *Server) { v.Env = []EnvVar{{Name: "http_proxy", Value: "http://proxy"}} }, stdio, true},
		{"calls of the configuration file", func(v *Server) { v.Calls = json.RawMessage(`[{"tool":"echo"}]`) }, stdio, true},
		// Only the operator's file may have the monitor call a tool.
		{"calls of a server of the API", func(v *Server) { v.Source = SourceAPI; v.Calls = json.RawMessage(`[{"tool":"echo"}]`) }, httpServer("h"), false},
		{"calls that are no list", func(v *Server) { v.Calls = json.RawMessage(`{"tool":"echo"}`) }, stdio, false},
		{"label key with a space", func(v *Server) { v.Labels = map[string]string{"team name": "core"} }, httpServer("h"), false},
		{"label value with a NUL", func(v *Server) { v.Labels = map[string]string{"team": "a\x00b"} }, httpServer("h"), false},
		{"label value with a line break", func(v *Server) { v.Labels = map[string]string{"team": "a\nb"} }, httpServer("h"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := tt.server
			if tt.edit != nil {
				tt.edit(&v)
			}
			err := v.Validate()
			if tt.valid && err != nil {
				t.Errorf("Validate: %v, want nil", err)
			}
			if !tt.valid && !errors.Is(err, ErrInvalidServer) {
				t.Errorf("Validate: %v, want ErrInvalidServer", err)
			}
		})
	}
}

func TestUpsertServerRoundTripsEveryField(t *testing.T) {
	t.Parallel()
	s, ctx := newTestStore(t)
	stdio := Server{Name: "local", Source: SourceConfig, Transport: protocol.TransportStdio, Command: "npx",
		Args: []string{"-y", "@modelcontextprotocol/server-everything", "stdio"},
		Env:  []EnvVar{{Name: "LOG", Value: "debug"}, {Name: "API_KEY", FromEnv: "PROBER_API_KEY"}},
		Dir:  "/srv", Schedule: "*/5 * * * *", Timeout: 30 * time.Second,
		Labels: map[string]string{"team": "core", "tier": "1"}, Enabled: true,
		Calls: json.RawMessage(`[{"tool":"echo","arguments":{"token":{"fromEnv":"ECHO_TOKEN"}}}]`)}
	for _, want := range []Server{httpServer("remote"), stdio} {
		got := mustUpsert(t, ctx, s, want)
		if got.ID == 0 || got.CreatedAt.IsZero() {
			t.Fatalf("stored %s has no id or creation time: %+v", want.Name, got)
		}
		want.ID, want.CreatedAt, want.UpdatedAt = got.ID, got.CreatedAt, got.UpdatedAt
		if !reflect.DeepEqual(got, want) {
			t.Errorf("stored server differs:\n got %+v\nwant %+v", got, want)
		}
		byName, err := s.ServerByName(ctx, want.Name)
		if err != nil || !reflect.DeepEqual(byName, got) {
			t.Errorf("ServerByName = %+v, %v; want %+v", byName, err, got)
		}
	}

	// An update by name keeps the id.
	edited := httpServer("remote")
	edited.URL = "https://elsewhere.example.com/mcp"
	edited.Enabled = false
	got := mustUpsert(t, ctx, s, edited)
	first, _ := s.ServerByName(ctx, "local")
	all, err := s.Servers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 2 || got.URL != edited.URL || got.Enabled {
		t.Errorf("after update: %d servers, URL %q, enabled %v", len(all), got.URL, got.Enabled)
	}
	if err := s.DeleteServer(ctx, first.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Server(ctx, first.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("Server after delete: %v, want ErrNotFound", err)
	}
	if err := s.DeleteServer(ctx, first.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("second delete: %v, want ErrNotFound", err)
	}
}

func TestUpsertServerRefusesANameOfAnotherSource(t *testing.T) {
	t.Parallel()
	s, ctx := newTestStore(t)
	mustUpsert(t, ctx, s, httpServer("shared"))
	api := httpServer("shared")
	api.Source = SourceAPI
	if _, err := s.UpsertServer(ctx, api); !errors.Is(err, ErrNameTaken) {
		t.Fatalf("UpsertServer from the API over a config server: %v, want ErrNameTaken", err)
	}
	if _, err := s.SyncServers(ctx, SourceAPI, []Server{api}); !errors.Is(err, ErrNameTaken) {
		t.Fatalf("SyncServers from the API over a config server: %v, want ErrNameTaken", err)
	}
}

func TestSyncServersDisablesWhatTheSourceNoLongerLists(t *testing.T) {
	t.Parallel()
	s, ctx := newTestStore(t)
	if err := s.RegisterRegion(ctx, "eu"); err != nil {
		t.Fatal(err)
	}
	api := httpServer("from-api")
	api.Source = SourceAPI
	mustUpsert(t, ctx, s, api)

	report, err := s.SyncServers(ctx, SourceConfig, []Server{httpServer("a"), httpServer("b"), httpServer("c")})
	if err != nil || report.Upserted != 3 || len(report.Disabled) != 0 {
		t.Fatalf("first sync: %+v, %v", report, err)
	}
	if n := count(t, ctx, s, `SELECT count(*) FROM schedule`); n != 4 {
		t.Fatalf("%d schedule slots after sync, want 4", n)
	}

	report, err = s.SyncServers(ctx, SourceConfig, []Server{httpServer("a")})
	if err != nil || !reflect.DeepEqual(report.Disabled, []string{"b", "c"}) && !reflect.DeepEqual(report.Disabled, []string{"c", "b"}) {
		t.Fatalf("second sync: %+v, %v; want b and c disabled", report, err)
	}
	for name, want := range map[string]bool{"a": true, "b": false, "c": false, "from-api": true} {
		v, err := s.ServerByName(ctx, name)
		if err != nil || v.Enabled != want {
			t.Errorf("%s: enabled %v, err %v; want enabled %v", name, v.Enabled, err, want)
		}
	}
	if n := count(t, ctx, s, `SELECT count(*) FROM schedule`); n != 2 {
		t.Errorf("%d schedule slots after removal, want 2 (a and from-api)", n)
	}

	// Listed again, a server comes back with a slot.
	if _, err := s.SyncServers(ctx, SourceConfig, []Server{httpServer("a"), httpServer("b")}); err != nil {
		t.Fatal(err)
	}
	if n := count(t, ctx, s, `SELECT count(*) FROM schedule`); n != 3 {
		t.Errorf("%d schedule slots after re-adding b, want 3", n)
	}
}

func TestChangingAScheduleMakesTheServerDueNow(t *testing.T) {
	t.Parallel()
	s, ctx := newTestStore(t)
	if err := s.RegisterRegion(ctx, "eu"); err != nil {
		t.Fatal(err)
	}
	mustUpsert(t, ctx, s, httpServer("a"))
	claimed, err := s.Claim(ctx, "eu", "w", 10, time.Minute)
	if err != nil || len(claimed) != 1 {
		t.Fatalf("Claim: %v, %v", claimed, err)
	}
	if err := s.Complete(ctx, claimed[0].Lease, time.Now().Add(24*time.Hour), OutcomeUp); err != nil {
		t.Fatal(err)
	}
	same := httpServer("a")
	same.Timeout = time.Minute // not the schedule: stays where it was
	mustUpsert(t, ctx, s, same)
	if got, _ := s.Claim(ctx, "eu", "w", 10, time.Minute); len(got) != 0 {
		t.Fatalf("claimed %d servers after an edit that kept the schedule, want 0", len(got))
	}
	changed := httpServer("a")
	changed.Schedule = "@every 10s"
	mustUpsert(t, ctx, s, changed)
	got, err := s.Claim(ctx, "eu", "w", 10, time.Minute)
	if err != nil || len(got) != 1 || got[0].Server.Schedule != "@every 10s" {
		t.Fatalf("Claim after a schedule change: %+v, %v; want the server with its new schedule", got, err)
	}
}
