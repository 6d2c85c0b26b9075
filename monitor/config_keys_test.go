package monitor

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// The canonical kebab-case keys and the camelCase ones the file took first read the same:
// full.yaml is written in the old spelling, full-kebab.yaml in the new.
func TestBothSpellingsOfTheFileReadTheSame(t *testing.T) {
	t.Parallel()
	old, err := LoadConfig(filepath.Join("testdata", "config", "full.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	canonical, err := LoadConfig(filepath.Join("testdata", "config", "full-kebab.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	// Where each was read from and when it was written are the files', not their spelling's.
	old.Path, canonical.Path = "", ""
	old.ModTime, canonical.ModTime = time.Time{}, time.Time{}
	if !reflect.DeepEqual(old, canonical) {
		t.Errorf("the spellings differ:\n old %+v\n new %+v", old, canonical)
	}
}

// Each published camelCase spelling is read as its kebab-case key.
func TestEveryAliasIsRead(t *testing.T) {
	t.Parallel()
	const server = "servers:\n  - name: a\n    url: http://127.0.0.1:9/mcp\n"
	const stdio = "servers:\n  - name: a\n    command: ./server\n"
	tests := []struct {
		alias, canonical string
		get              func(*Config) any
	}{
		{"shutdownGrace: 7s\n" + server, "shutdown-grace: 7s\n" + server, func(c *Config) any { return c.ShutdownGrace }},
		{"leaseMargin: 7s\n" + server, "lease-margin: 7s\n" + server, func(c *Config) any { return c.LeaseMargin }},
		{"maxJitter: 7s\n" + server, "max-jitter: 7s\n" + server, func(c *Config) any { return c.MaxJitter }},
		{"ruleProbes: 7h\n" + server, "rule-probes: 7h\n" + server, func(c *Config) any { return c.RuleProbes }},
		{"spool: {maxBytes: 7MiB}\n" + server, "spool: {max-bytes: 7MiB}\n" + server, func(c *Config) any { return c.Spool.MaxBytes }},
		{server + "    headers: {X-Key: {fromEnv: KEY}}\n", server + "    headers: {X-Key: {from-env: KEY}}\n", func(c *Config) any { return c.Servers[0].Headers }},
		{stdio + "    env: {TOKEN: {fromEnv: KEY}}\n", stdio + "    env: {TOKEN: {from-env: KEY}}\n", func(c *Config) any { return c.Servers[0].Env }},
		{server + "    calls: [{tool: t, arguments: {k: {fromEnv: KEY}}, invalidArguments: true, expect: {isError: true, textContains: x}}]\n",
			server + "    calls: [{tool: t, arguments: {k: {from-env: KEY}}, invalid-arguments: true, expect: {is-error: true, text-contains: x}}]\n",
			func(c *Config) any { return c.Servers[0].Calls }},
	}
	for _, tt := range tests {
		t.Run(tt.alias, func(t *testing.T) {
			t.Parallel()
			a, err := ParseConfig("a.yaml", []byte(tt.alias))
			if err != nil {
				t.Fatal(err)
			}
			c, err := ParseConfig("c.yaml", []byte(tt.canonical))
			if err != nil {
				t.Fatal(err)
			}
			if got, want := tt.get(a), tt.get(c); !reflect.DeepEqual(got, want) || reflect.ValueOf(got).IsZero() {
				t.Errorf("the alias reads %v, the canonical key %v", got, want)
			}
		})
	}
}

// A key given in both spellings, a value of the wrong type deep in a server, and the grammar
// of durations and sizes in the file, each named by line, column and field.
func TestKeyProblemsNameTheirPlace(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		yaml string
		want []string
	}{
		{"both spellings of a setting", "shutdownGrace: 5s\nshutdown-grace: 6s\nservers: []\n", []string{
			"2:1: shutdown-grace: given twice: shutdownGrace (line 1) and shutdown-grace are two spellings of shutdown-grace; keep one",
		}},
		{"both spellings in a header", `servers:
  - name: a
    url: http://127.0.0.1:9/mcp
    headers:
      X-Key: {from-env: A, fromEnv: B}
`, []string{"5:28: servers[0].headers.X-Key.fromEnv: given twice: from-env (line 5) and fromEnv are two spellings of from-env; keep one"}},
		{"the same spelling twice", "region: a\nregion: b\nservers: []\n", []string{"2:1: region: given twice (first at line 1)"}},
		{"a misspelt alias", "servers: []\nspool:\n  maxbytes: 2MiB\n", []string{
			"3:3: spool.maxbytes: unknown key (known: dir, max-bytes); did you mean max-bytes?",
		}},
		{"a wrong type deep in a server", `servers:
  - name: a
    url: http://127.0.0.1:9/mcp
  - name: b
    url: http://127.0.0.1:9/mcp
    headers:
      Authorization: {fromEnv: TOKEN, prefix: [Bearer]}
`, []string{"7:47: servers[1].headers.Authorization.prefix: want a string, got a list"}},
		{"a wrong type in an environment entry", "servers:\n  - name: a\n    command: [x]\n    env: {A: [1]}\n", []string{
			"4:14: servers[0].env.A: want a value or {from-env: VARIABLE}, got a list",
		}},
		{"a duration in the grammar of no one", "servers: []\nretention: {raw: 30 days}\n", []string{
			`2:18: retention.raw: want a duration such as 30s, 5m or 30d, got the string "30 days"`,
		}},
		{"a size in the grammar of no one", "servers: []\nspool: {max-bytes: 2 pages}\n", []string{
			`2:20: spool.max-bytes: want a size such as 512MiB, 16M or 1GiB, got the string "2 pages"`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := ParseConfig("mcpwatch.yaml", []byte(tt.yaml))
			assertConfigErrors(t, err, "mcpwatch.yaml", tt.want)
		})
	}
}

// What one reader of durations or sizes accepted, every reader accepts: 16M (a flag's short
// form) as the spool's bound, and days in the alerts section.
func TestTheFileReadsTheWholeGrammar(t *testing.T) {
	t.Parallel()
	cfg, err := ParseConfig("mcpwatch.yaml", []byte(`spool: {max-bytes: 16M}
alerts:
  reminder-interval: 1d
  down: {region-expiry: 1d12h}
servers: []
`))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Spool.MaxBytes != 16<<20 || cfg.Alerts.ReminderInterval != 24*time.Hour || cfg.Alerts.Down.RegionExpiry != 36*time.Hour {
		t.Errorf("read %d, %v, %v", cfg.Spool.MaxBytes, cfg.Alerts.ReminderInterval, cfg.Alerts.Down.RegionExpiry)
	}
}

// The parser never panics, and what it accepts is a configuration the monitor can run.
func FuzzParseConfig(f *testing.F) {
	for _, name := range []string{"full.yaml", "full-kebab.yaml", "minimal.yaml", "server-rules.yaml", "wrong-types.yaml", "transport-fields.yaml"} {
		data, err := os.ReadFile(filepath.Join("testdata", "config", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("servers: &s []\nalerts: *s\n"))
	f.Add([]byte("servers:\n  - &a {name: a, url: 'http://127.0.0.1/'}\n  - *a\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := ParseConfig("f.yaml", data)
		if err != nil {
			var list ConfigErrors
			if !errors.As(err, &list) || len(list) == 0 {
				t.Fatalf("error %T %v is not ConfigErrors", err, err)
			}
			return
		}
		for _, s := range cfg.StoreServers() {
			if err := s.Validate(); err != nil {
				t.Errorf("accepted a server the store refuses: %v", err)
			}
		}
		if cfg.Concurrency < 1 || cfg.Spool.MaxBytes < minSpoolBytes || cfg.Retention.Rollups < cfg.Retention.Raw {
			t.Errorf("accepted settings out of range: %+v", cfg)
		}
	})
}
