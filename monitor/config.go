package monitor

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/mcpwatch/mcpwatch/alert"
	"github.com/mcpwatch/mcpwatch/internal/yamlsyntax"
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
	TranscriptsAll     = "all"
	TranscriptsFailing = "failing" // runs that are not up
	TranscriptsNone    = "none"
)

// ErrInvalidConfig is wrapped by every ConfigError.
var ErrInvalidConfig = errors.New("invalid configuration")

// Config is the monitor's configuration file: settings and the servers to probe.
type Config struct {
	// Path is the file the configuration was read from.
	Path          string
	Region        string
	Concurrency   int
	ShutdownGrace time.Duration
	LeaseMargin   time.Duration
	MaxJitter     time.Duration
	Transcripts   string
	// RuleProbes is how often each server's probe also runs the rule probes (ruleProbes);
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
	Line     int
	Name     string
	URL      string
	Headers  []store.HeaderRef
	Command  []string
	Env      []store.EnvVar
	Dir      string
	Schedule string
	Timeout  time.Duration
	Labels   map[string]string
	Enabled  bool
}

// ConfigError is one problem of a configuration file, located by line and field.
type ConfigError struct {
	File   string
	Line   int
	Column int
	// Field is the path of the field, such as servers[2].headers.Authorization.fromEnv.
	Field   string
	Problem string
}

func (e *ConfigError) Error() string {
	loc := e.File
	switch {
	case e.Line > 0 && e.Column > 0:
		loc = fmt.Sprintf("%s:%d:%d", e.File, e.Line, e.Column)
	case e.Line > 0:
		loc = fmt.Sprintf("%s:%d", e.File, e.Line)
	}
	if e.Field == "" {
		return fmt.Sprintf("%s: %s", loc, e.Problem)
	}
	return fmt.Sprintf("%s: %s: %s", loc, e.Field, e.Problem)
}

func (e *ConfigError) Unwrap() error { return ErrInvalidConfig }

// ConfigErrors are all the problems of a file, in file order.
type ConfigErrors []*ConfigError

func (es ConfigErrors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

func (es ConfigErrors) Unwrap() []error {
	out := make([]error, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}

// LoadConfig reads and validates a configuration file.
func LoadConfig(path string) (*Config, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxConfigBytes+1))
	if err != nil {
		return nil, fmt.Errorf("config: read %s: %w", path, err)
	}
	if len(data) > maxConfigBytes {
		return nil, &ConfigError{File: path, Problem: fmt.Sprintf("larger than %d MiB", maxConfigBytes>>20)}
	}
	return ParseConfig(path, data)
}

// ParseConfig validates a configuration and fills in its defaults. The error, when there is
// one, is ConfigErrors listing every problem found, each with its line and field.
func ParseConfig(path string, data []byte) (*Config, error) {
	d := &configDecoder{file: path}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, ConfigErrors{d.syntaxError(data, err)}
	}
	cfg := d.decode(&doc)
	if err := d.problems(); err != nil {
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
		if len(s.Command) > 0 {
			v.Transport = protocol.TransportStdio
			v.Command, v.Args = s.Command[0], s.Command[1:]
		} else {
			v.Transport = protocol.TransportHTTP
		}
		out = append(out, v)
	}
	return out
}

// MissingEnv lists the environment variables the servers read (header values and fromEnv
// entries) that lookup does not find: probes of those servers will fail until they are set.
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
	}
	return missing
}

// MaxTimeout is the longest probe timeout of the file's servers.
func (c *Config) MaxTimeout() time.Duration {
	longest := c.Defaults.Timeout
	for _, s := range c.Servers {
		longest = max(longest, s.Timeout)
	}
	return longest
}

// configDecoder walks the YAML node tree, so that each problem is reported with the line of
// the node it concerns, and collects every problem rather than stopping at the first.
type configDecoder struct {
	file string
	errs ConfigErrors
}

// problems is the problems found, in file order; nil when there are none.
func (d *configDecoder) problems() error {
	if len(d.errs) == 0 {
		return nil
	}
	slices.SortStableFunc(d.errs, func(a, b *ConfigError) int { return cmp.Or(a.Line-b.Line, a.Column-b.Column) })
	return d.errs
}

func (d *configDecoder) fail(n *yaml.Node, field, format string, args ...any) {
	e := &ConfigError{File: d.file, Field: field, Problem: fmt.Sprintf(format, args...)}
	if n != nil {
		e.Line, e.Column = n.Line, n.Column
	}
	d.errs = append(d.errs, e)
}

