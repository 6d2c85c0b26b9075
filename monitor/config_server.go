package monitor

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcpwatch/mcpwatch/internal/calls"
	"github.com/mcpwatch/mcpwatch/protocol"
	"github.com/mcpwatch/mcpwatch/store"
)

// validate checks one entry of servers by the rules every server follows
// (store/server_rules.go) and those of the file (a url or a command, and what belongs to
// each); ok is false when the entry has a problem, the decoder's included.
func (s *serverFile) validate(v *validator, at string, defaults ServerDefaults) (ServerConfig, bool) {
	before := len(v.errs)
	out := ServerConfig{
		Line: v.places.Of(at).Value.Line, Schedule: defaults.Schedule, Timeout: defaults.Timeout, Enabled: true,
		Labels: s.labels(v, at+".labels"),
	}
	s.identity(v, at, &out)
	out.Transport = s.transport(v, at)
	if s.URL != nil {
		out.Headers = s.headers(v, at+".headers")
	}
	if s.Command != nil {
		out.Command = s.command(v, at)
		out.Env = s.env(v, at+".env")
		if s.Dir != nil && v.text(at+".dir", *s.Dir) {
			out.Dir = *s.Dir
		}
	}
	if s.Schedule != nil && v.schedule(at+".schedule", *s.Schedule) {
		out.Schedule = *s.Schedule
	}
	if s.Timeout != nil && v.durationRange(at+".timeout", *s.Timeout, minTimeout, maxTimeout) {
		out.Timeout = time.Duration(*s.Timeout)
	}
	if s.Enabled != nil {
		out.Enabled = *s.Enabled
	}
	if s.Optional != nil {
		out.Optional = *s.Optional
	}
	out.Calls = s.calls(v, at+".calls", out.Timeout)
	return out, len(v.errs) == before && !v.refused(at)
}

// calls are the tool calls of a server, checked by the calls file's own decoder; a call may
// not outlast the probe it is part of.
func (s *serverFile) calls(v *validator, at string, probeTimeout time.Duration) []calls.Entry {
	if s.Calls == nil {
		return nil
	}
	if len(s.Calls) == 0 && !v.refused(at) {
		v.fail(at, "an empty list: leave calls out to call no tool, or list the calls the probe may make")
		return nil
	}
	for i, c := range s.Calls {
		if c.Timeout > probeTimeout {
			v.fail(fmt.Sprintf("%s[%d].timeout", at, i), "%v is longer than the server's probe timeout (%v), which every call is part of", c.Timeout, probeTimeout)
		}
	}
	return calls.Entries(s.Calls, at, v.fail)
}

// identity checks the name and the url.
func (s *serverFile) identity(v *validator, at string, out *ServerConfig) {
	switch {
	case s.Name != nil && v.text(at+".name", *s.Name):
		if err := store.CheckServerName(*s.Name); err != nil {
			v.fail(at+".name", "%v", err)
		}
		out.Name = *s.Name
	case s.Name == nil && !v.refused(at+".name"):
		v.fail(at+".name", "missing: every server needs a unique name")
	}
	if s.URL != nil && v.text(at+".url", *s.URL) {
		if err := store.CheckServerURL(*s.URL); err != nil {
			v.fail(at+".url", "%v", err)
		}
		out.URL = *s.URL
	}
}

// transport checks that the server is reached one way, and that the keys of the other way
// are left out; it returns the transport the file names for a URL server ("" when none, or
// for a stdio server).
func (s *serverFile) transport(v *validator, at string) string {
	httpOnly := []string{"headers"}
	stdioOnly := []string{"args", "env", "dir", "optional"}
	switch {
	case s.URL != nil && s.Command != nil:
		v.fail(at+".command", "a server has a url (HTTP) or a command (stdio), not both")
	case s.URL == nil && s.Command == nil:
		if !v.refused(at+".url") && !v.refused(at+".command") {
			v.fail(at, "missing url or command: give the URL of an HTTP server or the command of a stdio server")
		}
		if v.given(at + ".args") {
			v.failKey(at+".args", "args without a command")
		}
	case s.URL != nil:
		v.only(at, stdioOnly, "only a stdio server (one with a command) takes %s")
	default:
		v.only(at, httpOnly, "only an HTTP server (one with a url) takes %s")
	}
	if s.Transport == nil || !v.text(at+".transport", *s.Transport) {
		return ""
	}
	urls := store.URLTransports()
	switch t := *s.Transport; {
	case s.Command != nil && t == protocol.TransportStdio:
	case s.Command == nil && slices.Contains(urls, t):
		return t
	case s.Command != nil && slices.Contains(urls, t), s.Command == nil && t == protocol.TransportStdio:
		v.fail(at+".transport", "%q does not match the server: a server with a url is %s, one with a command %q",
			t, quotedList(urls), protocol.TransportStdio)
	default:
		v.fail(at+".transport", "unknown transport %q: a server with a url is %s (%q is the legacy HTTP+SSE transport of 2024-11-05), one with a command %q",
			t, quotedList(urls), protocol.TransportSSE, protocol.TransportStdio)
	}
	return ""
}

