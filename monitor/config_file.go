package monitor

import (
	"go.yaml.in/yaml/v3"

	"github.com/mcpwatch/mcpwatch/internal/calls"
	"github.com/mcpwatch/mcpwatch/internal/units"
	"github.com/mcpwatch/mcpwatch/internal/yamlstrict"
	"github.com/mcpwatch/mcpwatch/store"
)

// The configuration file as written, decoded by internal/yamlstrict and then validated into
// a Config by the validate methods of config_validate.go. Keys are kebab-case, as every key
// of the alerts section is; the camelCase spellings the file took first are read too (the
// `alias` tags), so that no file written before is refused.

// configFile is the whole file. The settings start as their defaults (newConfigFile); a key
// given replaces one.
type configFile struct {
	Region        string         `yaml:"region"`
	Concurrency   int            `yaml:"concurrency"`
	ShutdownGrace units.Duration `yaml:"shutdown-grace" alias:"shutdownGrace"`
	LeaseMargin   units.Duration `yaml:"lease-margin" alias:"leaseMargin"`
	MaxJitter     units.Duration `yaml:"max-jitter" alias:"maxJitter"`
	Transcripts   string         `yaml:"transcripts"`
	RuleProbes    units.Duration `yaml:"rule-probes" alias:"ruleProbes"`
	Retention     retentionFile  `yaml:"retention"`
	Spool         spoolFile      `yaml:"spool"`
	Defaults      defaultsFile   `yaml:"defaults"`
	Servers       []serverFile   `yaml:"servers"`
	// Alerts is the alert package's to decode (config_alerts.go).
	Alerts *yaml.Node `yaml:"alerts"`
}

type retentionFile struct {
	Raw     units.Duration `yaml:"raw"`
	Rollups units.Duration `yaml:"rollups"`
	Alerts  units.Duration `yaml:"alerts"`
}

type spoolFile struct {
	Dir      string     `yaml:"dir"`
	MaxBytes units.Size `yaml:"max-bytes" alias:"maxBytes"`
}

type defaultsFile struct {
	Schedule string         `yaml:"schedule"`
	Timeout  units.Duration `yaml:"timeout"`
}

// newConfigFile is a file that says nothing: every setting its default.
func newConfigFile() configFile {
	return configFile{
		Region:        DefaultRegion,
		Concurrency:   DefaultConcurrency,
		ShutdownGrace: units.Duration(DefaultShutdownGrace),
		LeaseMargin:   units.Duration(DefaultLeaseMargin),
		MaxJitter:     units.Duration(DefaultMaxJitter),
		Transcripts:   TranscriptsChanges,
		RuleProbes:    units.Duration(DefaultRuleProbes),
		Retention: retentionFile{
			Raw:     units.Duration(store.DefaultRawRetention),
			Rollups: units.Duration(store.DefaultRollupRetention),
			Alerts:  units.Duration(DefaultAlertRetention),
		},
		Spool:    spoolFile{MaxBytes: DefaultSpoolMaxBytes},
		Defaults: defaultsFile{Schedule: DefaultSchedule, Timeout: units.Duration(DefaultTimeout)},
	}
}

// serverFile is one entry of servers. Its fields are pointers where leaving a key out means
// something else than any value it can be given (the defaults, or "missing").
type serverFile struct {
	Name      *string                        `yaml:"name"`
	URL       *string                        `yaml:"url"`
	Transport *string                        `yaml:"transport"`
	Headers   yamlstrict.Ordered[headerFile] `yaml:"headers"`
	Command   *commandLine                   `yaml:"command"`
	Args      []string                       `yaml:"args"`
	Env       yamlstrict.Ordered[envFile]    `yaml:"env"`
	Dir       *string                        `yaml:"dir"`
	Schedule  *string                        `yaml:"schedule"`
	Timeout   *units.Duration                `yaml:"timeout"`
	Labels    map[string]string              `yaml:"labels"`
	Enabled   *bool                          `yaml:"enabled"`
	Optional  *bool                          `yaml:"optional"`
	// Calls are read by internal/calls, the calls file's own decoder (config_server.go).
	Calls []calls.Call `yaml:"calls"`
}

// headerFile is `Name: {from-env: VARIABLE, prefix: "Bearer "}`. A header value is never
// written in the file: it is read from the environment at probe time.
type headerFile struct {
	FromEnv *string `yaml:"from-env" alias:"fromEnv"`
	Prefix  string  `yaml:"prefix"`
}

// MismatchYAML does not repeat the value: written where the variable's name belongs, it is
// most likely the secret itself.
func (*headerFile) MismatchYAML(string) string {
	return `want {from-env: VARIABLE} or {from-env: VARIABLE, prefix: "Bearer "}: header values are read from the environment, never written in the file`
}

// envFile is an environment variable of a stdio server: `NAME: value` or
// `NAME: {from-env: VARIABLE}`.
type envFile struct {
	Value   *string `yaml:"-"`
	FromEnv *string `yaml:"from-env" alias:"fromEnv"`
}

func (e *envFile) SetScalar(value string) { e.Value = &value }

func (*envFile) MismatchYAML(got string) string {
	return "want a value or {from-env: VARIABLE}, got " + got
}

// commandLine is a stdio server's command: a list, or a program name alone.
type commandLine []string

func (c *commandLine) SetScalar(value string) { *c = commandLine{value} }

// The file's types decode themselves in the ways yamlstrict lets them.
var (
	_ yamlstrict.ScalarSetter = (*envFile)(nil)
	_ yamlstrict.ScalarSetter = (*commandLine)(nil)
	_ yamlstrict.Mismatcher   = (*headerFile)(nil)
	_ yamlstrict.Mismatcher   = (*envFile)(nil)
)
