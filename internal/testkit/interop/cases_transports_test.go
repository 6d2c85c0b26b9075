//go:build linux

package interop

import (
	"strconv"
	"testing"

	"github.com/mcpwatch/mcpwatch/checks"
	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/protocol"
)

// Tool counts of the servers added for the stateless revision and the legacy transport
// (go-sdk v1.8.0 conformance/everything-server/main.go registers 28 tools without options;
// examples/server/sse/main.go one per greeter).
const (
	goSDKConformanceTools = 28
	goSDKSSETools         = 1
)

// transportCases are the servers that prove the stateless revision and the legacy HTTP+SSE
// transport: the go-sdk conformance server (2026-07-28 over stdio and HTTP), the go-sdk SSE
// example and server-everything's sse mode (legacy HTTP+SSE, found by transport detection).
func transportCases() []serverCase {
	return []serverCase{
		{
			name:       "go-sdk-conformance/stdio",
			target:     func(t *testing.T) probe.Target { return probe.Target{Command: []string{goServer(t, GoSDKConformance)}} },
			negotiated: protocol.Revision20260728,
			tools:      goSDKConformanceTools,
			known: append(promptReads(promptMissingArgumentServed),
				dualEraMetaOverStdio, goSDKStdioIgnoresGarbage, goSDKStdioIgnoresMethodless),
		},
		{
			name:       "go-sdk-conformance/http",
			target:     goSDKConformanceHTTP,
			negotiated: protocol.Revision20260728,
			tools:      goSDKConformanceTools,
			known: []known{
				refusesMalformedWith4xx, methodlessTakenAsResponse, acceptsForeignOrigin,
				{id: "discover.meta-required", status: checks.StatusPass,
					why: "over HTTP the revision header marks the request stateless: -32602 with 400"},
				{id: "http.status", status: checks.StatusPass,
					why: "the 400s and 404s it answers are the ones 2026-07-28 prescribes for their error codes"},
				// The go-sdk's Streamable HTTP handler refuses methods it does not know before
				// any session sees them, notifications included (see goSDKEverythingHTTPKnown).
				refusesUnknownNotification,
				answersWithEventStreams,
				promptsGot, promptMissingArgumentServed, completionValues, logsOnlyDeclared,
			},
		},
		{
			name: "go-sdk-sse/sse",
			target: func(t *testing.T) probe.Target {
				bin := goServer(t, GoSDKSSE)
				_, port := startOnFreePort(t, func(port int) ServerSpec {
					return ServerSpec{Command: []string{bin, "-host", "127.0.0.1", "-port", strconv.Itoa(port)}, Ready: HostPort(port)}
				})
				requireLoopbackOnly(t, port)
				// The transport is left to detection: the POST gets 400, the GET an endpoint.
				return probe.Target{URL: "http://" + HostPort(port) + "/greeter1"}
			},
			negotiated: protocol.Revision20251125,
			transport:  protocol.TransportSSE,
			tools:      goSDKSSETools,
			known: []known{
				{id: "jsonrpc.notification-silence", status: checks.StatusPass, why: "nothing answers a notification on the stream"},
				// As its Streamable HTTP handler does, the go-sdk's SSE handler refuses a
				// method it does not know at the HTTP layer, before any session sees it.
				{id: "lifecycle.unknown-method", status: checks.StatusFail,
					why: "an unknown method gets HTTP 400 text/plain on the POST, not error -32601 on the stream (B)"},

				// The SDK serves resources/list and prompts/list (empty, with the cache hints
				// of 2026-07-28) although the greeter declares neither capability: empty lists
				// offer nothing undeclared.
				{id: "lifecycle.capabilities", status: checks.StatusInfo,
					why: "resources and prompts lists answer empty without the capabilities declared"},
				// Read on the event stream, the answer to a request without a method never
				// comes (the POST gets 202).
				{id: "lifecycle.invalid-request", status: checks.StatusWarn,
					why: "a request without a method gets no answer on the stream, not -32600"},
				// 2024-11-05 basic/transports, HTTP with SSE: "Servers MUST validate the Origin
				// header on all incoming connections"; it negotiates 2025-11-25, whose MUST is 403.
				{id: "http.origin", status: checks.StatusFail,
					why: "the event stream opens, and a POST is taken, from a foreign Origin"},
				invalidLevelNotMinus32602,
			},
		},
		{
			name:       "server-everything/sse",
			target:     serverEverythingSSE,
			negotiated: protocol.Revision20251125,
			transport:  protocol.TransportSSE,
			tools:      serverEverythingTools,
			known:      append(serverEverythingKnown(), acceptsForeignOrigin),
		},
	}
}
