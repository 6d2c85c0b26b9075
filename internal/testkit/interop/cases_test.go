//go:build linux

package interop

import (
	"os"
	"testing"

	"github.com/mcpwatch/mcpwatch/checks"
	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/protocol"
)

// The tool lists of the servers, as their sources define them (server-everything
// 2026.8.31 dist/tools/index.js registers 13 without options; go-sdk v1.8.0
// examples/server/everything/main.go adds 10; mcp-go v1.2.1 examples/everything/main.go adds 6
// and examples/conformance/main.go 12).
const (
	serverEverythingTools = 13
	goSDKEverythingTools  = 10
	mcpGoEverythingTools  = 6
	mcpGoConformanceTools = 12
)

// goSDKBadToolNames are the go-sdk everything tools whose names break the 2025-11-25 rule
// ^[A-Za-z0-9_.-]{1,128}$ (spaces and parentheses).
var goSDKBadToolNames = []string{
	"greet (structured)", "greet (with Icons)", "greet (content with ResourceLink)",
	"elicit (form)", "elicit (url)",
}

func serverCases() []serverCase {
	return []serverCase{
		{
			name:       "server-everything/stdio",
			target:     serverEverythingStdio,
			negotiated: protocol.Revision20251125,
			tools:      serverEverythingTools,
			known:      serverEverythingStdioKnown(),
			more:       serverEverythingListChanged,
		},
		{
			name:       "server-everything/http",
			target:     serverEverythingHTTP,
			negotiated: protocol.Revision20251125,
			tools:      serverEverythingTools,
			known:      serverEverythingHTTPKnown(),
		},
		{
			name:       "go-sdk-everything/stdio",
			target:     goSDKEverythingStdio,
			negotiated: protocol.Revision20260728,
			tools:      goSDKEverythingTools,
			known:      append(goSDKEverythingKnown(), dualEraMetaOverStdio, goSDKStdioDiesOfGarbage, goSDKStdioIgnoresMethodless),
		},
		{
			name:       "go-sdk-everything/http",
			target:     goSDKEverythingHTTP,
			negotiated: protocol.Revision20251125,
			tools:      goSDKEverythingTools,
			known:      append(goSDKEverythingHTTPKnown(), answersWithEventStreams, streamsWithoutPriming),
		},
		{
			name:       "mcp-go-everything/stdio",
			target:     func(t *testing.T) probe.Target { return probe.Target{Command: []string{goServer(t, MCPGoEverything)}} },
			negotiated: protocol.Revision20260728,
			tools:      mcpGoEverythingTools,
			known: append(mcpGoEverythingKnown(), dualEraMetaOverStdio,
				known{id: "lifecycle.invalid-request", status: checks.StatusWarn,
					why: "a request without a method gets -32601 for the method \"\", not -32600"}),
		},
		{
			name: "mcp-go-everything/http",
			target: func(t *testing.T) probe.Target {
				// The example has no address flag: it listens on :8080, every interface.
				if !PortFree(":8080") {
					msg := "port 8080 is taken; mcp-go's everything example can listen nowhere else"
					if os.Getenv("CI") == "true" {
						t.Fatal(msg)
					}
					t.Skip(msg)
				}
				startHTTP(t, ServerSpec{Command: []string{goServer(t, MCPGoEverything), "-t", "http"}, Ready: "127.0.0.1:8080"})
				return probe.Target{URL: "http://127.0.0.1:8080/mcp"}
			},
			negotiated: protocol.Revision20260728,
			tools:      mcpGoEverythingTools,
			known:      append(mcpGoEverythingKnown(), answersWithJSON, methodlessTakenAsResponse, acceptsForeignOrigin, deletedSessionServed),
		},
		{
			name:       "mcp-go-conformance/http",
			target:     mcpGoConformanceHTTP,
			negotiated: protocol.Revision20260728,
			tools:      mcpGoConformanceTools,
			known: []known{
				{id: "jsonrpc.id-echo", status: checks.StatusPass, why: "answers are matched by id, not by order"},
				unknownResourceNoURIData,
				answersWithJSON,
				methodlessTakenAsResponse,
				acceptsForeignOrigin,
				deletedSessionServed,
				promptsGot, promptMissingArgumentServed, completionValues, logsOnlyDeclared,
			},
		},
	}
}