// syntaxError places a YAML syntax error at the line and column where the parser stopped:
// the library's own line is where the construct it could not finish began (line 1 for a key
// indented wrongly further down).
func (d *configDecoder) syntaxError(data []byte, err error) *ConfigError {
	at := yamlsyntax.Locate(data, err)
	return &ConfigError{File: d.file, Line: at.Line, Column: at.Column, Problem: "not valid YAML: " + at.Problem}
}

// resolve follows an alias (*name) to the node it names.
func resolve(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

func isNull(n *yaml.Node) bool {
	n = resolve(n)
	return n == nil || (n.Kind == yaml.ScalarNode && n.Tag == "!!null")
}

// mapping calls fn for each key of a mapping node, reporting keys that are not strings or
// appear twice.
func (d *configDecoder) mapping(n *yaml.Node, field string, fn func(key string, k, v *yaml.Node)) bool {
	n = resolve(n)
	if n.Kind != yaml.MappingNode {
		d.fail(n, field, "want a mapping (key: value lines), got %s", describe(n))
		return false
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode || k.Tag == "!!null" {
			d.fail(k, field, "keys must be names")
			continue
		}
		if seen[k.Value] {
			d.fail(k, join(field, k.Value), "given twice")
			continue
		}
		seen[k.Value] = true
		fn(k.Value, k, v)
	}
	return true
}

func join(field, key string) string {
	if field == "" {
		return key
	}
	return field + "." + key
}

func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.DocumentNode:
		return "a document"
	}
	switch n.Tag {
	case "!!null":
		return "nothing"
	case "!!str":
		return fmt.Sprintf("the string %q", n.Value)
	}
	return fmt.Sprintf("%s %s", strings.TrimPrefix(n.Tag, "!!"), n.Value)
}

func (d *configDecoder) str(n *yaml.Node, field string) (string, bool) {
	n = resolve(n)
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		d.fail(n, field, "want a string, got %s", describe(n))
		return "", false
	}
	if strings.IndexByte(n.Value, 0) >= 0 {
		// Only a "\0" escape makes one. No setting can hold it: neither the database's text
		// nor a command's arguments and environment.
		d.fail(n, field, "holds a NUL character")
		return "", false
	}
	return n.Value, true
}

func (d *configDecoder) integer(n *yaml.Node, field string, lo, hi int) (int, bool) {
	n = resolve(n)
	var v int
	if n.Kind != yaml.ScalarNode || n.Tag != "!!int" || n.Decode(&v) != nil {
		d.fail(n, field, "want a whole number, got %s", describe(n))
		return 0, false
	}
	if v < lo || v > hi {
		d.fail(n, field, "%d is out of range [%d, %d]", v, lo, hi)
		return 0, false
	}
	return v, true
}

func (d *configDecoder) boolean(n *yaml.Node, field string) (bool, bool) {
	n = resolve(n)
	var v bool
	if n.Kind != yaml.ScalarNode || n.Tag != "!!bool" || n.Decode(&v) != nil {
		d.fail(n, field, "want true or false, got %s", describe(n))
		return false, false
	}
	return v, true
}

func (d *configDecoder) duration(n *yaml.Node, field string, lo, hi time.Duration) (time.Duration, bool) {
	n = resolve(n)
	if n.Kind != yaml.ScalarNode || n.Tag != "!!str" {
		d.fail(n, field, "want a duration such as 30s, 5m or 30d, got %s", describe(n))
		return 0, false
	}
	v, err := ParseDuration(n.Value)
	if err != nil {
		d.fail(n, field, "%v", err)
		return 0, false
	}
	if v < lo || v > hi {
		d.fail(n, field, "%v is out of range [%v, %v]", v, lo, hi)
		return 0, false
	}
	return v, true
}

func (d *configDecoder) stringList(n *yaml.Node, field string) ([]string, bool) {
	n = resolve(n)
	if n.Kind != yaml.SequenceNode {
		d.fail(n, field, "want a list of strings, got %s", describe(n))
		return nil, false
	}
	out := make([]string, 0, len(n.Content))
	ok := true
	for i, item := range n.Content {
		s, good := d.str(item, fmt.Sprintf("%s[%d]", field, i))
		ok = ok && good
		out = append(out, s)
	}
	return out, ok
}

