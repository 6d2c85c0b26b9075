package probe

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"
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
}

// Transport names.
const (
	TransportStdio = "stdio"
	TransportHTTP  = "http"
)

// Kind is the transport the target needs.
func (t Target) Kind() string {
	if len(t.Command) > 0 {
		return TransportStdio
	}
	return TransportHTTP
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
	// ProtocolVersion is the revision offered in initialize; default LatestRevision.
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
	// redirect policy is kept.
	HTTPClient *http.Client
	// ClientName and ClientVersion fill clientInfo.
	ClientName    string
	ClientVersion string
	Logger        *slog.Logger
}

// WithDefaults returns o with zero fields replaced by their defaults.
func (o Options) WithDefaults() Options {
	if o.ProtocolVersion == "" {
		o.ProtocolVersion = LatestRevision
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