// commonKnown is what every server here does right, so those checks must pass on each: a
// finding that turns to skip or fail on all of them means the probe or the check broke. What
// that is depends on the era the server was probed in: the session era (initialize) or the
// stateless one (server/discover, 2026-07-28).
func commonKnown(transport, revision string) []known {
	ks := []known{
		{id: "lifecycle.initialize", status: checks.StatusPass, why: "initialize succeeds"},
		{id: "lifecycle.initialize-result", status: checks.StatusPass, why: "a valid InitializeResult"},
		{id: "lifecycle.version-negotiation", status: checks.StatusPass,
			why: "asked for 1900-01-01 each answers 2025-11-25, a revision of its own (C3)"},
		{id: "lifecycle.ping", status: checks.StatusPass, why: "ping gets {}"},
		{id: "discover.result", status: checks.StatusSkip, why: "a session-era server has no server/discover to judge"},
		{id: "tools.list", status: checks.StatusPass, why: "a valid ListToolsResult"},
		{id: "tools.fingerprint", status: checks.StatusInfo, why: "the tool surface is hashed"},
		{id: "lifecycle.version-support", status: checks.StatusInfo, why: "what the server accepted is told"},
	}
	// Every real server here leaves out some metadata a client shows (tool titles or
	// annotations, argument descriptions, a server title or instructions). All of it is
	// optional in every revision's schema and no sentence asks for it: advice, which warns.
	lacksMetadata := known{id: "quality.metadata", status: checks.StatusWarn,
		why: "optional titles, annotations, descriptions or instructions are missing (advice: no keyword requires them)"}
	ks = append(ks, lacksMetadata)
	if protocol.Stateless(revision) {
		ks = []known{
			lacksMetadata,
			{id: "discover.result", status: checks.StatusPass, why: "server/discover returns a DiscoverResult naming 2026-07-28"},
			{id: "discover.unsupported-version", status: checks.StatusPass, why: "an unsupported revision gets -32022 with data.supported"},
			{id: "results.result-type", status: checks.StatusPass, why: `every result says resultType "complete"`},
			{id: "results.cache-hints", status: checks.StatusPass, why: "list results carry ttlMs and cacheScope"},
			{id: "lifecycle.initialize", status: checks.StatusSkip, why: "2026-07-28 has no initialize"},
			{id: "lifecycle.ping", status: checks.StatusSkip, why: "2026-07-28 removed ping"},
			{id: "lifecycle.unknown-method", status: checks.StatusPass, why: "an unknown method gets -32601 (over HTTP with 404, as 2026-07-28 prescribes)"},
			{id: "tools.list", status: checks.StatusPass, why: "a valid ListToolsResult of 2026-07-28"},
			{id: "tools.fingerprint", status: checks.StatusInfo, why: "the tool surface is hashed"},
			{id: "lifecycle.version-support", status: checks.StatusInfo, why: "server/discover lists what the server accepts"},
		}
	}
	switch transport {
	case protocol.TransportStdio:
		ks = append(ks,
			known{id: "stdio.stdout-purity", status: checks.StatusPass, why: "logs go to stderr"},
			known{id: "stdio.shutdown", status: checks.StatusPass, why: "each exits when stdin closes"})
	case protocol.TransportHTTP:
		ks = append(ks, known{id: "http.content-type", status: checks.StatusPass, why: "JSON or event-stream answers"})
	case protocol.TransportSSE:
		ks = append(ks,
			known{id: "sse.endpoint-event", status: checks.StatusPass, why: "the stream opens with an endpoint event on its own origin"},
			known{id: "sse.message-events", status: checks.StatusPass, why: "answers come as message events"},
			known{id: "http.status", status: checks.StatusSkip, why: "Streamable HTTP rules do not apply to legacy HTTP+SSE"})
	}
	return ks
}

