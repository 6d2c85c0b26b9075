package main

import (
	"errors"
	"flag"
	"fmt"
	"net"
	"net/url"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/mcpwatch/mcpwatch/internal/similar"
	"github.com/mcpwatch/mcpwatch/internal/units"
)

// Usage errors that point the right way: what the user most likely meant, spelled out.

// explainFlagError adds to an error of the flag package what the user most likely meant: the
// flag of that name that exists (--init-timout: --init-timeout), or a duration's unit (5:
// 5s).
func explainFlagError(err error, fs *flag.FlagSet) error {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		if near := nearestFlag(fs, name); near != "" {
			return fmt.Errorf("%w; did you mean --%s?", err, near)
		}
		return err
	}
	// invalid value "5" for flag -timeout: ...
	rest, ok := strings.CutPrefix(msg, "invalid value ")
	if !ok {
		return err
	}
	value, rest, ok := cutQuoted(rest)
	if !ok {
		return err
	}
	name, _, _ := strings.Cut(strings.TrimPrefix(rest, " for flag -"), ":")
	f := fs.Lookup(name)
	if f == nil {
		return err
	}
	if _, isDuration := f.Value.(*units.Duration); isDuration {
		if n, perr := strconv.ParseFloat(value, 64); perr == nil && n > 0 {
			return fmt.Errorf("%w; a duration needs a unit: did you mean --%s %ss?", err, name, value)
		}
	}
	return err
}

// cutQuoted splits a Go-quoted string off the start of s.
func cutQuoted(s string) (value, rest string, ok bool) {
	q, err := strconv.QuotedPrefix(s)
	if err != nil {
		return "", s, false
	}
	value, err = strconv.Unquote(q)
	return value, s[len(q):], err == nil
}

// nearestFlag is the flag whose name is closest to name: within two edits (a typo, a
// letter missing or swapped), or the only one that name begins or ends. "" when none is
// close.
func nearestFlag(fs *flag.FlagSet, name string) string {
	type candidate struct {
		name string
		dist int
	}
	var near []candidate
	var prefixed []string
	fs.VisitAll(func(f *flag.Flag) {
		if len(f.Name) < 3 {
			return // -o, -v, -H: suggesting those for a typo is more confusing than helpful
		}
		if d := similar.Distance(strings.ToLower(name), f.Name); d <= 2 && d < len(f.Name)/2 {
			near = append(near, candidate{f.Name, d})
		}
		if len(name) >= 3 && (strings.HasPrefix(f.Name, name) || strings.HasSuffix(f.Name, name)) {
			prefixed = append(prefixed, f.Name)
		}
	})
	if len(near) > 0 {
		sort.Slice(near, func(i, j int) bool {
			return near[i].dist < near[j].dist || (near[i].dist == near[j].dist && near[i].name < near[j].name)
		})
		return near[0].name
	}
	if len(prefixed) == 1 {
		return prefixed[0]
	}
	return ""
}

// notAURL explains a first argument that is not an http(s) URL: one that looks like a host
// (127.0.0.1:8080/mcp, example.com/mcp, localhost:3000) is a URL missing its scheme; anything
// else is taken for a stdio command missing its --.
func notAURL(positional []string) error {
	arg := positional[0]
	if scheme, _, ok := strings.Cut(arg, "://"); ok {
		return fmt.Errorf("%q: the scheme %q is not http or https; MCP servers are probed over http(s) or, with a command after --, over stdio", arg, scheme)
	}
	if len(positional) == 1 && looksLikeHost(arg) {
		return fmt.Errorf("%q has no scheme: did you mean http://%s (or https://%s)? A stdio server's command goes after --: prober check -- %s", arg, arg, arg, arg)
	}
	return fmt.Errorf("%q is not an http(s) URL; to start a stdio server put its command after --: prober check -- %s",
		arg, strings.Join(positional, " "))
}

// looksLikeHost reports whether s reads as host[:port][/path] rather than a command: its
// host is localhost, an IP address or a dotted name, or it has a port; and no such file
// exists (server.py is a script, not a host).
func looksLikeHost(s string) bool {
	if strings.HasPrefix(s, "/") || strings.HasPrefix(s, ".") || strings.ContainsAny(s, " \t") {
		return false
	}
	if _, err := os.Stat(s); err == nil || !errors.Is(err, os.ErrNotExist) {
		return false
	}
	u, err := url.Parse("http://" + s)
	if err != nil || u.Host == "" {
		return false
	}
	host, port := u.Hostname(), u.Port()
	if port != "" {
		if _, err := strconv.ParseUint(port, 10, 16); err != nil {
			return false
		}
	}
	return port != "" || host == "localhost" || net.ParseIP(host) != nil || strings.Contains(strings.Trim(host, "."), ".")
}