// quotedList is "a", "b" or "c".
func quotedList(items []string) string {
	q := make([]string, len(items))
	for i, it := range items {
		q[i] = strconv.Quote(it)
	}
	if len(q) < 2 {
		return strings.Join(q, "")
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}

// only reports each of keys the entry at has, which its transport does not take.
func (v *validator) only(at string, keys []string, format string) {
	for _, k := range keys {
		if v.given(at + "." + k) {
			v.failKey(at+"."+k, format, k)
		}
	}
}

// command is the command line of a stdio server: command, then args.
func (s *serverFile) command(v *validator, at string) []string {
	cmd := append([]string(nil), *s.Command...)
	for i, a := range cmd {
		if !v.text(fmt.Sprintf("%s.command[%d]", at, i), a) {
			return nil
		}
	}
	if len(cmd) == 0 || cmd[0] == "" {
		v.fail(at+".command", "the command is empty")
		return nil
	}
	for i, a := range s.Args {
		if !v.text(fmt.Sprintf("%s.args[%d]", at, i), a) {
			return nil
		}
	}
	return append(cmd, s.Args...)
}

// headers are the headers of an HTTP server, each read from the environment.
func (s *serverFile) headers(v *validator, at string) []store.HeaderRef {
	var out []store.HeaderRef
	for _, e := range s.Headers {
		f := at + "." + e.Key
		if err := store.CheckHeaderName(e.Key); err != nil {
			v.failKey(f, "%v", err)
			continue
		}
		h := store.HeaderRef{Name: e.Key, FromEnv: v.envName(f+".from-env", e.Value.FromEnv)}
		if v.text(f+".prefix", e.Value.Prefix) {
			if err := store.CheckHeaderPrefix(e.Value.Prefix); err != nil {
				v.fail(f+".prefix", "%v", err)
			}
			h.Prefix = e.Value.Prefix
		}
		if h.FromEnv == "" {
			continue
		}
		out = append(out, h)
		if i := store.DuplicateHeader(out); i >= 0 {
			v.failKey(f, "%s is given twice (header names are case-insensitive)", e.Key)
			out = out[:i]
		}
	}
	return out
}

// env is the environment of a stdio server: values, or names of the prober's variables.
func (s *serverFile) env(v *validator, at string) []store.EnvVar {
	var out []store.EnvVar
	for _, e := range s.Env {
		f := at + "." + e.Key
		if err := store.CheckEnvName(e.Key); err != nil {
			v.failKey(f, "%v", err)
			continue
		}
		ev := store.EnvVar{Name: e.Key}
		switch {
		case e.Value.Value != nil:
			if !v.text(f, *e.Value.Value) {
				continue
			}
			ev.Value = *e.Value.Value
		default:
			if ev.FromEnv = v.envName(f+".from-env", e.Value.FromEnv); ev.FromEnv == "" {
				continue
			}
		}
		out = append(out, ev)
	}
	return out
}

// labels are the labels of a server; nil for none.
func (s *serverFile) labels(v *validator, at string) map[string]string {
	if len(s.Labels) == 0 {
		return nil
	}
	out := map[string]string{}
	for key, value := range s.Labels {
		f := at + "." + key
		if err := store.CheckLabelKey(key); err != nil {
			v.add(v.places.Of(f).Key, v.places.Of(at).Written, "a key %v", err)
			continue
		}
		if !v.text(f, value) {
			continue
		}
		if err := store.CheckLabelValue(value); err != nil {
			v.fail(f, "%v", err)
			continue
		}
		out[key] = value
	}
	return out
}

// envName is the name of one of the prober's environment variables at path; "" when it is
// missing or not one.
func (v *validator) envName(path string, name *string) string {
	if name == nil {
		if !v.refused(path) {
			v.fail(path, "missing: name the environment variable that holds the value")
		}
		return ""
	}
	if !v.text(path, *name) {
		return ""
	}
	if err := store.CheckFromEnv(*name); err != nil {
		v.fail(path, "%v", err)
		return ""
	}
	return *name
}