// dualEraMetaOverStdio is what the Go SDKs do over stdio with a request whose _meta names no
// revision: they speak both eras (the era probe's initialize is answered), and read it as a
// session-era request sent before initialize (-32601 for server/discover). 2026-07-28
// basic/transports/stdio, Backward Compatibility: legacy servers "respond to unknown
// pre-initialize requests with implementation-defined errors (commonly -32601 or -32602)";
// only a stateless-only server owes -32602. A request lacking only clientCapabilities names
// its revision, and gets -32602.
var dualEraMetaOverStdio = known{id: "discover.meta-required", status: checks.StatusPass,
	why: "requests naming no revision are refused as session-era requests, which the server also speaks; one lacking clientCapabilities gets -32602"}

// What the Go SDKs do with input a server must refuse, over the stateless revision as over
// the session era: over HTTP a request without a method is taken for a response (202, no
// -32600); over stdio the go-sdk answers neither it nor malformed JSON, and its everything
// example exits on the malformed line.
var (
	methodlessTakenAsResponse = known{id: "lifecycle.invalid-request", status: checks.StatusWarn,
		why: "a request without a method is taken as a response and gets 202, not -32600"}
	goSDKStdioIgnoresMethodless = known{id: "lifecycle.invalid-request", status: checks.StatusWarn,
		why: "a request without a method gets no answer"}
	goSDKStdioDiesOfGarbage = known{id: "lifecycle.parse-error", status: checks.StatusWarn,
		why: "malformed JSON gets no -32700: the server exits on it"}
	goSDKStdioIgnoresGarbage = known{id: "lifecycle.parse-error", status: checks.StatusWarn,
		why: "malformed JSON gets no -32700 (the request after it is answered)"}
	// Over HTTP a 4xx refuses what the probe broke on purpose: an answer, not a fault.
	refusesMalformedWith4xx = known{id: "lifecycle.parse-error", status: checks.StatusPass,
		why: "malformed JSON gets a 400 (text/plain): the probe broke a client rule, and the refusal answers it"}
)

// What HTTP servers that refuse what they do not know get right, and the Origin rule most of
// them break.
var (
	// 2025-11-25 basic/transports, Sending Messages to the Server: "If the server cannot accept
	// the input, it MUST return an HTTP error status code (e.g., 400 Bad Request)."
	refusesUnknownNotification = known{id: "http.notification-accepted", status: checks.StatusPass,
		why: "the unknown notification gets 400: a server that cannot accept a notification refuses it with a 4xx (G4)"}
	// 2025-11-25 basic/transports, Security Warning: "Servers MUST validate the Origin header on
	// all incoming connections ... If the Origin header is present and invalid, servers MUST
	// respond with HTTP 403 Forbidden." (2026-07-28 keeps the sentence; 2024-11-05 HTTP with
	// SSE: "Servers MUST validate the Origin header on all incoming connections".)
	acceptsForeignOrigin = known{id: "http.origin", status: checks.StatusFail,
		why: "a foreign Origin is served rather than answered 403 (G9, a MUST)"}
)

// deletedSessionServed: mcp-go still serves a session it ended on DELETE. A dual-era server
// gets the session-era rule probes too, in auto mode. 2025-11-25 basic/transports, Session
// Management: "The server MAY terminate the session at any time, after which it MUST respond
// to requests containing that session ID with HTTP 404 Not Found."
var deletedSessionServed = known{id: "http.session", status: checks.StatusFail,
	why: "a DELETEd session is still served 200, not answered 404"}

// How a Streamable HTTP server answers POSTed requests: server-everything and the go-sdk open
// an event stream per request; mcp-go answers with one application/json body.
var (
	answersWithEventStreams = known{id: "http.sse-framing", status: checks.StatusPass,
		why: "every request is answered on a well-formed event stream"}
	answersWithJSON = known{id: "http.sse-framing", status: checks.StatusPass,
		why: "mcp-go answers every request with application/json; the one event stream, the GET's (a session-era rule probe of this dual-era server), is well framed"}
)

