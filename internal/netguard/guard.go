// Package netguard keeps connections to servers registered by strangers (through the HTTP API)
// off the prober's own networks: loopback, private, link-local, carrier-grade NAT,
// unique-local, multicast and cloud metadata addresses are refused unless the operator allows
// their range. The check runs when a connection is dialled, on the address actually dialled,
// so neither a DNS answer that changes after registration (rebinding) nor a redirect to an
// internal URL gets round it: every connection of a guarded HTTP client goes through
// DialContext, redirects included.
package netguard

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"syscall"
	"time"
)

// ErrBlocked means an address (or every address of a name) is in a refused range.
var ErrBlocked = errors.New("netguard: address not allowed")

// Resolver looks names up; *net.Resolver is one.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// Config sets a Guard up. The zero value refuses every blocked range and resolves with the
// system resolver.
type Config struct {
	// Allow lists ranges that are reachable although blocked (an operator's own private
	// network, say).
	Allow []netip.Prefix
	// Resolver looks names up; default net.DefaultResolver.
	Resolver Resolver
	// Dialer makes the connections; default a dialer with a 10s timeout. Its Control, if
	// any, runs after the guard's own.
	Dialer *net.Dialer
}

// Guard checks addresses and dials only allowed ones. It is safe for concurrent use.
type Guard struct {
	allow    []netip.Prefix
	blocked  []blockedRange
	resolver Resolver
	dialer   net.Dialer
}

// New returns a guard for c.
func New(c Config) *Guard {
	g := &Guard{allow: append([]netip.Prefix(nil), c.Allow...), blocked: blockedRanges(), resolver: c.Resolver}
	if g.resolver == nil {
		g.resolver = net.DefaultResolver
	}
	if c.Dialer != nil {
		g.dialer = *c.Dialer
	} else {
		g.dialer = net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	}
	inner := g.dialer.Control
	g.dialer.Control = func(network, address string, rc syscall.RawConn) error {
		if err := g.Control(network, address, rc); err != nil {
			return err
		}
		if inner != nil {
			return inner(network, address, rc)
		}
		return nil
	}
	// The guard hands the dialer addresses, never names; a resolver on it would go unused.
	g.dialer.Resolver = nil
	return g
}

// ParseAllow reads a comma-separated list of CIDR ranges (or single addresses) for
// Config.Allow.
func ParseAllow(list string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, item := range strings.Split(list, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		if !strings.Contains(item, "/") {
			a, err := netip.ParseAddr(item)
			if err != nil {
				return nil, fmt.Errorf("netguard: allow %q: not an address or CIDR range", item)
			}
			out = append(out, netip.PrefixFrom(a, a.BitLen()))
			continue
		}
		p, err := netip.ParsePrefix(item)
		if err != nil {
			return nil, fmt.Errorf("netguard: allow %q: %w", item, err)
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

// Check returns nil when a may be connected to, else an error wrapping ErrBlocked that says
// which range it is in. An IPv6 address that carries an IPv4 one (see embedded4) is refused
// when either is: ::127.0.0.1 as loopback, as 127.0.0.1 would be.
func (g *Guard) Check(a netip.Addr) error {
	if !a.IsValid() {
		return fmt.Errorf("%w: invalid address", ErrBlocked)
	}
	plain := a.WithZone("")
	judged := []netip.Addr{plain}
	if v4, ok := embedded4(plain); ok {
		judged = append(judged, v4)
	}
	for _, p := range g.allow {
		for _, b := range judged {
			if p.Contains(b) {
				return nil
			}
		}
	}
	for _, b := range judged {
		for _, r := range g.blocked {
			if r.prefix.Contains(b) {
				if b != plain {
					return fmt.Errorf("%w: %s carries %s, which is %s", ErrBlocked, a, b, r.what)
				}
				return fmt.Errorf("%w: %s is %s", ErrBlocked, a, r.what)
			}
		}
	}
	return nil
}

// Control is a net.Dialer Control function: it refuses a connection whose address is not
// allowed, just before the connect system call.
func (g *Guard) Control(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: cannot judge address %q: %v", ErrBlocked, address, err)
	}
	return g.Check(ap.Addr())
}

// Resolve looks host up (or reads it as an address) for network ("tcp", "tcp4" or "tcp6")
// and returns its addresses split into allowed ones and the reason the first refused one was
// refused (nil when none was).
func (g *Guard) Resolve(ctx context.Context, network, host string) (allowed []netip.Addr, refused error, err error) {
	var addrs []netip.Addr
	if a, perr := netip.ParseAddr(strings.Trim(host, "[]")); perr == nil {
		addrs = []netip.Addr{a}
	} else {
		ipNet := "ip"
		switch network {
		case "tcp4":
			ipNet = "ip4"
		case "tcp6":
			ipNet = "ip6"
		}
		addrs, err = g.resolver.LookupNetIP(ctx, ipNet, host)
		if err != nil {
			return nil, nil, fmt.Errorf("netguard: resolve %q: %w", host, err)
		}
		if len(addrs) == 0 {
			return nil, nil, fmt.Errorf("netguard: resolve %q: no addresses", host)
		}
	}
	for _, a := range addrs {
		if cerr := g.Check(a); cerr != nil {
			if refused == nil {
				refused = cerr
			}
			continue
		}
		allowed = append(allowed, a)
	}
	return allowed, refused, nil
}

// DialContext connects to address ("host:port") over TCP like net.Dialer.DialContext, but
// only to allowed addresses: it resolves the name itself, drops refused addresses and dials
// the others in turn by address, and the dialer's Control checks each again at connect time.
func (g *Guard) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	switch network {
	case "tcp", "tcp4", "tcp6":
	default:
		return nil, fmt.Errorf("%w: network %q", ErrBlocked, network)
	}
	host, port, err := net.SplitHostPort(address)
	if err != nil {
		return nil, fmt.Errorf("netguard: dial %q: %w", address, err)
	}
	allowed, refused, err := g.Resolve(ctx, network, host)
	if err != nil {
		return nil, err
	}
	if len(allowed) == 0 {
		return nil, fmt.Errorf("netguard: dial %s: %w", address, refused)
	}
	var errs []error
	for _, a := range allowed {
		conn, err := g.dialer.DialContext(ctx, network, net.JoinHostPort(a.String(), port))
		if err == nil {
			return conn, nil
		}
		errs = append(errs, err)
		if ctx.Err() != nil {
			break
		}
	}
	return nil, fmt.Errorf("netguard: dial %s: %w", address, errors.Join(errs...))
}
