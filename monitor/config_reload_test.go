package monitor

import (
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/alert"
)

// A reload applies the servers, their defaults and the retention; every other setting was
// built into the running parts, and a change of one must be reported as waiting for the next
// start.
func TestSameSettingsTellsWhatWaitsForTheNextStart(t *testing.T) {
	t.Parallel()
	base := func() *Config {
		return &Config{
			Path: "a.yaml", Region: "eu", Concurrency: 4, ShutdownGrace: 30 * time.Second, LeaseMargin: time.Minute,
			MaxJitter: 10 * time.Second, Transcripts: TranscriptsFailing, RuleProbes: time.Hour,
			Spool: SpoolConfig{Dir: "/var/spool", MaxBytes: 1 << 20}, AlertRetention: time.Hour,
			Defaults: ServerDefaults{Schedule: "@every 1m", Timeout: 10 * time.Second},
			Servers:  []ServerConfig{{Name: "one", URL: "http://127.0.0.1:1/mcp"}},
		}
	}
	tests := []struct {
		name   string
		change func(*Config)
		same   bool
	}{
		{"nothing", func(*Config) {}, true},
		{"the servers", func(c *Config) { c.Servers = append(c.Servers, ServerConfig{Name: "two"}) }, true},
		{"the defaults", func(c *Config) { c.Defaults.Timeout = time.Second }, true},
		{"the retention", func(c *Config) { c.Retention.Raw = time.Hour; c.AlertRetention = 2 * time.Hour }, true},
		{"the file's path", func(c *Config) { c.Path = "b.yaml" }, true},
		{"the region", func(c *Config) { c.Region = "us" }, false},
		{"the concurrency", func(c *Config) { c.Concurrency = 5 }, false},
		{"the spool directory", func(c *Config) { c.Spool.Dir = "/tmp" }, false},
		{"the spool's size", func(c *Config) { c.Spool.MaxBytes = 2 << 20 }, false},
		{"the shutdown grace", func(c *Config) { c.ShutdownGrace = time.Second }, false},
		{"the lease margin", func(c *Config) { c.LeaseMargin = time.Second }, false},
		{"the jitter", func(c *Config) { c.MaxJitter = 0 }, false},
		{"the transcripts kept", func(c *Config) { c.Transcripts = TranscriptsAll }, false},
		{"the rule probes' interval", func(c *Config) { c.RuleProbes = 0 }, false},
		{"an alerts section added", func(c *Config) { c.Alerts = &alert.Config{} }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			running, next := base(), base()
			tt.change(next)
			if got := next.SameSettings(running); got != tt.same {
				t.Errorf("SameSettings = %v, want %v", got, tt.same)
			}
		})
	}
}