// streamsWithoutPriming: server-everything and the go-sdk open their 2025-11-25 event streams
// with the response itself. 2025-11-25 basic/transports, Sending Messages to the Server: "The
// server SHOULD immediately send an SSE event consisting of an event ID and an empty data
// field in order to prime the client to reconnect" — a SHOULD, so a warning.
var streamsWithoutPriming = known{id: "http.sse-priming", status: checks.StatusWarn,
	why: "its 2025-11-25 event streams open with a message event, not a priming event (id, empty data)"}

// withCommon is the case's own list after the common one, an ID of the case replacing the
// common entry.
func withCommon(transport, revision string, own []known) []known {
	mine := map[string]bool{}
	for _, k := range own {
		mine[k.id] = true
	}
	var out []known
	for _, k := range commonKnown(transport, revision) {
		if !mine[k.id] {
			out = append(out, k)
		}
	}
	return append(out, own...)
}

// The read of a URI the server never listed (resources.read-unknown), as the SDKs answer it.
var (
	// 2025-11-25 server/resources, Error Handling: "Servers SHOULD return standard JSON-RPC
	// errors for common failure cases: Resource not found: -32002".
	unknownResourceInvalidParams = known{id: "resources.read-unknown", status: checks.StatusWarn,
		why: "an unlisted URI gets -32602, not the -32002 a session revision SHOULD return"}
	// 2026-07-28 server/resources, Error Handling: "servers MUST return a JSON-RPC error with
	// code -32602"; the example's "data": {"uri": ...} carries no keyword (advice).
	unknownResourceNoURIData = known{id: "resources.read-unknown", status: checks.StatusWarn,
		why: "an unlisted URI gets -32602 as 2026-07-28 requires, without the uri in data (advice)"}
)

func serverEverythingKnown() []known {
	return []known{
		unknownResourceInvalidParams,
		// It announces notifications/tools/list_changed as soon as notifications/initialized
		// registers its conditional tools, and it declares tools.listChanged: E5 is kept.
		{id: "lifecycle.capabilities", status: checks.StatusPass,
			why: "list_changed is sent with listChanged declared"},
		// A notification is not a server-to-client request (C4 limits requests only).
		{id: "lifecycle.early-messages", status: checks.StatusPass,
			why: "an early notification is not an early request"},
		// Its "id": null errors answer requests the probe does not send (HTTP POSTs without a
		// session, invalid JSON); every error the probe draws carries the request's id.
		{id: "jsonrpc.null-id", status: checks.StatusPass,
			why: "every error the probe draws echoes the request id"},
		// As seen from it: an unknown tool comes back as an isError result, and a bogus
		// cursor is ignored rather than answered with -32602 (both SHOULDs, hence warnings).
		{id: "tools.unknown-tool", status: checks.StatusWarn,
			why: "an unknown tool gets an isError result, not a JSON-RPC error"},
		{id: "tools.invalid-cursor", status: checks.StatusWarn,
			why: "a cursor it never issued is ignored: the first page comes back"},
		invalidLevelNotMinus32602,
		promptsGot, promptErrorsMinus32602, completionValues, logsOnlyDeclared,
	}
}

// serverEverythingStdioKnown: on stdio it drops what it cannot parse without a word
// (as seen from it), so neither a malformed line nor a request without a method is answered.
func serverEverythingStdioKnown() []known {
	return append(serverEverythingKnown(),
		known{id: "lifecycle.parse-error", status: checks.StatusWarn,
			why: "malformed JSON gets no -32700 (it answers the ping after it)"},
		known{id: "lifecycle.invalid-request", status: checks.StatusWarn,
			why: "a request without a method gets no -32600"},
	)
}

