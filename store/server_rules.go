package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/mcpwatch/mcpwatch/internal/envname"
	"github.com/mcpwatch/mcpwatch/internal/httptoken"
	"github.com/mcpwatch/mcpwatch/protocol"
)

// The rules a server definition follows wherever it comes from: the configuration file,
// `prober servers add` or the HTTP API. Each rule is a function of one value, so that the
// configuration file can report a problem at the line and column of that value; Validate
// applies them all. What a source adds for its own callers (the API's limits for strangers,
// the schedule grammar the monitor reads) is layered on top by that source.

// URLTransports are the transports of a server reached by a URL, as every source may name
// them: Streamable HTTP, the legacy HTTP+SSE transport of 2024-11-05 (the URL is its
// event-stream endpoint), and auto, which has each probe tell the two apart.
func URLTransports() []string {
	return []string{protocol.TransportHTTP, protocol.TransportSSE, protocol.TransportAuto}
}

// Bounds of a server's probe timeout: shorter cannot complete a handshake, longer holds a
// worker's slot (and its lease) for nothing.
const (
	MinServerTimeout = 100 * time.Millisecond
	MaxServerTimeout = 10 * time.Minute
	// MaxScheduleEvery is the longest "@every" interval of a schedule: the worker refuses a
	// longer one, so no writer may store it.
	MaxScheduleEvery = 31 * 24 * time.Hour
)

