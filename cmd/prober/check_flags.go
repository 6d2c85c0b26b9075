package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/mcpwatch/mcpwatch/checks"
	"github.com/mcpwatch/mcpwatch/internal/units"
	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/protocol"
	"github.com/mcpwatch/mcpwatch/report"
)

// Defaults of `prober check`; the help text prints these same values.
const (
	defaultTimeout        = 60 * time.Second
	defaultInitTimeout    = 45 * time.Second
	defaultRequestTimeout = 10 * time.Second
	// afterInitTime is what the default bounds leave the conversation after a slow initialize.
	afterInitTime         = defaultTimeout - defaultInitTimeout
	defaultShutdownGrace  = 2 * time.Second
	defaultMaxMessageSize = 16 << 20
	defaultFailOn         = "error"
	defaultLogLevel       = "warn"
	minMessageSize        = 1 << 10
	maxMessageSize        = 1 << 30
)

// checkConfig is a parsed and validated `prober check` command line.
type checkConfig struct {
	target  probe.Target
	options probe.Options
	format  report.Format
	output  string // "" or "-" for stdout
	failOn  checks.Severity
	include []string
	exclude []string
	verbose bool
	noColor bool
	level   slog.Level
	// headerNames are the names given with --header; secrets are the values to redact.
	headerNames []string
	secrets     []string
	// ci holds the CI-facing flags (check_ci.go).
	ci ciFlags
	// allRevisions: --protocol-version all (check_revisions.go).
	allRevisions bool
	// bearer is --bearer-token(-env), applied once the environment can be read (check_bearer.go).
	bearer bearerFlags
	// progress is --progress, nil when not given (progress.go: shown on a terminal only).
	progress *bool
	// calls is --calls FILE, read once the environment can be (check_calls.go).
	calls string
	// writeCalls is --write-calls FILE ("-" for stdout) and --force (check_calls.go).
	writeCalls writeCallsFlags
}

// repeated collects a flag given several times. Set never fails: a failing Set makes the
// flag package quote the value in its error, and header values are secrets.
type repeated []string

func (r *repeated) String() string     { return strings.Join(*r, ", ") }
func (r *repeated) Set(v string) error { *r = append(*r, v); return nil }

// optionalBool is a boolean flag that knows whether it was given: --progress forces
// progress on, --progress=false off, and without it the terminal decides.
type optionalBool struct{ value *bool }

func (b *optionalBool) String() string {
	if b == nil || b.value == nil {
		return ""
	}
	return strconv.FormatBool(*b.value)
}

func (b *optionalBool) Set(s string) error {
	v, err := strconv.ParseBool(s)
	if err != nil {
		return errors.New("want true or false")
	}
	b.value = &v
	return nil
}

func (b *optionalBool) IsBoolFlag() bool { return true }

// checkFlags are the raw flag values before validation.
type checkFlags struct {
	format, output, failOn, checks, skip, dir, logLevel string
	calls                                               string
	writeCalls                                          writeCallsFlags
	timeout, initTimeout, requestTimeout, shutdownGrace time.Duration
	headers, env                                        repeated
	maxMessage                                          units.Size
	verbose, noColor                                    bool
	progress                                            optionalBool
	ci                                                  ciFlags
	bearer                                              bearerFlags
	protocol                                            protocolFlags
	tls                                                 tlsFlags
	// given names the flags the command line set, for defaults that follow another flag.
	given map[string]bool
}

// durationVar declares a duration flag read in the grammar of the configuration file
// (internal/units): a Go duration, or whole days first.
func durationVar(fs *flag.FlagSet, p *time.Duration, name string, value time.Duration) {
	*p = value
	fs.Var((*units.Duration)(p), name, "")
}

