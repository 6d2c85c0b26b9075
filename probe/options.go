package probe

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/mcpwatch/mcpwatch/protocol"
)

// Options tune one probe. Zero fields take defaults (see WithDefaults).
type Options struct {
	// ProtocolVersion is the revision to probe. "" or RevisionAuto offers protocol.LatestRevision and
	// falls back the way the specification tells clients to (era detection: server/discover
	// first, initialize with protocol.LatestSessionRevision when the server is not stateless); any
	// other value is offered as it is, without fallback.
	ProtocolVersion string
	// Timeout bounds the whole probe; default 60s.
	Timeout time.Duration
	// InitTimeout bounds the first initialize (a first `npx` or `go run` downloads and
	// compiles); default 45s.
	InitTimeout time.Duration
	// RequestTimeout bounds every other request; default 10s.
	RequestTimeout time.Duration
	// ShutdownGrace is how long a stdio server gets after stdin closes, and again after
	// SIGTERM; default 2s.
	ShutdownGrace time.Duration
	Limits        Limits
	// HTTPClient overrides the client of the HTTP transport (tests, custom TLS). Its
	// redirect policy is replaced by the probe's: no redirect of an MCP request is followed,
	// and none to another origin.
	HTTPClient *http.Client
	// DialContext, when set, makes every TCP connection of the probe's own HTTP client
	// (ignored with HTTPClient). The monitor sets it to a netguard.Guard's DialContext for
	// servers registered through the API, so that their probes cannot reach internal
	// addresses, redirects included.
	DialContext func(ctx context.Context, network, address string) (net.Conn, error)
	// RootCAs, when set, are the certificate authorities server certificates are verified
	// against instead of the system's (a server behind a private CA); nil: the system roots,
	// which SSL_CERT_FILE and SSL_CERT_DIR can replace.
	RootCAs *x509.CertPool
	// InsecureSkipVerify leaves server certificates unverified: the probe talks to the
	// server, credentials included, whatever certificate it shows, and every TLSInfo says it
	// was not verified (tls.certificate then judges nothing).
	InsecureSkipVerify bool
	// ClientName and ClientVersion fill clientInfo.
	ClientName    string
	ClientVersion string
	Logger        *slog.Logger
	// Observe, when set, hears what the probe is doing as it does it (see Event): the
	// connections it opens and the answers it waits for, so that a command line can show
	// progress. It is called from the probe's goroutines, several at once, and must not
	// block; nil costs nothing.
	Observe func(Event)
	// RulesElsewhere, when set, leaves out the rule probes (the connections of rules.go and
	// the tool probes that end the main session) and says why: where or when they run
	// instead. It becomes Result.RulesElsewhere, which the checks of those rules cite.
	RulesElsewhere string
	// Calls are the opt-in tool calls (prober check --calls): the main connection sends them
	// after its tool probes, each to a tool the server lists. None by default: the probe
	// never calls a listed tool unasked.
	Calls []ToolCall

	// detectEra is set by WithDefaults when the revision was left to the probe.
	detectEra bool
	// sessionRulesToo makes the probe of a stateless revision run the session-era rule
	// probes too against a server that also speaks a session revision, as era detection
	// does: RunRevisions sets it, so that the probe a report is about makes the probes a
	// default run makes.
	sessionRulesToo bool
	// skipRules leaves out the rule probes (rules.go): the tests of the transports and of the
	// main session look at those connections alone.
	skipRules bool
	// revisionRules: RulesElsewhere leaves out the rule probes, except those of a rule of the
	// revision offered (RunRevisions: the other revisions' probes carry the rest).
	revisionRules bool
	// caller is the context run was given, before the probe's own timeout: its
	// cancellation is an interrupt (see Result.Interrupted).
	caller context.Context
	// sockets, when set, are the plain-http keep-alive connections the probe's rule
	// connections share (see http1Shared); nil: each connection keeps its own.
	sockets *http1Shared
}

// wasInterrupted reports whether the caller has cancelled the probe (a deadline of the
// caller's is a timeout, not an interrupt).
func (o *Options) wasInterrupted() bool {
	return o.caller != nil && errors.Is(o.caller.Err(), context.Canceled)
}

// RevisionAuto is the ProtocolVersion that leaves the revision to era detection.
const RevisionAuto = "auto"

// WithDefaults returns o with zero fields replaced by their defaults.
func (o Options) WithDefaults() Options {
	if o.ProtocolVersion == "" || o.ProtocolVersion == RevisionAuto {
		o.ProtocolVersion = protocol.LatestRevision
		o.detectEra = true
	}
	if o.Timeout <= 0 {
		o.Timeout = 60 * time.Second
	}
	if o.InitTimeout <= 0 {
		o.InitTimeout = 45 * time.Second
	}
	if o.InitTimeout > o.Timeout {
		o.InitTimeout = o.Timeout
	}
	if o.RequestTimeout <= 0 {
		o.RequestTimeout = 10 * time.Second
	}
	if o.ShutdownGrace <= 0 {
		o.ShutdownGrace = 2 * time.Second
	}
	o.Limits = o.Limits.WithDefaults()
	if o.ClientName == "" {
		o.ClientName = "mcpwatch"
	}
	if o.ClientVersion == "" {
		o.ClientVersion = "dev"
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}

// Limits bound what a hostile server can make the probe do. Zero fields take defaults.
type Limits struct {
	MaxMessageBytes int   // one message (stdout line, HTTP body, SSE event); default 16 MiB
	MaxFrames       int   // frames in a transcript; default 10,000
	MaxTotalBytes   int64 // bytes read from the server over the whole probe; default 64 MiB
	MaxStderrBytes  int   // stderr ring per process; default 64 KiB
	MaxPages        int   // pages followed for one list method; default 100
}

// messageLimitText names MaxMessageBytes in what the probe reports, with the setting that
// raises it.
func (l Limits) messageLimitText() string {
	return fmt.Sprintf("the message size limit of %d bytes (prober check --max-message-size)", l.MaxMessageBytes)
}

// WithDefaults returns l with zero fields replaced by their defaults.
func (l Limits) WithDefaults() Limits {
	if l.MaxMessageBytes <= 0 {
		l.MaxMessageBytes = 16 << 20
	}
	if l.MaxFrames <= 0 {
		l.MaxFrames = 10_000
	}
	if l.MaxTotalBytes <= 0 {
		l.MaxTotalBytes = 64 << 20
	}
	if l.MaxStderrBytes <= 0 {
		l.MaxStderrBytes = 64 << 10
	}
	if l.MaxPages <= 0 {
		l.MaxPages = 100
	}
	return l
}

// rulesHere reports whether this probe sends the requests of the rule probes itself: neither
// left out (skipRules) nor run elsewhere (RulesElsewhere). The main session's rule requests
// (tool, resource, prompt and list probes) and the negotiation connection's go by it.
func (o Options) rulesHere() bool { return !o.skipRules && o.RulesElsewhere == "" }