var (
	// A name is a path segment of the API, the dashboard and the badges, and a label of
	// metrics: a short word of ASCII letters, digits and . _ -.
	serverNamePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)
	// A label key is also a filter's key (key:value) and a metrics label.
	labelKeyPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._/-]{0,63}$`)
)

// ErrReservedHeader is wrapped by CheckHeaderName's refusal of a header the prober sets.
var ErrReservedHeader = errors.New("set by the prober")

// ErrCallsNotFromConfig refuses tool calls on a server of any source but the configuration
// file: a call may charge a card or delete a row, so only the operator may have the monitor
// make one.
var ErrCallsNotFromConfig = errors.New("only a server of the configuration file may have tool calls")

// errControl is the problem of a one-line value holding a control character.
var errControl = errors.New("holds a NUL or another control character")

// HasControl reports whether s holds a C0 control character (NUL, a line break, a tab...) or
// DEL: none belongs in a one-line name, label or header, and the database refuses NUL.
func HasControl(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f })
}

// CheckServerName accepts 1-64 ASCII letters, digits and . _ - starting with a letter or
// digit.
func CheckServerName(name string) error {
	switch {
	case name == "":
		return errors.New("empty")
	case HasControl(name):
		return errControl
	case !serverNamePattern.MatchString(name):
		return fmt.Errorf("%q is not a server name: 1-64 letters, digits and . _ - starting with a letter or digit", name)
	}
	return nil
}

// CheckServerURL accepts an absolute http or https URL without credentials (those go in
// headers read from the environment, never stored).
func CheckServerURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("not a URL: %v", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("%q is not an http:// or https:// URL", raw)
	}
	if u.Host == "" {
		return fmt.Errorf("%q has no host", raw)
	}
	if u.User != nil {
		return errors.New("credentials do not belong in the URL: use headers with fromEnv")
	}
	return nil
}

// CheckServerTimeout accepts a probe timeout within [MinServerTimeout, MaxServerTimeout].
func CheckServerTimeout(d time.Duration) error {
	if d < MinServerTimeout || d > MaxServerTimeout {
		return fmt.Errorf("%v is out of range [%v, %v]", d, MinServerTimeout, MaxServerTimeout)
	}
	return nil
}

// CheckHeaderName accepts an HTTP field name that the prober does not set itself: a
// server's header cannot replace the session, the protocol version or the framing.
func CheckHeaderName(name string) error {
	if !httptoken.Valid(name) {
		return fmt.Errorf("%q is not a valid HTTP header name", name)
	}
	if reservedHeader(name) {
		return fmt.Errorf("%s is %w", name, ErrReservedHeader)
	}
	return nil
}

// reservedHeader reports the headers set by the prober or the HTTP layer.
func reservedHeader(name string) bool {
	switch strings.ToLower(name) {
	case "host", "content-length", "content-type", "transfer-encoding", "connection", "upgrade",
		"te", "trailer", "keep-alive", "proxy-authorization", "proxy-connection", "accept",
		"last-event-id":
		return true
	}
	return strings.EqualFold(name, protocol.HeaderSessionID) || strings.EqualFold(name, protocol.HeaderProtocolVersion)
}

// CheckHeaderPrefix accepts the text put before a header's value: it is sent on the
// header's line, which a control character would break.
func CheckHeaderPrefix(prefix string) error {
	if HasControl(prefix) {
		return errControl
	}
	return nil
}

// DuplicateHeader returns the index of the first header whose name an earlier one has
// already (field names are case-insensitive), or -1.
func DuplicateHeader(hs []HeaderRef) int {
	for i := range hs {
		for j := range i {
			if strings.EqualFold(hs[i].Name, hs[j].Name) {
				return i
			}
		}
	}
	return -1
}

// CheckFromEnv accepts the name of one of the prober's environment variables that holds a
// secret (a header's value, a stdio server's variable): the portable shell form in upper
// case, as an operator exports it.
func CheckFromEnv(name string) error {
	if !envname.Valid(name) {
		return fmt.Errorf("%q is not an environment variable name", name)
	}
	if strings.ToUpper(name) != name {
		return fmt.Errorf("%q: name the prober's environment variable in upper case (A-Z, 0-9 and _)", name)
	}
	return nil
}

// CheckEnvName accepts the name of a variable set for a stdio server: the portable shell
// form, in any case (the server decides which it reads).
func CheckEnvName(name string) error {
	if !envname.Valid(name) {
		return fmt.Errorf("%q is not an environment variable name", name)
	}
	return nil
}

// CheckLabelKey accepts 1-64 letters, digits and . _ / - starting with a letter or digit.
func CheckLabelKey(key string) error {
	if HasControl(key) {
		return errControl
	}
	if !labelKeyPattern.MatchString(key) {
		return fmt.Errorf("%q must be 1-64 letters, digits and . _ / -", key)
	}
	return nil
}

// CheckLabelValue accepts one line of text.
func CheckLabelValue(value string) error {
	if HasControl(value) {
		return errControl
	}
	return nil
}

// Validate reports what makes a server unstorable or unprobeable by the rules above,
// wrapping ErrInvalidServer. The schedule is only required here: its grammar is the
// monitor's.
func (v Server) Validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w %q: %s", ErrInvalidServer, v.Name, fmt.Sprintf(format, args...))
	}
	if err := CheckServerName(v.Name); err != nil {
		return bad("name: %v", err)
	}
	switch {
	case v.Source == "":
		return bad("empty source")
	case v.Transport == "":
		return bad("empty transport")
	case v.Schedule == "":
		return bad("empty schedule")
	case v.Transport == protocol.TransportStdio && (v.Command == "" || v.URL != ""):
		return bad("a stdio server needs a command and no URL")
	case v.Transport != protocol.TransportStdio && !slices.Contains(URLTransports(), v.Transport):
		return bad("unknown transport %q (want stdio or one of %s)", v.Transport, strings.Join(URLTransports(), ", "))
	case v.Transport != protocol.TransportStdio && (v.URL == "" || v.Command != "" || len(v.Args) > 0 || len(v.Env) > 0 || v.Dir != ""):
		return bad("a %s server needs a URL and no command, args, env or dir", v.Transport)
	}
	if err := CheckServerTimeout(v.Timeout); err != nil {
		return bad("timeout: %v", err)
	}
	if v.Transport != protocol.TransportStdio {
		if err := CheckServerURL(v.URL); err != nil {
			return bad("url: %v", err)
		}
	}
	for i, h := range v.Headers {
		if err := CheckHeaderName(h.Name); err != nil {
			return bad("headers[%d].name: %v", i, err)
		}
		if h.FromEnv == "" {
			return bad("header %s must name the environment variable holding its value", h.Name)
		}
		if err := CheckFromEnv(h.FromEnv); err != nil {
			return bad("header %s: fromEnv: %v", h.Name, err)
		}
		if err := CheckHeaderPrefix(h.Prefix); err != nil {
			return bad("header %s: prefix: %v", h.Name, err)
		}
	}
	if i := DuplicateHeader(v.Headers); i >= 0 {
		return bad("header %s is given twice (header names are case-insensitive)", v.Headers[i].Name)
	}
	for _, e := range v.Env {
		if err := CheckEnvName(e.Name); err != nil {
			return bad("env: %v", err)
		}
		if e.Value != "" && e.FromEnv != "" {
			return bad("environment variable %s needs a value or fromEnv, not both", e.Name)
		}
		if e.FromEnv != "" {
			if err := CheckFromEnv(e.FromEnv); err != nil {
				return bad("env %s: fromEnv: %v", e.Name, err)
			}
		}
	}
	if len(v.Calls) > 0 {
		if v.Source != SourceConfig {
			return bad("calls: %v", ErrCallsNotFromConfig)
		}
		var list []json.RawMessage
		if err := json.Unmarshal(v.Calls, &list); err != nil {
			return bad("calls: not a JSON array: %v", err)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(v.Labels)) {
		val := v.Labels[k]
		if err := CheckLabelKey(k); err != nil {
			return bad("labels: key %v", err)
		}
		if err := CheckLabelValue(val); err != nil {
			return bad("labels: value of %s %v", k, err)
		}
	}
	return nil
}
