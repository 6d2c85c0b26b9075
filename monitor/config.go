package monitor

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/mcpwatch/mcpwatch/alert"
	"github.com/mcpwatch/mcpwatch/internal/calls"
	"github.com/mcpwatch/mcpwatch/internal/yamlstrict"
	"github.com/mcpwatch/mcpwatch/protocol"
	"github.com/mcpwatch/mcpwatch/store"
)

// Defaults of the configuration file.
const (
	DefaultRegion        = "default"
	DefaultConcurrency   = 32
	DefaultSchedule      = "@every 5m"
	DefaultTimeout       = 30 * time.Second
	DefaultShutdownGrace = 30 * time.Second
	DefaultLeaseMargin   = 30 * time.Second
	DefaultSpoolMaxBytes = 1 << 30
	// DefaultAlertRetention keeps the alert history as long as the rollups, so that the
	// dashboard can show the incidents of any span it can chart.
	DefaultAlertRetention = store.DefaultRollupRetention
)

// Bounds of configuration values.
const (
	maxConfigBytes = 32 << 20
	maxConcurrency = 10_000
	minTimeout     = store.MinServerTimeout
	maxTimeout     = store.MaxServerTimeout
	maxNameLen     = 200
	minSpoolBytes  = 1 << 20
)

// Transcript policies: which runs keep their transcript.
const (
	TranscriptsChanges = "changes" // runs that are not up, and the first run after a change of outcome
	TranscriptsAll     = "all"
	TranscriptsFailing = "failing" // runs that are not up
	TranscriptsNone    = "none"
)

// ErrInvalidConfig is wrapped by every ConfigError.
var ErrInvalidConfig = errors.New("invalid configuration")

// Config is the monitor's configuration file: settings and the servers to probe.
type Config struct {
	// Path is the file the configuration was read from.
	Path string
	// ModTime is when that file was last written (zero for a configuration parsed from
	// bytes): the time of its generation (see Generation).
	ModTime       time.Time
	Region        string
	Concurrency   int
	ShutdownGrace time.Duration
	LeaseMargin   time.Duration
	MaxJitter     time.Duration
	Transcripts   string
	// RuleProbes is how often each server's probe also runs the rule probes (rule-probes);
	// 0 runs them in every probe.
	RuleProbes time.Duration
	Retention  store.Retention
	// AlertRetention is how long alert transitions are kept (retention.alerts); those of
	// open incidents and those with a message still to send stay whatever their age.
	AlertRetention time.Duration
	Spool          SpoolConfig
	Defaults       ServerDefaults
	Servers        []ServerConfig
	// Alerts is the alerts: section, validated and with its defaults; nil when the file has
	// none, and then the monitor judges no run and sends nothing.
	Alerts *alert.Config
}

// SpoolConfig says where results wait on disk while the database is away.
type SpoolConfig struct {
	Dir      string // "" for the user cache directory
	MaxBytes int64
}

// ServerDefaults apply to servers that leave a field out.
type ServerDefaults struct {
	Schedule string
	Timeout  time.Duration
}

// ServerConfig is one server of the file. Exactly one of URL and Command is set.
type ServerConfig struct {
	// Line is where the entry starts in the file.
	Line int
	Name string
	URL  string
	// Transport is the transport of a URL server (store.URLTransports; "" for http); stdio
	// servers have a Command instead.
	Transport string
	Headers   []store.HeaderRef
	Command   []string
	Env       []store.EnvVar
	Dir       string
	Schedule  string
	Timeout   time.Duration
	Labels    map[string]string
	Enabled   bool
	// Optional marks a stdio server that this machine may lack the program of: it is then
	// left out (disabled, with a note in the log) instead of probed down.
	Optional bool
	// Calls are the tools the probe may call (calls:), each argument read from the
	// environment kept as a reference to its variable; nil for none, and then the probe
	// calls no tool.
	Calls []calls.Entry
}

// LoadConfig reads and validates a configuration file.
func LoadConfig(path string) (*Config, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxConfigBytes+1))
	if err != nil {
		return nil, fmt.Errorf("config: read %s: %w", path, err)
	}
	if len(data) > maxConfigBytes {
		return nil, &ConfigError{File: path, Problem: fmt.Sprintf("larger than %d MiB", maxConfigBytes>>20)}
	}
	cfg, err := ParseConfig(path, data)
	if err != nil {
		return nil, err
	}
	cfg.ModTime = info.ModTime()
	return cfg, nil
}

