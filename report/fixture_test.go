package report

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/mcpwatch/mcpwatch/checks"
	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/protocol"
)

// The fixtures below are a stdio probe of a server that printed a banner to stdout and
// answered ping with a non-empty result, and an HTTP probe whose initialize got a 500.

const fixtureSecret = "Bearer sk-live-0123456789abcdef"

func ms(n float64) time.Duration { return time.Duration(n * float64(time.Millisecond)) }

func stdioResult() *probe.Result {
	msg := func(seq int, dir probe.Direction, at float64, raw string) probe.Frame {
		return probe.Frame{Seq: seq, Conn: 1, Dir: dir, Kind: probe.KindMessage, At: ms(at), Raw: []byte(raw)}
	}
	frames := []probe.Frame{
		msg(0, probe.Out, 0.5, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`),
		msg(1, probe.In, 40.25, "Server starting on stdio... \x1b[2J\x1b[31mPASS"),
		msg(2, probe.In, 41, `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"demo-server","version":"1.2.3"}}}`),
		msg(3, probe.Out, 41.5, `{"jsonrpc":"2.0","method":"notifications/initialized"}`),
		msg(4, probe.Out, 42, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`),
		msg(5, probe.In, 44, `{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"echo","inputSchema":{"type":"object"}}]}}`),
		msg(6, probe.Out, 45, `{"jsonrpc":"2.0","id":"mcpwatch-ping","method":"ping"}`),
		msg(7, probe.In, 45.75, `{"jsonrpc":"2.0","id":"mcpwatch-ping","result":{"pong":true}}`),
		msg(8, probe.Out, 46, `{"jsonrpc":"2.0","id":3,"method":"mcpwatch/unknown-method","params":{}}`),
		msg(9, probe.In, 47, "\xff\xfe{not utf8}"),
		{Seq: 10, Conn: 1, Dir: probe.In, Kind: probe.KindNote, At: ms(10047), Note: probe.NoteTimeout,
			Detail: "no answer to mcpwatch/unknown-method (id 3) within 10s"},
	}
	return &probe.Result{
		Target: "node server.js --stdio", Transport: protocol.TransportStdio,
		Requested: "2025-11-25", Negotiated: "2025-06-18", ProtocolVersion: "2025-06-18",
		Initialize: json.RawMessage(`{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"demo-server","version":"1.2.3"}}`),
		Steps: []probe.Step{
			{Name: probe.StepInitialize, Method: "initialize", Conn: 1, ID: "1", Request: 0, Response: 2, Latency: ms(40.5), Outcome: probe.OutcomeOK},
			{Name: probe.StepInitialized, Method: "notifications/initialized", Conn: 1, Request: 3, Response: -1, Outcome: probe.OutcomeSent},
			{Name: probe.StepToolsList, Method: "tools/list", Conn: 1, ID: "2", Page: 1, Request: 4, Response: 5, Latency: ms(2), Outcome: probe.OutcomeOK},
			{Name: probe.StepPing, Method: "ping", Conn: 1, ID: `"mcpwatch-ping"`, Request: 6, Response: 7, Latency: ms(0.75), Outcome: probe.OutcomeOK},
			{Name: probe.StepUnknownMethod, Method: probe.UnknownMethod, Conn: 1, ID: "3", Request: 8, Response: -1, Outcome: probe.OutcomeNoAnswer, Err: probe.ErrTimeout.Error()},
		},
		Frames: frames,
		Processes: []probe.ProcessInfo{{
			Conn: 1, PID: 4242, Started: true, Exited: true, ExitCode: 0, EndedBy: "stdin-eof",
			ShutdownAfter: ms(12), Stderr: []byte("listening on stdio\nwarning: config file missing\n"),
		}},
		InitializedAt: 3,
		Start:         time.Date(2026, 11, 22, 6, 50, 0, 0, time.UTC),
		Duration:      ms(10100),
	}
}

