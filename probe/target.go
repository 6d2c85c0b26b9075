package probe

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/mcpwatch/mcpwatch/protocol"
)

// Target is what to probe: a stdio command or an HTTP URL, never both.
type Target struct {
	// URL of a Streamable HTTP endpoint.
	URL string
	// Command and its arguments for a stdio server.
	Command []string
	// Env is added to the prober's own environment for the command (KEY=VALUE).
	Env []string
	// Dir is the command's working directory ("" for the prober's).
	Dir string
	// Header is sent with every HTTP request. Its values are secrets: they are redacted in
	// the transcript and never printed.
	Header http.Header
	// Transport of a URL: protocol.TransportHTTP (Streamable HTTP), protocol.TransportSSE (the legacy HTTP+SSE
	// transport of 2024-11-05, URL being its event-stream endpoint), or "" / protocol.TransportAuto to
	// detect it the way the specification tells clients to (basic/transports, Backwards Compatibility). A command is
	// always stdio ("" or protocol.TransportStdio).
	Transport string
}

// Kind is the transport the target needs: protocol.TransportSSE only when the target says so (an
// automatic target starts out as Streamable HTTP; Result.Transport says what it turned out
// to be).
func (t Target) Kind() string {
	switch {
	case len(t.Command) > 0:
		return protocol.TransportStdio
	case t.Transport == protocol.TransportSSE:
		return protocol.TransportSSE
	}
	return protocol.TransportHTTP
}

// detectsTransport reports whether the probe is to detect the transport of a URL target.
func (t Target) detectsTransport() bool {
	return len(t.Command) == 0 && (t.Transport == "" || t.Transport == protocol.TransportAuto)
}

// String is the target as a person gave it, for reports.
func (t Target) String() string {
	if len(t.Command) > 0 {
		return strings.Join(t.Command, " ")
	}
	return t.URL
}

// Validate reports what is wrong with a target before anything is started.
func (t Target) Validate() error {
	switch {
	case len(t.Command) > 0 && t.URL != "":
		return errors.New("target: give either a URL or a command, not both")
	case len(t.Command) == 0 && t.URL == "":
		return errors.New("target: give a URL or a command")
	case len(t.Command) > 0 && t.Command[0] == "":
		return errors.New("target: empty command")
	case len(t.Command) > 0 && t.Transport != "" && t.Transport != protocol.TransportStdio:
		return fmt.Errorf("target: a command is probed over stdio, not %q", t.Transport)
	case t.URL != "" && t.Transport == protocol.TransportStdio:
		return errors.New("target: a URL is probed over http or sse, not stdio")
	case t.URL != "" && !validURLTransport(t.Transport):
		return fmt.Errorf("target: unknown transport %q (want auto, http or sse)", t.Transport)
	case t.URL != "":
		u, err := url.Parse(t.URL)
		if err != nil {
			return fmt.Errorf("target: %w", err)
		}
		if u.Scheme != "http" && u.Scheme != "https" {
			return fmt.Errorf("target: URL scheme must be http or https, got %q", u.Scheme)
		}
		if u.Host == "" {
			return fmt.Errorf("target: URL %q has no host", t.URL)
		}
	}
	for _, kv := range t.Env {
		if k, _, ok := strings.Cut(kv, "="); !ok || k == "" {
			return fmt.Errorf("target: environment entry %q is not KEY=VALUE", kv)
		}
	}
	return nil
}

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
	// ClientName and ClientVersion fill clientInfo.
	ClientName    string
	ClientVersion string
	Logger        *slog.Logger
	// RulesElsewhere, when set, leaves out the rule probes (the connections of rules.go and
	// the tool probes that end the main session) and says why: where or when they run
	// instead. It becomes Result.RulesElsewhere, which the checks of those rules cite.
	RulesElsewhere string

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