// serverEverythingHTTPKnown: over HTTP the TypeScript SDK answers an unknown or deleted
// session with 400 where the spec says 404 for a deleted one (as seen from it), accepts a
// foreign Origin, and refuses a request without a method with a 400 and -32700.
func serverEverythingHTTPKnown() []known {
	return append(serverEverythingKnown(),
		known{id: "lifecycle.invalid-request", status: checks.StatusPass,
			why: "a request without a method gets 400 with -32700: a 4xx refuses what the probe broke on purpose"},
		known{id: "http.session", status: checks.StatusFail,
			why: "a deleted session gets 400, not 404 (G7)"},
		acceptsForeignOrigin,
		answersWithEventStreams,
		streamsWithoutPriming,
	)
}

// serverEverythingListChanged asserts that the stdio transcript holds the list_changed
// notification the server sends once initialized, so that the passes above were earned.
func serverEverythingListChanged(t *testing.T, res *probe.Result, _ map[string]checks.Finding) {
	t.Helper()
	initialized := res.InitializedAt
	for _, f := range res.Frames {
		if f.Conn != probe.ConnMain || f.Dir != probe.In || f.Kind != probe.KindMessage {
			continue
		}
		m := checks.Classify(f.Raw)
		if m.Kind == checks.Notification && m.Method == "notifications/tools/list_changed" {
			t.Logf("notifications/tools/list_changed at frame %d (notifications/initialized sent at frame %d)", f.Seq, initialized)
			return
		}
	}
	t.Error("no notifications/tools/list_changed on the main connection: the server no longer sends it, or the probe lost it")
}

func goSDKEverythingKnown() []known {
	return []known{
		{id: "tools.name-format", status: checks.StatusWarn, tools: goSDKBadToolNames,
			why: "five tool names hold spaces and parentheses (E4)"},
		{id: "tools.description", status: checks.StatusWarn,
			tools: []string{"greet (structured)", "greet (with Icons)", "greet (content with ResourceLink)",
				"ping", "log", "sample", "elicit (form)", "elicit (url)", "roots"},
			why: "nine of its ten tools have no description (only greet has one)"},
		promptsGot, promptErrorsMinus32602, completionValues, logsOnlyDeclared,
	}
}

// goSDKEverythingHTTPKnown adds what the go-sdk's Streamable HTTP handler does to methods it
// does not know (mcp/streamable.go checks every POSTed request against its method table
// before the session sees it): an HTTP 400 with a text/plain body "JSON RPC not handled: ...
// unsupported", for requests and notifications alike.
func goSDKEverythingHTTPKnown() []known {
	return append(goSDKEverythingKnown(),
		unknownResourceInvalidParams,
		known{id: "lifecycle.unknown-method", status: checks.StatusFail,
			why: "an unknown method gets HTTP 400 text/plain, not JSON-RPC error -32601 (B)"},
		// One fault, one finding: the 400 to the unknown method is lifecycle.unknown-method's;
		// no revision asks for status 200.
		known{id: "http.status", status: checks.StatusPass,
			why: "no request is redirected or answered with a server error"},
		refusesUnknownNotification,
		refusesMalformedWith4xx,
		known{id: "lifecycle.invalid-request", status: checks.StatusWarn,
			why: "a request without a method is taken as a response and gets 202, not -32600"},
		known{id: "http.session", status: checks.StatusWarn,
			why: "a request without Mcp-Session-Id is served rather than answered 400 (a SHOULD)"},
		acceptsForeignOrigin,
		invalidLevelNotMinus32602,
	)
}

func mcpGoEverythingKnown() []known {
	return []known{
		unknownResourceNoURIData,
		{id: "tools.description", status: checks.StatusWarn, tools: []string{"notify"},
			why: "the notify tool has no description"},
		// mcp-go handles requests concurrently and may answer out of order; answers are
		// matched by id, so the echo is judged per id, never by position.
		{id: "jsonrpc.id-echo", status: checks.StatusPass,
			why: "every answer echoes its request's id"},
		promptsGot, promptMissingArgumentServed, completionValues, logsOnlyDeclared,
	}
}
