package main

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/textproto"
	"slices"
	"strings"

	"github.com/mcpwatch/mcpwatch/internal/httptoken"
	"github.com/mcpwatch/mcpwatch/probe"
)

// targetOf reads the URL or the command from what is left of the command line once the
// flags are parsed.
func targetOf(positional, command []string, sawDashes bool) (probe.Target, error) {
	var t probe.Target
	switch {
	case sawDashes && len(command) == 0:
		return t, errors.New("nothing after --: give the server command, e.g. prober check -- npx -y my-mcp-server")
	case len(positional) > 0 && !isHTTPURL(positional[0]):
		return t, notAURL(positional)
	case len(positional) > 0 && sawDashes:
		return t, fmt.Errorf("give either a URL or a command after --, not both (got URL %q and command %q)", positional[0], command[0])
	case len(positional) > 1:
		return t, fmt.Errorf("unexpected argument %q after the URL (a stdio command goes after --)", positional[1])
	case len(positional) == 1:
		t.URL = positional[0]
	case sawDashes:
		t.Command = command
	default:
		return t, errors.New("give the server to probe: a URL, or a command after --")
	}
	return t, nil
}

func isHTTPURL(s string) bool {
	s = strings.ToLower(s)
	return strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://")
}

// parseHeaders reads "Name: value" flags. Errors name the flag by position, never by value.
func parseHeaders(raw []string) (h http.Header, names, secrets []string, err error) {
	for i, kv := range raw {
		name, value, ok := strings.Cut(kv, ":")
		name = strings.TrimSpace(name)
		if !ok || !httptoken.Valid(name) {
			return nil, nil, nil, fmt.Errorf("--header #%d is not in the form 'Name: value' (its value is not shown)", i+1)
		}
		value = strings.TrimSpace(value)
		if strings.ContainsAny(value, "\r\n\x00") {
			return nil, nil, nil, fmt.Errorf("--header %s: the value contains a line break or NUL (the value is not shown)", name)
		}
		if h == nil {
			h = http.Header{}
		}
		name = textproto.CanonicalMIMEHeaderKey(name)
		h.Add(name, value)
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
		secrets = append(secrets, value)
	}
	return h, names, secrets, nil
}

// parseEnv reads KEY=VALUE flags. Values of keys that look like credentials are secrets.
func parseEnv(raw []string) (env, secrets []string, err error) {
	for i, kv := range raw {
		key, value, ok := strings.Cut(kv, "=")
		if !ok || key == "" || strings.ContainsAny(key, " \t\x00") {
			return nil, nil, fmt.Errorf("--env #%d is not in the form KEY=VALUE (its value is not shown)", i+1)
		}
		env = append(env, kv)
		if secretName(key) {
			secrets = append(secrets, value)
		}
	}
	return env, secrets, nil
}

// secretName guesses whether an environment variable holds a credential.
func secretName(key string) bool {
	k := strings.ToUpper(key)
	for _, word := range []string{"TOKEN", "SECRET", "PASSWORD", "PASSWD", "API_KEY", "APIKEY", "ACCESS_KEY", "PRIVATE_KEY", "CREDENTIAL", "AUTH"} {
		if strings.Contains(k, word) {
			return true
		}
	}
	return false
}

func splitIDs(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func parseLevel(s string) (slog.Level, error) {
	switch strings.ToLower(s) {
	case "debug":
		return slog.LevelDebug, nil
	case "info":
		return slog.LevelInfo, nil
	case "warn", "warning":
		return slog.LevelWarn, nil
	case "error":
		return slog.LevelError, nil
	}
	return 0, fmt.Errorf("--log-level %q: want debug, info, warn or error", s)
}
