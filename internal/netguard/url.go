package netguard

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
)

// ErrBadURL means a URL cannot be registered for reasons of its own form.
var ErrBadURL = errors.New("netguard: URL not accepted")

// MaxURLBytes bounds a registered URL.
const MaxURLBytes = 2048

// CheckURL vets a URL before it is registered: http or https, a host, no credentials in it
// (they would be stored and shown), and a host whose every address is allowed now. Dial-time
// checks still apply later, since what a name resolves to can change.
func (g *Guard) CheckURL(ctx context.Context, raw string) error {
	if len(raw) > MaxURLBytes {
		return fmt.Errorf("%w: longer than %d bytes", ErrBadURL, MaxURLBytes)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrBadURL, err)
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Errorf("%w: scheme must be http or https, not %q", ErrBadURL, u.Scheme)
	case u.Host == "" || u.Hostname() == "":
		return fmt.Errorf("%w: no host", ErrBadURL)
	case u.User != nil:
		return fmt.Errorf("%w: credentials in the URL would be stored and shown; use a header taken from the prober's environment", ErrBadURL)
	case u.Fragment != "" || strings.Contains(raw, "#"):
		return fmt.Errorf("%w: a fragment means nothing to a server", ErrBadURL)
	}
	if p := u.Port(); p != "" {
		if _, err := net.LookupPort("tcp", p); err != nil {
			return fmt.Errorf("%w: port %q", ErrBadURL, p)
		}
	}
	_, refused, err := g.Resolve(ctx, "tcp", u.Hostname())
	if err != nil {
		return err
	}
	if refused != nil {
		return fmt.Errorf("host %s: %w", u.Hostname(), refused)
	}
	return nil
}