// newCheckFlagSet declares every flag of `prober check`. Errors and usage are the caller's
// to print, so the flag package is silenced.
func newCheckFlagSet(v *checkFlags) *flag.FlagSet {
	fs := flag.NewFlagSet("prober check", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&v.format, "format", report.FormatNames()[0], "")
	fs.StringVar(&v.output, "output", "", "")
	fs.StringVar(&v.output, "o", "", "")
	durationVar(fs, &v.timeout, "timeout", defaultTimeout)
	durationVar(fs, &v.initTimeout, "init-timeout", defaultInitTimeout)
	durationVar(fs, &v.requestTimeout, "request-timeout", defaultRequestTimeout)
	durationVar(fs, &v.shutdownGrace, "shutdown-grace", defaultShutdownGrace)
	fs.Var(&v.headers, "header", "")
	fs.Var(&v.headers, "H", "")
	fs.Var(&v.env, "env", "")
	fs.StringVar(&v.dir, "dir", "", "")
	fs.StringVar(&v.failOn, "fail-on", defaultFailOn, "")
	v.protocol.declare(fs)
	fs.StringVar(&v.checks, "checks", "", "")
	fs.StringVar(&v.skip, "skip", "", "")
	fs.BoolVar(&v.verbose, "verbose", false, "")
	fs.BoolVar(&v.verbose, "v", false, "")
	v.maxMessage = defaultMaxMessageSize
	fs.Var(&v.maxMessage, "max-message-size", "")
	fs.BoolVar(&v.noColor, "no-color", false, "")
	fs.Var(&v.progress, "progress", "")
	fs.StringVar(&v.logLevel, "log-level", defaultLogLevel, "")
	fs.StringVar(&v.calls, "calls", "", "")
	v.writeCalls.declare(fs)
	v.ci.declare(fs)
	v.bearer.declare(fs)
	v.tls.declare(fs)
	return fs
}

// parseCheckArgs parses and validates a `prober check` command line. Flags may come before
// or after the URL; everything after -- is the server command. It returns flag.ErrHelp for
// -h/--help; any other error is a usage error.
func parseCheckArgs(args []string) (*checkConfig, error) {
	var v checkFlags
	fs := newCheckFlagSet(&v)
	var positional, command []string
	sawDashes := false
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, explainFlagError(err, fs)
		}
		rest := fs.Args()
		consumed := len(args) - len(rest)
		if consumed > 0 && args[consumed-1] == "--" {
			sawDashes, command = true, rest
			break
		}
		if len(rest) == 0 {
			break
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
	v.given = map[string]bool{}
	fs.Visit(func(f *flag.Flag) { v.given[f.Name] = true })
	return v.validate(positional, command, sawDashes)
}

