package monitor

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/mcpwatch/mcpwatch/alert"
	"github.com/mcpwatch/mcpwatch/checks"
	"github.com/mcpwatch/mcpwatch/internal/calls"
	"github.com/mcpwatch/mcpwatch/internal/redact"
	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/protocol"
	"github.com/mcpwatch/mcpwatch/report"
	"github.com/mcpwatch/mcpwatch/store"
)

// ErrStdioNotFromConfig refuses a stdio server that did not come from the configuration file:
// a command in the database could have been put there by anyone who can write to it, and
// running it would hand them this machine.
var ErrStdioNotFromConfig = errors.New("stdio servers run only when they come from the configuration file")

// DefaultRuleProbes is how often, by default, each server's probe also runs the rule probes:
// in every probe, so that every run judges every check and a server's outcome never depends
// on whether its run was one with the rule probes.
const DefaultRuleProbes = 0

// Prober runs one probe of a stored server and judges it.
type Prober struct {
	checks      *checks.Registry
	lookupEnv   func(string) (string, bool)
	guardedDial func(ctx context.Context, network, address string) (net.Conn, error)
	version     string
	transcripts string
	ruleProbes  time.Duration
	limits      probe.Limits
	logger      *slog.Logger
}

// ProberConfig builds a Prober.
type ProberConfig struct {
	// Checks judge every probe; default checks.Default().
	Checks *checks.Registry
	// LookupEnv resolves header and environment references at probe time; default
	// os.LookupEnv is the caller's to pass (tests pass their own).
	LookupEnv func(string) (string, bool)
	// Version is sent as clientInfo.version.
	Version string
	// Transcripts is TranscriptsChanges (default), TranscriptsAll, TranscriptsFailing or
	// TranscriptsNone.
	Transcripts string
	// GuardedDial makes every connection of a probe of a server that did not come from the
	// configuration file (registered through the API by someone other than the operator):
	// a netguard.Guard's DialContext, so that such a server cannot point the prober at its
	// own internal networks, redirects and DNS rebinding included. Nil dials directly.
	GuardedDial func(ctx context.Context, network, address string) (net.Conn, error)
	// RuleProbes is how often each server's probe also runs the rule probes (sessions,
	// headers, Origin, robustness, authorization, the unknown tool and cursor): once per
	// window of this length, in the slot that opens it. 0 runs them in every probe.
	RuleProbes time.Duration
	// Concurrency is how many probes run at once (the worker's); MemoryBudget (default
	// DefaultMemoryBudget) is what all of them together may read from servers and hold.
	// Each probe's bounds are cut to its share (see ProbeLimits). Concurrency 0 leaves the
	// probe's own bounds (64 MiB a connection).
	Concurrency  int
	MemoryBudget int64
	Logger       *slog.Logger
}

// DefaultMemoryBudget bounds the bytes the probes of a monitor process hold at once: what
// they read from servers and keep as evidence until the run is judged and recorded.
const DefaultMemoryBudget = 512 << 20

// Bounds of a probe's connections, as package probe applies them: a probe has its main
// connection and up to ruleConns rule-probe connections, each allowed an eighth of the main
// connection's bytes but at least ruleConnFloor.
const (
	ruleConns     = 11
	ruleConnFloor = 1 << 20
	maxProbeBytes = 64 << 20 // the probe's own bound of the main connection
	minProbeBytes = 1 << 20
)

// ProbeLimits are the bounds of one probe when concurrency probes share budget bytes: the
// main connection's byte bound is the largest that keeps the probe's worst case (that bound,
// plus every rule-probe connection's) within budget/concurrency, between 1 MiB and 64 MiB.
// worst is that worst case: concurrency × worst is what the probes can hold at once, budget
// unless the budget is too small for the concurrency (less than some 12 MiB a probe).
func ProbeLimits(budget int64, concurrency int) (l probe.Limits, worst int64) {
	if budget <= 0 {
		budget = DefaultMemoryBudget
	}
	share := budget / int64(max(concurrency, 1))
	m := share * 8 / (8 + ruleConns) // every rule connection at an eighth of m
	if m < 8*ruleConnFloor {
		m = share - ruleConns*ruleConnFloor // every rule connection at its floor
	}
	m = min(max(m, minProbeBytes), maxProbeBytes)
	l = probe.Limits{MaxTotalBytes: m, MaxMessageBytes: int(min(m, 16<<20))}.WithDefaults()
	return l, m + ruleConns*max(ruleConnFloor, m/8)
}

