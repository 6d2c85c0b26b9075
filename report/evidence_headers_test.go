package report

import (
	"bytes"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpwatch/mcpwatch/checks"
	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/protocol"
)

// httpRuleResult is an HTTP probe with three rule probes, each one request and its answer:
// initialize from a foreign Origin answered 200 (2025-11-25 basic/transports, Security
// Warning: "If the Origin header is present and invalid, servers MUST respond with HTTP 403
// Forbidden"), tools/list without Mcp-Session-Id answered 200, and a request answered 401
// without WWW-Authenticate (RFC 9110 §11.6.1: a 401 "MUST send a WWW-Authenticate header").
func httpRuleResult() *probe.Result {
	const url = "http://127.0.0.1:3901/mcp"
	out := func(seq, exchange int, body string, h http.Header) probe.Frame {
		return probe.Frame{Seq: seq, Conn: 2, Dir: probe.Out, Kind: probe.KindMessage, Exchange: exchange, Raw: []byte(body),
			HTTP: &probe.HTTPInfo{Method: "POST", URL: url, Header: h}}
	}
	in := func(seq, exchange, status int, body string, h http.Header) probe.Frame {
		return probe.Frame{Seq: seq, Conn: 2, Dir: probe.In, Kind: probe.KindHTTPResponse, Exchange: exchange, Raw: []byte(body),
			HTTP: &probe.HTTPInfo{Status: status, ContentType: h.Get("Content-Type"), Header: h}}
	}
	return &probe.Result{
		Target: url, Transport: protocol.TransportHTTP, Requested: "2025-11-25", Negotiated: "2025-11-25", ProtocolVersion: "2025-11-25",
		Frames: []probe.Frame{
			out(0, 1, `{"jsonrpc":"2.0","id":1,"method":"initialize"}`, http.Header{
				"Origin": {probe.ForeignOrigin}, "Accept": {"application/json, text/event-stream"}}),
			in(1, 1, 200, `{}`, http.Header{"Content-Type": {"application/json"}}),
			out(2, 2, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, http.Header{"Mcp-Protocol-Version": {"2025-11-25"}}),
			in(3, 2, 200, `{}`, http.Header{"Content-Type": {"application/json"}}),
			out(4, 3, `{"jsonrpc":"2.0","id":3,"method":"initialize"}`, http.Header{}),
			in(5, 3, 401, ``, http.Header{"Content-Length": {"0"}}),
		},
	}
}

func httpRuleFindings() []checks.Finding {
	fail := func(id, msg string, frames ...int) checks.Finding {
		return checks.Finding{ID: id, Status: checks.StatusFail, Severity: checks.SeverityError, Area: "http", Message: msg,
			Evidence: []checks.Evidence{{Severity: checks.SeverityError, Message: msg, Frames: frames}}}
	}
	return []checks.Finding{
		fail("http.origin", "initialize with a foreign Origin: expected HTTP 403, got HTTP 200", 0, 1),
		fail("http.session", "a request without Mcp-Session-Id: expected HTTP 400, got HTTP 200", 2, 3),
		fail("auth.challenge", "a 401 without WWW-Authenticate", 4, 5),
	}
}

// HTTP evidence in the text and Markdown reports shows the headers the rule is about, on the
// request and on the answer, also when one is missing: the frame line alone shows neither.
func TestHTTPEvidenceShowsTheHeadersOfTheRule(t *testing.T) {
	r := Build(httpRuleResult(), httpRuleFindings(), BuildOptions{})
	want := []string{
		"Origin: " + probe.ForeignOrigin, // what the probe sent for http.origin
		"Mcp-Session-Id: (none)",         // the request of http.session carried none …
		"WWW-Authenticate: (none)",       // … and the 401 of auth.challenge carried none
		"Authorization: (none)",          // the probe sent no credentials
	}
	for _, format := range []string{"text", "markdown"} {
		f, _ := LookupFormat(format)
		var b bytes.Buffer
		if err := f.Write(&b, r, WriteOptions{}); err != nil {
			t.Fatal(err)
		}
		for _, w := range want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("%s report lacks %q:\n%s", format, w, b.String())
			}
		}
		// Headers no rule of these checks is about stay out of the evidence.
		if strings.Contains(strings.ToLower(b.String()), "mcp-protocol-version") {
			t.Errorf("%s report shows a header no cited rule is about:\n%s", format, b.String())
		}
	}
}
