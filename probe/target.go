package probe

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

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

// validURLTransport reports whether a URL target may name this transport.
func validURLTransport(t string) bool {
	switch t {
	case "", protocol.TransportAuto, protocol.TransportHTTP, protocol.TransportSSE:
		return true
	}
	return false
}