func (d *configDecoder) decode(doc *yaml.Node) *Config {
	cfg := &Config{
		Region:         DefaultRegion,
		Concurrency:    DefaultConcurrency,
		ShutdownGrace:  DefaultShutdownGrace,
		LeaseMargin:    DefaultLeaseMargin,
		MaxJitter:      DefaultMaxJitter,
		Transcripts:    TranscriptsAll,
		RuleProbes:     DefaultRuleProbes,
		Retention:      store.Retention{Raw: store.DefaultRawRetention, Rollups: store.DefaultRollupRetention},
		AlertRetention: DefaultAlertRetention,
		Spool:          SpoolConfig{MaxBytes: DefaultSpoolMaxBytes},
		Defaults:       ServerDefaults{Schedule: DefaultSchedule, Timeout: DefaultTimeout},
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 || isNull(doc.Content[0]) {
		d.fail(nil, "", "the file is empty: it needs at least a servers list")
		return cfg
	}
	var servers, rollups, alerts *yaml.Node
	day := 24 * time.Hour
	d.mapping(doc.Content[0], "", func(key string, k, v *yaml.Node) {
		switch key {
		case "region":
			if s, ok := d.str(v, key); ok {
				if err := checkName(s); err != nil {
					d.fail(v, key, "%v", err)
				} else {
					cfg.Region = s
				}
			}
		case "concurrency":
			if n, ok := d.integer(v, key, 1, maxConcurrency); ok {
				cfg.Concurrency = n
			}
		case "shutdownGrace":
			if t, ok := d.duration(v, key, 0, time.Hour); ok {
				cfg.ShutdownGrace = t
			}
		case "leaseMargin":
			if t, ok := d.duration(v, key, time.Second, time.Hour); ok {
				cfg.LeaseMargin = t
			}
		case "maxJitter":
			if t, ok := d.duration(v, key, 0, day); ok {
				cfg.MaxJitter = t
			}
		case "transcripts":
			if s, ok := d.str(v, key); ok {
				switch s {
				case TranscriptsAll, TranscriptsFailing, TranscriptsNone:
					cfg.Transcripts = s
				default:
					d.fail(v, key, "%q is not one of all, failing, none", s)
				}
			}
		case "ruleProbes":
			if t, ok := d.duration(v, key, 0, 7*day); ok {
				if t > 0 && t < time.Minute {
					d.fail(v, key, "%v is shorter than a minute: say 0 to run them in every probe", t)
				} else {
					cfg.RuleProbes = t
				}
			}
		case "retention":
			d.mapping(v, key, func(sub string, k, v *yaml.Node) {
				field := join(key, sub)
				switch sub {
				case "raw":
					if t, ok := d.duration(v, field, day, 10*365*day); ok {
						cfg.Retention.Raw = t
					}
				case "rollups":
					rollups = v
					if t, ok := d.duration(v, field, day, 10*365*day); ok {
						cfg.Retention.Rollups = t
					}
				case "alerts":
					if t, ok := d.duration(v, field, day, 10*365*day); ok {
						cfg.AlertRetention = t
					}
				default:
					d.fail(k, field, "unknown field (known: raw, rollups, alerts)")
				}
			})
		case "spool":
			d.mapping(v, key, func(sub string, k, v *yaml.Node) {
				field := join(key, sub)
				switch sub {
				case "dir":
					if s, ok := d.str(v, field); ok {
						cfg.Spool.Dir = s
					}
				case "maxBytes":
					if s, ok := d.str(v, field); ok {
						n, err := ParseSize(s)
						switch {
						case err != nil:
							d.fail(v, field, "%q is %v", s, err)
						case n < minSpoolBytes:
							d.fail(v, field, "%s is below the minimum of 1MiB", s)
						default:
							cfg.Spool.MaxBytes = n
						}
					}
				default:
					d.fail(k, field, "unknown field (known: dir, maxBytes)")
				}
			})
		case "defaults":
			d.mapping(v, key, func(sub string, k, v *yaml.Node) {
				field := join(key, sub)
				switch sub {
				case "schedule":
					if s, ok := d.schedule(v, field); ok {
						cfg.Defaults.Schedule = s
					}
				case "timeout":
					if t, ok := d.duration(v, field, minTimeout, maxTimeout); ok {
						cfg.Defaults.Timeout = t
					}
				default:
					d.fail(k, field, "unknown field (known: schedule, timeout)")
				}
			})
		case "servers":
			servers = v
		case alert.SectionName:
			alerts = v
		default:
			d.fail(k, key, "unknown field (known: region, concurrency, shutdownGrace, leaseMargin, maxJitter, transcripts, ruleProbes, retention, spool, defaults, servers, alerts)")
		}
	})
	if alerts != nil {
		cfg.Alerts = d.alerts(alerts)
	}
	if cfg.Retention.Rollups < cfg.Retention.Raw {
		d.fail(rollups, "retention.rollups", "%v is shorter than retention.raw (%v)", cfg.Retention.Rollups, cfg.Retention.Raw)
	}
	if servers == nil || isNull(servers) {
		d.fail(resolve(doc.Content[0]), "servers", "missing: list the servers to probe")
		return cfg
	}
	servers = resolve(servers)
	if servers.Kind != yaml.SequenceNode {
		d.fail(servers, "servers", "want a list of servers, got %s", describe(servers))
		return cfg
	}
	names := map[string]int{}
	for i, n := range servers.Content {
		field := fmt.Sprintf("servers[%d]", i)
		s, nameNode, ok := d.server(n, field, cfg.Defaults)
		if !ok {
			continue
		}
		if line, dup := names[s.Name]; dup {
			d.fail(nameNode, field+".name", "%q is the name of the server at line %d too", s.Name, line)
			continue
		}
		names[s.Name] = nameNode.Line
		cfg.Servers = append(cfg.Servers, s)
	}
	return cfg
}

func (d *configDecoder) schedule(n *yaml.Node, field string) (string, bool) {
	s, ok := d.str(n, field)
	if !ok {
		return "", false
	}
	if _, err := ParseSchedule(s, 0); err != nil {
		d.fail(n, field, "%v", err)
		return "", false
	}
	return s, true
}

// server decodes one entry of servers; ok is false when it has a problem.
func (d *configDecoder) server(n *yaml.Node, field string, defaults ServerDefaults) (s ServerConfig, nameNode *yaml.Node, ok bool) {
	n = resolve(n)
	s = ServerConfig{Line: n.Line, Schedule: defaults.Schedule, Timeout: defaults.Timeout, Enabled: true}
	before := len(d.errs)
	var transport *yaml.Node
	var args []string
	var argsNode, commandNode, urlNode *yaml.Node
	var httpOnly, stdioOnly []*yaml.Node // fields that belong to one transport
	if !d.mapping(n, field, func(key string, k, v *yaml.Node) {
		f := join(field, key)
		switch key {
		case "name":
			nameNode = v
			if name, ok := d.str(v, f); ok {
				if err := store.CheckServerName(name); err != nil {
					d.fail(v, f, "%v", err)
				}
				s.Name = name
			}
		case "url":
			urlNode = v
			if u, ok := d.str(v, f); ok {
				if err := store.CheckServerURL(u); err != nil {
					d.fail(v, f, "%v", err)
				}
				s.URL = u
			}
		case "transport":
			transport = v
		case "headers":
			httpOnly = append(httpOnly, k)
			s.Headers = d.headers(v, f)
		case "command":
			commandNode = v
			if vv := resolve(v); vv.Kind == yaml.SequenceNode {
				s.Command, _ = d.stringList(vv, f)
			} else if c, ok := d.str(v, f); ok {
				s.Command = []string{c}
			}
			if len(s.Command) == 0 || s.Command[0] == "" {
				d.fail(v, f, "the command is empty")
			}
		case "args":
			argsNode = k
			args, _ = d.stringList(v, f)
			stdioOnly = append(stdioOnly, k)
		case "env":
			stdioOnly = append(stdioOnly, k)
			s.Env = d.env(v, f)
		case "dir":
			stdioOnly = append(stdioOnly, k)
			s.Dir, _ = d.str(v, f)
		case "schedule":
			if sch, ok := d.schedule(v, f); ok {
				s.Schedule = sch
			}
		case "timeout":
			if t, ok := d.duration(v, f, minTimeout, maxTimeout); ok {
				s.Timeout = t
			}
		case "labels":
			s.Labels = d.labels(v, f)
		case "enabled":
			s.Enabled, _ = d.boolean(v, f)
		default:
			d.fail(k, f, "unknown field (known: name, url, headers, command, args, env, dir, transport, schedule, timeout, labels, enabled)")
		}
	}) {
		return s, nil, false
	}
	if nameNode == nil {
		d.fail(n, field+".name", "missing: every server needs a unique name")
	}
	switch {
	case urlNode != nil && commandNode != nil:
		d.fail(commandNode, field+".command", "a server has a url (HTTP) or a command (stdio), not both")
	case urlNode == nil && commandNode == nil:
		d.fail(n, field, "missing url or command: give the URL of an HTTP server or the command of a stdio server")
	case urlNode != nil:
		for _, k := range stdioOnly {
			d.fail(k, join(field, k.Value), "only a stdio server (one with a command) takes %s", k.Value)
		}
	case commandNode != nil:
		for _, k := range httpOnly {
			d.fail(k, join(field, k.Value), "only an HTTP server (one with a url) takes %s", k.Value)
		}
	}
	if argsNode != nil && commandNode == nil && urlNode == nil {
		d.fail(argsNode, field+".args", "args without a command")
	}
	s.Command = append(s.Command, args...)
	if transport != nil {
		if t, ok := d.str(transport, field+".transport"); ok {
			want := protocol.TransportHTTP
			if commandNode != nil {
				want = protocol.TransportStdio
			}
			if t != want {
				d.fail(transport, field+".transport", "%q does not match the server: a server with a url is %q, one with a command %q (the only transports)", t, protocol.TransportHTTP, protocol.TransportStdio)
			}
		}
	}
	return s, nameNode, len(d.errs) == before
}

// headers decodes `Name: {fromEnv: VAR, prefix: "Bearer "}` entries. A header value is never
// written in the file: it is read from the environment at probe time.
func (d *configDecoder) headers(n *yaml.Node, field string) []store.HeaderRef {
	var out []store.HeaderRef
	d.mapping(n, field, func(name string, k, v *yaml.Node) {
		f := join(field, name)
		if err := store.CheckHeaderName(name); err != nil {
			d.fail(k, f, "%v", err)
			return
		}
		if resolve(v).Kind != yaml.MappingNode {
			d.fail(v, f, `want {fromEnv: VARIABLE} or {fromEnv: VARIABLE, prefix: "Bearer "}: header values are read from the environment, never written in the file`)
			return
		}
		h := store.HeaderRef{Name: name}
		given := false
		d.mapping(v, f, func(key string, k, v *yaml.Node) {
			switch key {
			case "fromEnv":
				given = true
				h.FromEnv = d.envName(v, join(f, key))
			case "prefix":
				if p, ok := d.str(v, join(f, key)); ok {
					if err := store.CheckHeaderPrefix(p); err != nil {
						d.fail(v, join(f, key), "%v", err)
					}
					h.Prefix = p
				}
			default:
				d.fail(k, join(f, key), "unknown field (known: fromEnv, prefix)")
			}
		})
		if !given {
			d.fail(v, f+".fromEnv", "missing: name the environment variable that holds the value")
		}
		if h.FromEnv == "" {
			return
		}
		out = append(out, h)
		if i := store.DuplicateHeader(out); i >= 0 {
			d.fail(k, f, "%s is given twice (header names are case-insensitive)", name)
			out = out[:i]
		}
	})
	return out
}

// env decodes `NAME: value` and `NAME: {fromEnv: VAR}` entries of a stdio server.
func (d *configDecoder) env(n *yaml.Node, field string) []store.EnvVar {
	var out []store.EnvVar
	d.mapping(n, field, func(name string, k, v *yaml.Node) {
		f := join(field, name)
		if err := store.CheckEnvName(name); err != nil {
			d.fail(k, f, "%v", err)
			return
		}
		e := store.EnvVar{Name: name}
		if vv := resolve(v); vv.Kind == yaml.MappingNode {
			d.mapping(vv, f, func(key string, k, v *yaml.Node) {
				if key != "fromEnv" {
					d.fail(k, join(f, key), "unknown field (known: fromEnv)")
					return
				}
				e.FromEnv = d.envName(v, join(f, key))
			})
			if e.FromEnv == "" {
				return
			}
		} else if s, ok := d.str(v, f); ok {
			e.Value = s
		} else {
			return
		}
		out = append(out, e)
	})
	return out
}

func (d *configDecoder) labels(n *yaml.Node, field string) map[string]string {
	out := map[string]string{}
	d.mapping(n, field, func(key string, k, v *yaml.Node) {
		if err := store.CheckLabelKey(key); err != nil {
			d.fail(k, field, "a key %v", err)
			return
		}
		s, ok := d.str(v, join(field, key))
		if !ok {
			return
		}
		if err := store.CheckLabelValue(s); err != nil {
			d.fail(v, join(field, key), "%v", err)
			return
		}
		out[key] = s
	})
	if len(out) == 0 {
		return nil
	}
	return out
}

func (d *configDecoder) envName(n *yaml.Node, field string) string {
	s, ok := d.str(n, field)
	if !ok {
		return ""
	}
	if err := store.CheckFromEnv(s); err != nil {
		d.fail(n, field, "%v", err)
		return ""
	}
	return s
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
	if _, err := ParseSchedule(s.Schedule, 0); err != nil {
		return bad("schedule: %v", err)
	}
	if err := s.Validate(); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	}
	return nil
}
