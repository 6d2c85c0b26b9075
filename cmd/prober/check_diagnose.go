package main

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/mcpwatch/mcpwatch/internal/textclip"
	"github.com/mcpwatch/mcpwatch/probe"
)

// stderrTailLines is how many of the server's last stderr lines an error shows: enough for
// a stack trace's head or a "missing API key", few enough to read at a glance.
const stderrTailLines = 8

// diagnosis is what prober check says when the probe never got a server to talk: why, in a
// line that the report's probe error carries too, and what to read or do next.
type diagnosis struct {
	hint   string   // appended to the probe error: what to change
	stderr []string // the server's last stderr lines (stdio), shown on stderr only
}

// diagnose looks at a probe whose main connection's handshake failed and says what most
// likely went wrong: a server slower to start than --init-timeout (with the tail of its
// stderr), or a URL that is not the MCP endpoint (404). The zero diagnosis when it has
// nothing to add (the handshake succeeded, the probe was interrupted, another failure).
func diagnose(res *probe.Result, initTimeout time.Duration) diagnosis {
	if res.Interrupted > 0 || res.Initialize != nil || res.Discover != nil {
		return diagnosis{}
	}
	st, ok := mainHandshake(res)
	if !ok {
		return diagnosis{}
	}
	switch {
	case st.Outcome == probe.OutcomeNoAnswer && st.Err != "" && strings.Contains(st.Err, "timed out"):
		d := diagnosis{hint: fmt.Sprintf("the server did not answer %s within --init-timeout %s; if it is slow to start (npx, go run, loading a model), raise it: --init-timeout %s",
			st.Method, durationText(initTimeout), durationText(max(2*initTimeout, 2*time.Minute)))}
		if p, ok := res.ProcessOf(probe.ConnMain); ok {
			d.stderr = lastLines(string(p.Stderr), stderrTailLines)
		}
		return d
	case st.HTTPStatus == http.StatusNotFound:
		return diagnosis{hint: notFoundHint(res.Target)}
	}
	return diagnosis{}
}

// mainHandshake is the step that opened, or failed to open, the main connection: its
// initialize, or a stateless server's server/discover when no initialize was sent.
func mainHandshake(res *probe.Result) (probe.Step, bool) {
	var discover *probe.Step
	for i, st := range res.Steps {
		if st.Conn != probe.ConnMain {
			continue
		}
		switch st.Name {
		case probe.StepInitialize:
			return st, true
		case probe.StepDiscover:
			if discover == nil {
				discover = &res.Steps[i]
			}
		}
	}
	if discover != nil {
		return *discover, true
	}
	return probe.Step{}, false
}

// notFoundHint suggests the paths MCP servers usually serve their endpoint at, on the
// target's origin, leaving out the one that just answered 404.
func notFoundHint(target string) string {
	u, err := url.Parse(target)
	if err != nil || u.Host == "" {
		return "nothing is served at this URL: is it the MCP endpoint? Servers usually serve it at /mcp (Streamable HTTP) or /sse (legacy HTTP+SSE)"
	}
	var try []string
	for _, path := range []string{"/mcp", "/sse"} {
		if strings.TrimSuffix(u.Path, "/") == path {
			continue
		}
		v := url.URL{Scheme: u.Scheme, Host: u.Host, Path: path}
		try = append(try, v.String())
	}
	return fmt.Sprintf("nothing is served at this URL (404): is it the MCP endpoint? Servers usually serve it at /mcp (Streamable HTTP) or /sse (legacy HTTP+SSE): try %s",
		strings.Join(try, " or "))
}

// lastLines is the last n non-empty lines of s, each clipped to a terminal's width.
func lastLines(s string, n int) []string {
	var out []string
	for _, line := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		if line = strings.TrimRight(line, "\r"); strings.TrimSpace(line) != "" {
			out = append(out, textclip.Runes(oneLine(line), 120))
		}
	}
	return out[max(0, len(out)-n):]
}

// write prints the diagnosis on stderr: the hint, then the stderr tail.
func (d diagnosis) write(e environment, redact func(string) string) {
	if d.hint == "" {
		return
	}
	fmt.Fprintf(e.stderr, "prober check: %s\n", redact(d.hint))
	if len(d.stderr) == 0 {
		return
	}
	fmt.Fprintln(e.stderr, "prober check: the server's stderr ended with:")
	for _, line := range d.stderr {
		fmt.Fprintf(e.stderr, "  │ %s\n", redact(line))
	}
}