func (v *checkFlags) validate(positional, command []string, sawDashes bool) (*checkConfig, error) {
	target, err := targetOf(positional, command, sawDashes)
	if err != nil {
		return nil, err
	}
	cfg := &checkConfig{target: target, output: v.output, verbose: v.verbose, noColor: v.noColor, progress: v.progress.value, calls: v.calls}
	stdio := cfg.target.Kind() == protocol.TransportStdio

	f, ok := report.LookupFormat(v.format)
	if !ok {
		return nil, fmt.Errorf("--format %q: want one of %s", v.format, strings.Join(report.FormatNames(), ", "))
	}
	cfg.format = f
	if cfg.ci, err = v.ci.validate(f.Name); err != nil {
		return nil, err
	}
	if cfg.writeCalls, err = v.writeCalls.validate(v.output, v.ci.writeBaseline); err != nil {
		return nil, err
	}

	switch v.failOn {
	case string(checks.SeverityError), string(checks.SeverityWarning), string(checks.SeverityAdvice):
		cfg.failOn = checks.Severity(v.failOn)
	default:
		return nil, fmt.Errorf("--fail-on %q: want error, warning or advice", v.failOn)
	}
	choice, err := v.protocol.validate(stdio)
	if err != nil {
		return nil, err
	}
	cfg.allRevisions = choice.all
	cfg.target.Transport = choice.transport
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"timeout", v.timeout}, {"init-timeout", v.initTimeout}, {"request-timeout", v.requestTimeout}, {"shutdown-grace", v.shutdownGrace}} {
		if d.v <= 0 {
			return nil, fmt.Errorf("--%s %s: want a positive duration such as 30s", d.name, d.v)
		}
	}
	if err := v.fitTimeoutToInit(); err != nil {
		return nil, err
	}
	if v.maxMessage < minMessageSize || v.maxMessage > maxMessageSize {
		return nil, fmt.Errorf("--max-message-size %v: want between %v and %v", v.maxMessage, units.Size(minMessageSize), units.Size(maxMessageSize))
	}
	level, err := parseLevel(v.logLevel)
	if err != nil {
		return nil, err
	}
	cfg.level = level
	cfg.include, cfg.exclude = splitIDs(v.checks), splitIDs(v.skip)

	if len(v.headers) > 0 && stdio {
		return nil, errors.New("--header applies to an HTTP URL, not to a stdio command (use --env for the server's environment)")
	}
	if len(v.env) > 0 && !stdio {
		return nil, errors.New("--env applies to a stdio command, not to an HTTP URL")
	}
	if v.dir != "" && !stdio {
		return nil, errors.New("--dir applies to a stdio command, not to an HTTP URL")
	}
	header, names, secrets, err := parseHeaders(v.headers)
	if err != nil {
		return nil, err
	}
	cfg.headerNames, cfg.secrets = names, secrets
	cfg.target.Header = header
	if err := v.bearer.validate(stdio, header); err != nil {
		return nil, err
	}
	cfg.bearer = v.bearer
	tlsSet, err := v.tls.validate(stdio)
	if err != nil {
		return nil, err
	}
	env, envSecrets, err := parseEnv(v.env)
	if err != nil {
		return nil, err
	}
	cfg.secrets = append(cfg.secrets, envSecrets...)
	cfg.target.Env = env
	cfg.target.Dir = v.dir
	if u, err := url.Parse(cfg.target.URL); err == nil && u.User != nil {
		if pw, ok := u.User.Password(); ok {
			cfg.secrets = append(cfg.secrets, pw)
		}
	}
	if err := cfg.target.Validate(); err != nil {
		return nil, err
	}

	// The probe's bound on all bytes read stays, unless it would not hold four messages of
	// the largest size the user allows.
	maxTotal := probe.Limits{}.WithDefaults().MaxTotalBytes
	maxTotal = max(maxTotal, 4*int64(v.maxMessage))
	cfg.options = probe.Options{
		ProtocolVersion: choice.revision,
		Timeout:         v.timeout,
		InitTimeout:     v.initTimeout,
		RequestTimeout:  v.requestTimeout,
		ShutdownGrace:   v.shutdownGrace,
		Limits:          probe.Limits{MaxMessageBytes: int(v.maxMessage), MaxTotalBytes: maxTotal},

		RootCAs:            tlsSet.roots,
		InsecureSkipVerify: tlsSet.skipVerify,
	}
	return cfg, nil
}

// fitTimeoutToInit keeps the whole-probe bound from cutting a slow start short: the bound
// covers the first initialize too, so a longer --init-timeout (a first `go run` or `npx`
// that downloads and compiles the server) without --timeout moves the default bound with it,
// keeping the time the default leaves for the rest of the conversation. Both given, a bound
// that ends before the initialize may is refused rather than silently obeyed.
func (v *checkFlags) fitTimeoutToInit() error {
	switch {
	case v.given["timeout"] && v.given["init-timeout"] && v.timeout <= v.initTimeout:
		return fmt.Errorf("--timeout %s bounds the whole probe, --init-timeout %s its first answer alone: want a --timeout longer than --init-timeout", v.timeout, v.initTimeout)
	case !v.given["timeout"] && v.initTimeout+afterInitTime > v.timeout:
		v.timeout = v.initTimeout + afterInitTime
	}
	return nil
}