// NewProber builds a Prober.
func NewProber(cfg ProberConfig) (*Prober, error) {
	if cfg.LookupEnv == nil {
		return nil, errors.New("monitor: prober needs LookupEnv")
	}
	if cfg.Checks == nil {
		var err error
		if cfg.Checks, err = checks.Default(); err != nil {
			return nil, fmt.Errorf("monitor: %w", err)
		}
	}
	if cfg.Transcripts == "" {
		cfg.Transcripts = TranscriptsChanges
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	p := &Prober{checks: cfg.Checks, lookupEnv: cfg.LookupEnv, guardedDial: cfg.GuardedDial, version: cfg.Version,
		transcripts: cfg.Transcripts, ruleProbes: cfg.RuleProbes, logger: cfg.Logger}
	if cfg.Concurrency > 0 {
		budget := cfg.MemoryBudget
		if budget <= 0 {
			budget = DefaultMemoryBudget
		}
		var worst int64
		p.limits, worst = ProbeLimits(budget, cfg.Concurrency)
		total := worst * int64(cfg.Concurrency)
		log := cfg.Logger.Info
		if total > budget {
			log = cfg.Logger.Warn
		}
		log("probe bounds", "concurrency", cfg.Concurrency, "budget_bytes", budget, "probe_max_bytes", p.limits.MaxTotalBytes, "worst_case_bytes", total)
	}
	return p, nil
}

// Probe probes s once, for the slot due at due, for at most timeout, and returns the run to store and its
// observation for the alert engine: the run with what the store does not keep, the tool
// surface and the TLS certificate, read from the probe result while it is at hand. A probe
// that cannot start (a missing environment variable, a refused command) is a down run that
// says why.
//
// previous is the outcome of the slot's last run ("" when unknown), which decides whether the
// run keeps its transcript under TranscriptsChanges.
func (p *Prober) Probe(ctx context.Context, s store.Server, due time.Time, previous string, timeout time.Duration, region, worker string) (store.RunRecord, alert.Observation) {
	return p.probe(ctx, s, due, previous, timeout, region, worker, true)
}

// probe is Probe; without observe it returns no observation (the zero one): a worker with no
// alert engine has no use for it, and reading the tool surface out of the tools/list pages
// cost about a twentieth of a probe's CPU.
func (p *Prober) probe(ctx context.Context, s store.Server, due time.Time, previous string, timeout time.Duration, region, worker string, observe bool) (store.RunRecord, alert.Observation) {
	meta := RunMeta{ServerID: s.ID, Region: region, Worker: worker, Transcripts: p.transcripts, Previous: previous, Due: due}
	start := time.Now()
	target, secrets, err := p.target(s)
	var toolCalls []probe.ToolCall
	if err == nil {
		var callSecrets []string
		toolCalls, callSecrets, err = p.calls(s)
		secrets = append(secrets, callSecrets...)
	}
	meta.Secrets = secrets
	if err != nil {
		rec := FailedRecord(start, meta, err)
		return rec, ObservationOf(s, &rec, nil, nil)
	}
	opts := probe.Options{
		Calls:         toolCalls,
		Timeout:       timeout,
		ClientName:    "mcpwatch",
		ClientVersion: p.version,
		Logger:        p.logger.With("server", s.Name),
		// Most probes of a monitor ask a server only what a client would: the rule probes
		// bend requests on purpose (a foreign Origin, malformed JSON, bogus sessions) over
		// several more connections, which every minute would cost the monitor three times
		// the work and the server a stream of garbage, to learn what seldom changes.
		RulesElsewhere: p.rulesElsewhere(s, due),
		Limits:         p.limits,
	}
	if s.Source != store.SourceConfig {
		opts.DialContext = p.guardedDial
	}
	res, err := probe.Run(ctx, target, opts)
	if err != nil {
		rec := FailedRecord(start, meta, err)
		return rec, ObservationOf(s, &rec, nil, nil)
	}
	findings, err := report.Findings(res, report.JudgeOptions{Checks: p.checks})
	if err != nil {
		rec := FailedRecord(start, meta, err)
		return rec, ObservationOf(s, &rec, nil, nil)
	}
	red := redact.New(secrets...)
	redactFindings(red, findings)
	rec := RunRecordOf(res, findings, meta)
	if !observe {
		return rec, alert.Observation{}
	}
	obs := ObservationOf(s, &rec, res, findings)
	obs.Response = red.String(obs.Response)
	if obs.Tools != nil && red.Active() {
		for i := range obs.Tools.Tools {
			t := &obs.Tools.Tools[i]
			t.Name, t.Description = red.String(t.Name), red.String(t.Description)
		}
	}
	return rec, obs
}

// rulesElsewhere says why the probe of s for the slot due at due leaves the rule probes out,
// or "" when it runs them: in the first slot of each RuleProbes window of the server, the
// windows phased by the server's name so that servers on the same schedule do not all get
// theirs in the same minute.
func (p *Prober) rulesElsewhere(s store.Server, due time.Time) string {
	if p.ruleProbes <= 0 || due.IsZero() {
		return ""
	}
	sched, err := ParseSchedule(s.Schedule, 0)
	if err != nil {
		return ""
	}
	interval := sched.Interval(due)
	if interval <= 0 || interval >= p.ruleProbes {
		return ""
	}
	phase := offset(s.Name+"#rule-probes", p.ruleProbes)
	window := func(t time.Time) int64 { return t.Add(phase).UnixNano() / int64(p.ruleProbes) }
	if window(due) != window(due.Add(-interval)) {
		return ""
	}
	return fmt.Sprintf("the monitor runs the rule probes against each server once every %v (ruleProbes), and not in this run", p.ruleProbes)
}

// calls are the tool calls the probe of s makes, their fromEnv arguments read from the
// environment now (secrets are the values read, which the run must not show). Only a server of
// the configuration file has calls (the store refuses them on any other); a server without
// has none, and then the probe calls no tool. A call whose variable is not set goes to the
// probe not to be sent, so that the run records it untested with the reason.
func (p *Prober) calls(s store.Server) ([]probe.ToolCall, []string, error) {
	if len(s.Calls) == 0 {
		return nil, nil, nil
	}
	if s.Source != store.SourceConfig {
		return nil, nil, fmt.Errorf("server %q (source %s): %w", s.Name, s.Source, store.ErrCallsNotFromConfig)
	}
	entries, err := calls.Decode(s.Calls)
	if err != nil {
		return nil, nil, fmt.Errorf("the calls of server %q as stored: %w", s.Name, err)
	}
	out, secrets := calls.Resolve(entries, p.lookupEnv)
	return out, secrets, nil
}

// target builds what to probe, reading secrets from the environment now: they are never
// stored. secrets are the values read from the environment, header values and env values
// alike, which the run must not show (the probe itself redacts header values from its HTTP
// transcript; a stdio server can echo an env value anywhere).
func (p *Prober) target(s store.Server) (t probe.Target, secrets []string, err error) {
	if s.Transport == protocol.TransportStdio {
		if s.Source != store.SourceConfig {
			return probe.Target{}, nil, fmt.Errorf("server %q (source %s): %w", s.Name, s.Source, ErrStdioNotFromConfig)
		}
		t = probe.Target{Command: append([]string{s.Command}, s.Args...), Dir: s.Dir}
		for _, e := range s.Env {
			value := e.Value
			if e.FromEnv != "" {
				v, ok := p.lookupEnv(e.FromEnv)
				if !ok {
					return probe.Target{}, secrets, fmt.Errorf("environment variable %s (for %s) is not set", e.FromEnv, e.Name)
				}
				value = v
				secrets = append(secrets, v)
			}
			t.Env = append(t.Env, e.Name+"="+value)
		}
		return t, secrets, nil
	}
	if !slices.Contains(store.URLTransports(), s.Transport) {
		return probe.Target{}, nil, fmt.Errorf("transport %q is not supported (want stdio or one of %s)", s.Transport, strings.Join(store.URLTransports(), ", "))
	}
	t = probe.Target{URL: s.URL, Transport: s.Transport}
	for _, h := range s.Headers {
		v, ok := p.lookupEnv(h.FromEnv)
		if !ok {
			return probe.Target{}, secrets, fmt.Errorf("environment variable %s (for header %s) is not set", h.FromEnv, h.Name)
		}
		if t.Header == nil {
			t.Header = http.Header{}
		}
		t.Header.Add(h.Name, h.Prefix+v)
		secrets = append(secrets, h.Prefix+v, v)
	}
	return t, secrets, nil
}