// ParseConfig validates a configuration and fills in its defaults. The error, when there is
// one, is ConfigErrors listing every problem found, each with its line and field.
func ParseConfig(path string, data []byte) (*Config, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, ConfigErrors{syntaxError(path, data, err)}
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 || isNull(doc.Content[0]) {
		return nil, ConfigErrors{{File: path, Problem: "the file is empty: it needs at least a servers list"}}
	}
	file := newConfigFile()
	places, problems := yamlstrict.Decode(&doc, &file, "")
	v := &validator{file: path, places: places}
	v.decodeProblems(problems)
	cfg := file.validate(v)
	if err := v.result(); err != nil {
		return nil, err
	}
	cfg.Path = path
	return cfg, nil
}

// StoreServers is the file's servers as the store keeps them.
func (c *Config) StoreServers() []store.Server {
	out := make([]store.Server, 0, len(c.Servers))
	for _, s := range c.Servers {
		v := store.Server{
			Name: s.Name, Source: store.SourceConfig, URL: s.URL, Headers: s.Headers, Env: s.Env,
			Dir: s.Dir, Schedule: s.Schedule, Timeout: s.Timeout, Labels: s.Labels, Enabled: s.Enabled,
		}
		// Entries of strings, numbers and booleans always encode: the file's YAML was read
		// into them.
		v.Calls, _ = calls.Encode(s.Calls)
		if len(s.Command) > 0 {
			v.Transport = protocol.TransportStdio
			v.Command, v.Args = s.Command[0], s.Command[1:]
		} else {
			v.Transport = cmp.Or(s.Transport, protocol.TransportHTTP)
		}
		out = append(out, v)
	}
	return out
}

// MissingEnv lists the environment variables the servers read (header values, from-env
// entries and the arguments of calls) that lookup does not find: probes of those servers
// will fail until they are set (a call's, be sent untested).
func (c *Config) MissingEnv(lookup func(string) (string, bool)) []string {
	var missing []string
	seen := map[string]bool{}
	check := func(name string) {
		if _, ok := lookup(name); !ok && !seen[name] {
			seen[name] = true
			missing = append(missing, name)
		}
	}
	for _, s := range c.Servers {
		for _, h := range s.Headers {
			check(h.FromEnv)
		}
		for _, e := range s.Env {
			if e.FromEnv != "" {
				check(e.FromEnv)
			}
		}
		for _, c := range s.Calls {
			for _, name := range c.Env() {
				check(name)
			}
		}
	}
	return missing
}

// SkipMissingCommands disables the optional stdio servers whose program lookPath does not
// find (exec.LookPath: a name on PATH, or a path), and returns a note for each.
func (c *Config) SkipMissingCommands(lookPath func(string) (string, error)) []string {
	var notes []string
	for i, s := range c.Servers {
		if !s.Optional || !s.Enabled || len(s.Command) == 0 {
			continue
		}
		if _, err := lookPath(s.Command[0]); err != nil {
			c.Servers[i].Enabled = false
			notes = append(notes, fmt.Sprintf("server %s skipped: its program %s is not installed here (%v); install it and send SIGHUP to probe it", s.Name, s.Command[0], err))
		}
	}
	return notes
}

// MaxTimeout is the longest probe timeout of the file's servers.
func (c *Config) MaxTimeout() time.Duration {
	longest := c.Defaults.Timeout
	for _, s := range c.Servers {
		longest = max(longest, s.Timeout)
	}
	return longest
}

// checkName accepts the name of a region: printable, not too long. (A server's name follows
// store.CheckServerName.)
func checkName(s string) error {
	if strings.TrimSpace(s) == "" {
		return errors.New("empty")
	}
	if len(s) > maxNameLen {
		return fmt.Errorf("longer than %d bytes", maxNameLen)
	}
	if store.HasControl(s) {
		return errors.New("holds a NUL or another control character")
	}
	return nil
}

// CheckServer validates a server registered outside the configuration file (by `prober
// servers add`, say) by the rules every server follows (store.Server.Validate) and the
// schedule grammar the monitor reads; on top of them, only an HTTP server, since a command from
// anywhere but the file is never run.
func CheckServer(s store.Server) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: server %q: %s", ErrInvalidConfig, s.Name, fmt.Sprintf(format, args...))
	}
	if s.Transport != protocol.TransportHTTP || s.Command != "" || len(s.Args) > 0 || len(s.Env) > 0 || s.Dir != "" {
		return bad("only HTTP servers are registered this way; stdio servers come from the configuration file")
	}
	if len(s.Calls) > 0 {
		return bad("tool calls come from the configuration file only (calls: under the server): a call may change or charge something, so only the operator may have the monitor make one")
	}
	if _, err := ParseSchedule(s.Schedule, 0); err != nil {
		return bad("schedule: %v", err)
	}
	if err := s.Validate(); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	}
	return nil
}
