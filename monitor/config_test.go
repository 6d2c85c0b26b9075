package monitor

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/alert"
	"github.com/mcpwatch/mcpwatch/protocol"
	"github.com/mcpwatch/mcpwatch/store"
)

func TestLoadConfigReadsEverySetting(t *testing.T) {
	t.Parallel()
	cfg, err := LoadConfig(filepath.Join("testdata", "config", "full.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(filepath.Join("testdata", "config", "full.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	want := &Config{
		Path:           filepath.Join("testdata", "config", "full.yaml"),
		ModTime:        info.ModTime(),
		Region:         "eu-west",
		Concurrency:    64,
		ShutdownGrace:  45 * time.Second,
		LeaseMargin:    20 * time.Second,
		MaxJitter:      10 * time.Minute,
		Transcripts:    TranscriptsFailing,
		RuleProbes:     6 * time.Hour,
		Retention:      store.Retention{Raw: 14 * 24 * time.Hour, Rollups: 400 * 24 * time.Hour},
		AlertRetention: 90 * 24 * time.Hour,
		Spool:          SpoolConfig{Dir: "/var/lib/mcpwatch/spool", MaxBytes: 256 << 20},
		Defaults:       ServerDefaults{Schedule: "@every 1m", Timeout: 20 * time.Second},
		Servers: []ServerConfig{
			{
				Line: 20, Name: "weather", URL: "https://mcp.example.com/mcp",
				Headers: []store.HeaderRef{
					{Name: "Authorization", FromEnv: "WEATHER_TOKEN", Prefix: "Bearer "},
					{Name: "X-Tenant", FromEnv: "TENANT"},
				},
				Labels:   map[string]string{"team": "platform", "tier": "gold"},
				Schedule: "@every 1m", Timeout: 20 * time.Second, Enabled: true,
			},
			{
				Line: 26, Name: "everything",
				Command: []string{"npx", "-y", "@modelcontextprotocol/server-everything"},
				Env:     []store.EnvVar{{Name: "LOG_LEVEL", Value: "debug"}, {Name: "API_KEY", FromEnv: "EVERYTHING_KEY"}},
				Dir:     "/srv/everything", Schedule: "*/5 * * * *", Timeout: time.Minute, Enabled: true,
			},
			{
				Line: 34, Name: "local-go", Command: []string{"go", "run", "./cmd/server"},
				Schedule: "@every 1m", Timeout: 20 * time.Second, Enabled: false,
			},
		},
	}
	// The alerts section is the alert package's to decode (its own tests read every key):
	// here it is enough that it arrives, validated, with its defaults.
	if a := cfg.Alerts; a == nil || a.DashboardURL != "https://status.example.com" || a.Down.FailureThreshold != 3 ||
		a.Down.SuccessThreshold != alert.DefaultSuccessThreshold || len(a.Channels) != 1 || !slices.Equal(a.DefaultChannels, []string{"ops"}) {
		t.Errorf("alerts section: %+v", cfg.Alerts)
	}
	cfg.Alerts = nil
	if !reflect.DeepEqual(cfg, want) {
		t.Errorf("config:\n got %+v\nwant %+v", cfg, want)
	}
	if got := cfg.MaxTimeout(); got != time.Minute {
		t.Errorf("MaxTimeout = %v, want 1m", got)
	}

	servers := cfg.StoreServers()
	if len(servers) != 3 {
		t.Fatalf("%d store servers, want 3", len(servers))
	}
	for _, s := range servers {
		if err := s.Validate(); err != nil {
			t.Errorf("store rejects %s: %v", s.Name, err)
		}
		if s.Source != store.SourceConfig {
			t.Errorf("%s: source %q, want %q", s.Name, s.Source, store.SourceConfig)
		}
	}
	if s := servers[1]; s.Transport != protocol.TransportStdio || s.Command != "npx" || !reflect.DeepEqual(s.Args, []string{"-y", "@modelcontextprotocol/server-everything"}) {
		t.Errorf("stdio server as stored: %+v", s)
	}
	if s := servers[0]; s.Transport != protocol.TransportHTTP || s.URL != "https://mcp.example.com/mcp" {
		t.Errorf("http server as stored: %+v", s)
	}

	env := map[string]string{"WEATHER_TOKEN": "x"}
	missing := cfg.MissingEnv(func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	if !reflect.DeepEqual(missing, []string{"TENANT", "EVERYTHING_KEY"}) {
		t.Errorf("MissingEnv = %v, want [TENANT EVERYTHING_KEY]", missing)
	}
}

func TestLoadConfigFillsDefaults(t *testing.T) {
	t.Parallel()
	cfg, err := LoadConfig(filepath.Join("testdata", "config", "minimal.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Region != DefaultRegion || cfg.Concurrency != DefaultConcurrency || cfg.Transcripts != TranscriptsChanges ||
		cfg.Retention.Raw != store.DefaultRawRetention || cfg.Retention.Rollups != store.DefaultRollupRetention ||
		cfg.Spool.MaxBytes != DefaultSpoolMaxBytes || cfg.MaxJitter != DefaultMaxJitter ||
		cfg.AlertRetention != DefaultAlertRetention || cfg.Alerts != nil || cfg.RuleProbes != DefaultRuleProbes {
		t.Errorf("defaults not filled: %+v", cfg)
	}
	s := cfg.Servers[0]
	if s.Schedule != DefaultSchedule || s.Timeout != DefaultTimeout || !s.Enabled {
		t.Errorf("server defaults not filled: %+v", s)
	}
}

// Each invalid file must fail with exactly these problems, each naming file:line:column and
// the field (in file order), so that a person can go straight to the mistake.
func TestLoadConfigErrorsNameFileLineAndField(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file string
		want []string // "line:col: field: problem prefix"
		// never must not appear in the message (a secret written where it does not belong).
		never string
	}{
		{"unknown-field.yaml", []string{"4:5: servers[0].timout: unknown key (known: args, calls, command, dir, enabled, env, headers, labels, name, optional, schedule, timeout, transport, url); did you mean timeout?"}, ""},
		{"bad-schedule.yaml", []string{`6:15: servers[0].schedule: not a schedule: "every 5 minutes"`}, ""},
		{"header-literal.yaml", []string{"5:22: servers[0].headers.Authorization: want {from-env: VARIABLE}"}, "abc123secret"},
		{"header-no-env.yaml", []string{
			"5:22: servers[0].headers.Authorization.from-env: missing",
			`6:24: servers[0].headers.X-Key.fromEnv: "not a name" is not an environment variable name`,
		}, ""},
		{"duplicate-name.yaml", []string{`5:11: servers[1].name: "a" is the name of the server at line 2 too`}, ""},
		{"url-and-command.yaml", []string{
			"4:14: servers[0].command: a server has a url (HTTP) or a command (stdio), not both",
			"5:5: servers[1]: missing url or command",
		}, ""},
		{"wrong-types.yaml", []string{
			`1:14: concurrency: want a whole number, got the string "many"`,
			"5:14: servers[0].timeout: want a duration such as 30s, 5m or 30d, got int 30",
			`6:14: servers[0].enabled: want true or false, got the string "yes"`,
			"7:13: servers[0].labels: want a mapping",
		}, ""},
		{"transport-fields.yaml", []string{
			"4:5: servers[0].headers: only an HTTP server (one with a url) takes headers",
			"8:5: servers[1].env: only a stdio server (one with a command) takes env",
			`10:16: servers[1].transport: "stdio" does not match the server`,
		}, ""},
		{"out-of-range.yaml", []string{
			"1:14: concurrency: 0 is out of range [1, 10000]",
			"4:12: retention.rollups: 168h0m0s is shorter than retention.raw",
			"6:13: spool.maxBytes: 10KiB is below the minimum of 1MiB",
			`9:10: servers[0].url: "ftp://127.0.0.1/mcp" is not an http:// or https:// URL`,
			"10:14: servers[0].timeout: 1h0m0s is out of range [100ms, 10m0s]",
			"11:11: servers[1].name: holds a NUL or another control character",
			"12:10: servers[1].url: credentials do not belong in the URL",
		}, "pw@"},
		{"no-servers.yaml", []string{"1:1: servers: missing: list the servers to probe"}, ""},
		// A NUL is said to be a NUL wherever it is: the database and exec would refuse it.
		{"nul-strings.yaml", []string{
			"3:23: servers[0].command[1]: holds a NUL character",
			"4:10: servers[0].dir: holds a NUL character",
			"6:14: servers[0].env.TOKEN: holds a NUL character",
			"7:11: servers[1].name: holds a NUL character",
		}, ""},
		// A NUL is said to be a NUL, not a length; the database would refuse it.
		{"label-control.yaml", []string{
			"5:13: servers[0].labels.team: holds a NUL character",
			"6:13: servers[0].labels.note: holds a NUL or another control character",
			"7:7: servers[0].labels: a key holds a NUL or another control character",
		}, ""},
		// The rules of every server, which the API follows too (store.Server.Validate).
		{"server-rules.yaml", []string{
			`3:11: servers[0].name: "my server" is not a server name: 1-64 letters, digits and . _ - starting with a letter or digit`,
			`5:11: servers[1].name: "team/server" is not a server name`,
			"8:7: servers[1].headers.Mcp-Session-Id: Mcp-Session-Id is set by the prober",
			"9:47: servers[1].headers.Authorization.prefix: holds a NUL or another control character",
			"10:7: servers[1].headers.authorization: authorization is given twice (header names are case-insensitive)",
			`11:24: servers[1].headers.X-Key.fromEnv: "token": name the prober's environment variable in upper case (A-Z, 0-9 and _)`,
			`15:29: servers[2].env.http_proxy.fromEnv: "proxy_url": name the prober's environment variable in upper case`,
			`17:7: servers[2].labels: a key "team name" must be 1-64 letters, digits and . _ / -`,
		}, ""},
		{"rule-probes.yaml", []string{"1:13: ruleProbes: 30s is shorter than a minute: say 0 to run them in every probe"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			path := filepath.Join("testdata", "config", tt.file)
			_, err := LoadConfig(path)
			assertConfigErrors(t, err, path, tt.want)
			if tt.never != "" && strings.Contains(err.Error(), tt.never) {
				t.Errorf("the message repeats %q: %v", tt.never, err)
			}
		})
	}
}

// assertConfigErrors holds err to exactly the problems want ("line:col: field: problem
// prefix" each), in order, each located in file.
func assertConfigErrors(t *testing.T, err error, file string, want []string) {
	t.Helper()
	if err == nil {
		t.Fatal("no error")
	}
	if !errors.Is(err, ErrInvalidConfig) {
		t.Errorf("%v does not wrap ErrInvalidConfig", err)
	}
	var list ConfigErrors
	if !errors.As(err, &list) {
		t.Fatalf("error %T is not ConfigErrors", err)
	}
	if len(list) != len(want) {
		t.Fatalf("%d problems, want %d:\n%v", len(list), len(want), err)
	}
	for i, w := range want {
		if got := list[i].Error(); !strings.HasPrefix(got, file+":"+w) {
			t.Errorf("problem %d:\n got %s\nwant %s:%s...", i, got, file, w)
		}
	}
}

func TestLoadConfigReportsUnreadableFiles(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file, want string
	}{
		{"empty.yaml", "empty.yaml: the file is empty"},
		// The key indented one space too little on line 4; the library itself says "line 1".
		{"syntax.yaml", "syntax.yaml:4:4: not valid YAML: did not find expected '-' indicator"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			_, err := LoadConfig(filepath.Join("testdata", "config", tt.file))
			if err == nil || !errors.Is(err, ErrInvalidConfig) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
	if _, err := LoadConfig(filepath.Join(t.TempDir(), "missing.yaml")); err == nil || errors.Is(err, ErrInvalidConfig) {
		t.Errorf("a missing file: %v, want an error that is not ErrInvalidConfig", err)
	}
}

// The example of docs/monitor.md is a valid configuration.
func TestTheDocumentedExampleIsValid(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile(filepath.Join("..", "docs", "monitor.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), "```yaml\n")
	example, _, closed := strings.Cut(rest, "```")
	if !ok || !closed {
		t.Fatal("docs/monitor.md has no yaml example")
	}
	cfg, err := ParseConfig("docs/monitor.md", []byte(example))
	if err != nil {
		t.Fatalf("the documented example: %v", err)
	}
	if len(cfg.Servers) != 2 || cfg.Region != "home" {
		t.Errorf("the documented example read as %+v", cfg)
	}
}