func stdioFindings() []checks.Finding {
	return []checks.Finding{
		{ID: "jsonrpc.parse", Status: checks.StatusPass, Area: "jsonrpc", Rule: "A1", Message: "ok"},
		{ID: "jsonrpc.version", Status: checks.StatusPass, Area: "jsonrpc", Rule: "A1", Message: "ok"},
		{ID: "lifecycle.ping", Status: checks.StatusFail, Severity: checks.SeverityError, Area: "lifecycle", Rule: "C6",
			Spec:    "https://modelcontextprotocol.io/specification/2025-06-18/basic/utilities/ping",
			Message: `ping: expected an empty result {}, got {"pong":true}`,
			Evidence: []checks.Evidence{{Severity: checks.SeverityError,
				Message: `ping: expected an empty result {}, got {"pong":true}`, Frames: []int{6, 7}}}},
		{ID: "tools.description", Status: checks.StatusWarn, Severity: checks.SeverityWarning, Area: "tools", Rule: "E",
			Message:  `tool "echo" has no description`,
			Evidence: []checks.Evidence{{Severity: checks.SeverityWarning, Message: `tool "echo" has no description`, Frames: []int{5}, Tool: "echo"}}},
		{ID: "stdio.stdout-purity", Status: checks.StatusFail, Severity: checks.SeverityError, Area: "stdio", Rule: "F1, F2, F4",
			Message: `stdout line is not a JSON-RPC message: "Server starting on stdio..." (and 1 more)`,
			Evidence: []checks.Evidence{
				{Severity: checks.SeverityError, Message: "stdout line is not a JSON-RPC message: \"Server starting on stdio... \x1b[2J\"", Frames: []int{1}},
				{Severity: checks.SeverityError, Message: "stdout line is not valid UTF-8", Frames: []int{9}},
			},
			Data: map[string]any{"moreEvidence": 3, "moreErrors": true}},
		{ID: "http.status", Status: checks.StatusSkip, Area: "http", Rule: "G3", Message: "applies to the http transport only"},
		{ID: "tools.fingerprint", Status: checks.StatusInfo, Area: "tools", Message: "sha256:9f86d081884c (1 tool)",
			Data: map[string]any{"hash": "sha256:9f86d081884c", "count": 1}},
	}
}

func httpInitFailedResult() *probe.Result {
	return &probe.Result{
		Target: "http://127.0.0.1:3901/mcp", Transport: protocol.TransportHTTP, Requested: "2025-11-25",
		Steps: []probe.Step{{Name: probe.StepInitialize, Method: "initialize", Conn: 1, ID: "1",
			Request: 0, Response: 1, Latency: ms(3.25), Outcome: probe.OutcomeTransport, HTTPStatus: 500,
			Err: probe.ErrUnanswered.Error()}},
		Frames: []probe.Frame{
			{Seq: 0, Conn: 1, Dir: probe.Out, Kind: probe.KindMessage, At: ms(1), Exchange: 1,
				Raw:  []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize"}`),
				HTTP: &probe.HTTPInfo{Method: "POST", URL: "http://127.0.0.1:3901/mcp", Header: http.Header{"Authorization": {fixtureSecret}}}},
			{Seq: 1, Conn: 1, Dir: probe.In, Kind: probe.KindHTTPResponse, At: ms(4.25), Exchange: 1,
				Raw: []byte("internal error: token " + fixtureSecret + " rejected"),
				HTTP: &probe.HTTPInfo{Status: 500, ContentType: "text/plain", Header: http.Header{
					"Content-Type": {"text/plain"}, "X-Echo": {fixtureSecret}},
					Timing: &probe.HTTPTiming{Connect: ms(0.5), FirstByte: ms(2), Total: ms(3.25)}}},
		},
		InitializedAt: -1,
		Start:         time.Date(2026, 11, 22, 6, 50, 0, 0, time.UTC),
		Duration:      ms(5),
		Err:           "initialize failed: HTTP status 500",
	}
}

func httpInitFailedFindings() []checks.Finding {
	return []checks.Finding{
		{ID: "lifecycle.initialize", Status: checks.StatusFail, Severity: checks.SeverityError, Area: "lifecycle", Rule: "C1, C2",
			Message: "initialize: expected HTTP 200 with an InitializeResult, got HTTP 500",
			Evidence: []checks.Evidence{{Severity: checks.SeverityError,
				Message: "initialize: expected HTTP 200 with an InitializeResult, got HTTP 500 \"internal error: token " + fixtureSecret + " rejected\"",
				Frames:  []int{0, 1}}}},
		{ID: "stdio.spawn", Status: checks.StatusSkip, Area: "stdio", Message: "applies to the stdio transport only"},
	}
}
