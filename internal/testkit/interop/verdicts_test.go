//go:build linux

package interop

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/checks"
	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/protocol"
)

// proberBinary names the prober command among the binaries TestMain builds.
const proberBinary = "prober"

// cliTimeout bounds one `prober check` run: its own --timeout (60s by default) and the stdio
// server's shutdown.
const cliTimeout = 90 * time.Second

// verdict is one finding of a `prober check` report pinned by a spec sentence.
type verdict struct {
	id string
	// is, when set, is the status the finding must have; not, when set, one it must not have
	// (a finding left out of the report has none).
	is, not checks.Status
	// severity, when set, is the severity the finding must carry.
	severity checks.Severity
	// says, when set, is text the finding's message must hold (the reason of an untested).
	says string
	// spec is the sentence that decides the verdict: revision, section, keyword, quoted.
	spec string
}

// verdictCase is one real server over one transport, probed as a user would: `prober check
// --format json` with the default flags (plus flags), its exit code and report judged.
type verdictCase struct {
	name   string
	target func(t *testing.T) probe.Target
	flags  []string
	// exitsZero: the default gate (--fail-on error) passes, the server breaking no MUST.
	exitsZero bool
	verdicts  []verdict
	// more asserts what the findings alone do not show (the steps, the transcript with -v).
	more func(t *testing.T, rep cliReport)
}

// Spec sentences several verdicts rest on.
const (
	specOrigin20251125 = `2025-11-25 basic/transports, Streamable HTTP, Security Warning: "Servers MUST validate the ` +
		`Origin header on all incoming connections to prevent DNS rebinding attacks. If the Origin header is present ` +
		`and invalid, servers MUST respond with HTTP 403 Forbidden."`
	specOrigin20260728 = `2026-07-28 basic/transports/streamable-http, Security Warning: "Servers MUST validate the ` +
		`Origin header on all incoming connections to prevent DNS rebinding attacks. If the Origin header is present ` +
		`and invalid, servers MUST respond with HTTP 403 Forbidden."`
	specOrigin20241105 = `2024-11-05 basic/transports, HTTP with SSE, Security Warning: "Servers MUST validate the ` +
		`Origin header on all incoming connections to prevent DNS rebinding attacks."`
	specTerminatedSession = `2025-11-25 basic/transports, Session Management: "The server MAY terminate the session ` +
		`at any time, after which it MUST respond to requests containing that session ID with HTTP 404 Not Found."`
	specUnknownMethod = `JSON-RPC 2.0 §5 (which 2025-11-25 basic "All messages between MCP clients and servers MUST ` +
		`follow the JSON-RPC 2.0 specification" makes normative): "When a rpc call is made, the Server MUST reply ` +
		`with a Response"; §5.1: -32601 "Method not found". A 400 text/plain answer is no JSON-RPC response.`
	specRequestAnswer = `2025-11-25 basic/transports, Sending Messages to the Server: "If the input is a JSON-RPC ` +
		`request, the server MUST either return Content-Type: text/event-stream ... or Content-Type: ` +
		`application/json". No revision requires status 200: the fault of a 400 to an unknown method is the ` +
		`missing -32601, judged by lifecycle.unknown-method alone (one fault, one finding).`
	specNeverIssuedSession = `2025-11-25 basic/transports, Session Management: the 404 MUST names a session the ` +
		`server terminated ("The server MAY terminate the session at any time, after which it MUST respond to ` +
		`requests containing that session ID with HTTP 404 Not Found"); no MUST covers an id it never issued, so ` +
		`a 400 to one is a warning, and the default gate (--fail-on error) passes.`
	specResourceNotFoundSession = `2025-11-25 server/resources, Error Handling: "Servers SHOULD return standard ` +
		`JSON-RPC errors for common failure cases: Resource not found: -32002". -32602 for a URI the server ` +
		`never listed breaks a SHOULD: a warning, and the default gate passes it.`
	specResourceNotFoundStateless = `2026-07-28 server/resources, Error Handling: "If the requested resource does ` +
		`not exist, servers MUST return a JSON-RPC error with code -32602 (Invalid Params)."`
	specResourceRead = `2025-11-25 server/resources, Reading Resources: the result's contents are ` +
		`TextResourceContents or BlobResourceContents (uri, and text or a base64 blob); Security Considerations: ` +
		`"Binary data MUST be properly encoded".`
	specResourceSubscribe = `2025-11-25 server/resources, Capabilities: subscribe is "whether the client can ` +
		`subscribe to be notified of changes to individual resources"; JSON-RPC 2.0 §5: "When a rpc call is ` +
		`made, the Server MUST reply with a Response"; the schema's EmptyResult "indicates success but carries ` +
		`no data". It declares resources.subscribe and answers both requests with {}.`
	specUnknownNotification = `2025-11-25 basic/transports, Sending Messages to the Server: "If the input is a ` +
		`JSON-RPC response or notification: If the server accepts the input, the server MUST return HTTP status ` +
		`code 202 Accepted with no body. If the server cannot accept the input, it MUST return an HTTP error ` +
		`status code (e.g., 400 Bad Request)." A 400 to an unknown notification is allowed.`
)

// verdictCases are the verdicts issue 16 pins on real servers.
func verdictCases() []verdictCase {
	unknownMethodOverHTTP := []verdict{
		{id: "lifecycle.unknown-method", is: checks.StatusFail, spec: specUnknownMethod},
		{id: "http.status", not: checks.StatusFail, spec: specRequestAnswer},
		{id: "http.notification-accepted", is: checks.StatusPass, spec: specUnknownNotification},
	}
	// The reference servers' descriptions and error messages are ordinary: no keyword forbids
	// what the security heuristics look for, and none of it is there, so both pass (a
	// heuristic that warned here would be a false alarm).
	secure := []verdict{
		{id: "security.tool-poisoning", is: checks.StatusPass,
			spec: `2025-11-25 Overview, Security and Trust & Safety, Tool Safety: "descriptions of tool ` +
				`behavior such as annotations should be considered untrusted, unless obtained from a trusted ` +
				`server"; Implementation Guidelines: "implementors SHOULD: ... Follow security best practices". ` +
				`No description or instruction of the server hides characters or addresses the model.`},
		{id: "security.error-leak", is: checks.StatusPass,
			spec: `2025-11-25 Overview, Implementation Guidelines: "implementors SHOULD: ... Follow security ` +
				`best practices in their integrations" (advice: no keyword names error messages). Its ` +
				`error answers carry no stack trace, path, SQL or secret.`},
	}
	// The real servers of the stateless revision all speak a session revision too (dual-era):
	// they refuse the removed methods as 2026-07-28 asks, send no request of their own on a
	// stateless exchange, and the rules of a server of that revision only do not apply.
	statelessRemovals := []verdict{
		{id: "stateless.removed-methods", is: checks.StatusPass,
			spec: `2026-07-28 basic/transports/streamable-http, Protocol Version Header: "If the server does ` +
				`not implement the requested RPC method, it MUST respond with 404 Not Found and a JSON-RPC error ` +
				`with code -32601"; changelog: "Remove ping, logging/setLevel". ping, logging/setLevel, ` +
				`resources/subscribe and resources/unsubscribe get -32601 (over HTTP with 404).`},
		{id: "stateless.server-requests", is: checks.StatusPass,
			spec: `2026-07-28 basic/transports/streamable-http, Receiving Messages: "The server MUST NOT send ` +
				`independent JSON-RPC requests on this stream"; basic/transports/stdio: "The server MUST NOT ` +
				`write JSON-RPC requests to stdout." None comes on a stateless exchange.`},
		{id: "discover.version-error", is: checks.StatusSkip,
			spec: `2026-07-28 basic/versioning: "A server that supports only modern versions SHOULD name the ` +
				`protocol versions it supports in any error it returns to an initialize request": this one ` +
				`answers initialize (dual-era).`},
	}
	statelessOnlyHTTP := []verdict{
		{id: "stateless.no-session", is: checks.StatusSkip,
			spec: `2026-07-28 basic/transports/streamable-http, Earlier Streamable HTTP Revisions: "A server ` +
				`that supports only this revision ... SHOULD respond as follows: ... An Mcp-Session-Id header ` +
				`on a request: ignore it, and do not mint or echo session IDs": a dual-era server keeps its sessions.`},
		{id: "stateless.get-delete", is: checks.StatusSkip,
			spec: `2026-07-28 basic/transports/streamable-http, Earlier Streamable HTTP Revisions: "A server ` +
				`that supports only this revision ... SHOULD respond as follows: HTTP GET or DELETE to the MCP ` +
				`endpoint: respond with 405 Method Not Allowed": a dual-era server keeps its GET stream and DELETE.`},
	}
	statelessHTTP := append(slices.Clone(statelessRemovals), statelessOnlyHTTP...)
	// What the 2026-07-28 servers answer of results, error codes and subscriptions (issue 20):
	// each breaks none of these rules, so each check passes.
	statelessResults := []verdict{
		{id: "results.input-required", is: checks.StatusPass,
			spec: `2026-07-28 basic/patterns/mrtr, Supported Requests: "Servers MUST NOT send ` +
				`InputRequiredResult responses on any other client requests" than prompts/get, ` +
				`resources/read and tools/call. No list or discover result is input_required.`},
		{id: "errors.codes", is: checks.StatusPass,
			spec: `2026-07-28 basic, Error Codes: "Implementations of this protocol version MUST NOT emit ` +
				`these codes: -32002 ... -32042"; "Implementations MUST NOT emit any code from this ` +
				`sub-range that is not defined by this specification". Its errors carry JSON-RPC's codes.`},
		{id: "results.cache-hints", is: checks.StatusPass,
			spec: `2026-07-28 server/utilities/caching, Cacheable Results: "Servers MUST include caching ` +
				`hints on results with resultType: "complete"" of the lists and resources/read; ` +
				`Interaction with Pagination: "Servers MUST apply the same cacheScope to all response pages".`},
	}
	listens := verdict{id: "subscriptions.listen", is: checks.StatusPass,
		spec: `2026-07-28 basic/patterns/subscriptions, Acknowledgment: "The server MUST send ` +
			`notifications/subscriptions/acknowledged as the first message carrying the subscription's ID"; ` +
			`Opening a Stream: "The server MUST NOT send notification types the client has not explicitly ` +
			`requested." It declares tools.listChanged and acknowledges the probe's subscription first.`}
	return []verdictCase{
		{
			name:     "go-sdk-everything/http",
			target:   goSDKEverythingHTTP,
			verdicts: append(slices.Clone(unknownMethodOverHTTP), secure...),
		},
		{
			name:     "kubernetes-mcp-server/http",
			target:   kubernetesHTTP,
			verdicts: unknownMethodOverHTTP,
		},
		{
			// Context7 (slow to start) answers a late server/discover and then, on the same
			// process, the probe's initialize. 2026-07-28 basic/versioning, Backward
			// Compatibility: "An initialize request selects legacy semantics, scoped to the stdio
			// process" and "A dual-era server MAY serve both eras concurrently on the same
			// endpoint or process." Judged in the era the process entered, it breaks no MUST:
			// the default gate passes.
			name:      "context7/stdio",
			target:    context7Stdio,
			exitsZero: true,
			verdicts:  statelessRemovals,
		},
		{
			name:   "context7/http",
			target: context7HTTP,
			verdicts: []verdict{
				{id: "http.origin", is: checks.StatusFail, spec: specOrigin20260728},
				{id: "stateless.headers", is: checks.StatusFail,
					spec: `2026-07-28 basic/transports/streamable-http, Protocol Version Header: "Every POST ` +
						`request to the MCP endpoint MUST include an MCP-Protocol-Version header." ... "A server ` +
						`that does not support such clients MUST reject a request without the header per Server ` +
						`Validation"; Server Validation: "servers MUST return HTTP status 400 Bad Request and MUST ` +
						`include a JSON-RPC error response" with -32020 (HeaderMismatch). Context7 serves a ` +
						`2026-07-28 request that lacks the header.`},
				statelessHTTP[0], statelessHTTP[1], statelessHTTP[2], statelessHTTP[3], statelessHTTP[4],
				statelessResults[0], statelessResults[1], statelessResults[2],
			},
		},
		{
			name:   "go-sdk-conformance/http",
			target: goSDKConformanceHTTP,
			verdicts: append([]verdict{
				{id: "http.origin", is: checks.StatusFail, spec: specOrigin20260728},
				statelessResults[0], statelessResults[1], statelessResults[2], listens,
			}, statelessHTTP...),
		},
		{
			name:   "mcp-grafana/streamable-http",
			target: func(t *testing.T) probe.Target { return grafanaOver(t, "streamable-http", "/mcp") },
			verdicts: []verdict{
				{id: "discover.meta-required", is: checks.StatusFail,
					spec: `2026-07-28 basic, Request metadata: io.modelcontextprotocol/clientCapabilities is ` +
						`Required: Yes; "A request missing any required field is malformed; the server MUST ` +
						`reject it with JSON-RPC error code -32602 (Invalid params). On HTTP, the response ` +
						`status MUST be 400 Bad Request." mcp-grafana answers -32021.`},
				// Dual-era: its sessions get the session-era rule probes too.
				{id: "http.protocol-version-header", is: checks.StatusFail,
					spec: `2025-11-25 basic/transports, Protocol Version Header: "If the server receives a ` +
						`request with an invalid or unsupported MCP-Protocol-Version, it MUST respond with 400 ` +
						`Bad Request." mcp-grafana serves a session request whose header names 1900-01-01.`},
			},
		},
		{
			name:   "mcp-grafana/sse",
			target: func(t *testing.T) probe.Target { return grafanaOver(t, "sse", "/sse") },
			verdicts: []verdict{
				{id: "sse.message-events", not: checks.StatusFail,
					spec: `2024-11-05 basic/transports, HTTP with SSE: "Server messages are sent as SSE message ` +
						`events, with the message content encoded as JSON in the event data." The 400 with an ` +
						`id-less -32700 that answers the probe's malformed POST is no server message on the stream.`},
				{id: "http.origin", is: checks.StatusPass,
					spec: specOrigin20241105 + ` mcp-grafana answers a foreign Origin with 403.`},
			},
		},
		{
			// Dual-era: the default (auto) run gives a server that also speaks a session
			// revision the session-era rule probes too.
			name:   "mcp-go-conformance/http",
			target: mcpGoConformanceHTTP,
			verdicts: []verdict{
				{id: "http.session", is: checks.StatusFail,
					spec: specTerminatedSession + ` It still serves, with 200, the session it DELETEd.`},
				// Advice, spelt out so that this file does not depend on the name of its constant.
				{id: "resources.read-unknown", is: checks.StatusWarn, severity: checks.Severity("advice"),
					spec: specResourceNotFoundStateless + ` It answers -32602, but without the uri in data: the ` +
						`spec's example has "data": {"uri": ...}, which no keyword requires.`},
				secure[0], secure[1],
				statelessHTTP[0], statelessHTTP[1], statelessHTTP[2], statelessHTTP[3], statelessHTTP[4],
				statelessResults[0], statelessResults[1], statelessResults[2], listens,
			},
		},
		{
			name:   "server-everything/sse",
			target: serverEverythingSSE,
			verdicts: []verdict{
				{id: "http.origin", is: checks.StatusFail,
					spec: specOrigin20241105 + ` It serves a foreign Origin on the stream and the POST endpoint.`},
			},
		},
		{
			name:   "server-everything/stdio@2025-03-26",
			target: serverEverythingStdio,
			flags:  []string{"--protocol-version", protocol.Revision20250326},
			verdicts: []verdict{
				{id: "jsonrpc.batch", is: checks.StatusFail,
					spec: `2025-03-26 basic, Batching: "MCP implementations MAY support sending JSON-RPC ` +
						`batches, but MUST support receiving JSON-RPC batches." It drops the batch unanswered.`},
			},
		},
		{
			name:   "server-everything/http",
			target: serverEverythingHTTP,
			verdicts: []verdict{
				{id: "http.session", is: checks.StatusFail,
					spec: specTerminatedSession + ` It answers a request on the session it DELETEd with 400.`},
				{id: "resources.read", is: checks.StatusPass, spec: specResourceRead},
				{id: "resources.read-unknown", is: checks.StatusWarn, severity: checks.SeverityWarning,
					spec: specResourceNotFoundSession},
				{id: "resources.subscribe", is: checks.StatusPass, spec: specResourceSubscribe},
				secure[0], secure[1],
				{id: "http.sse-priming", is: checks.StatusWarn, severity: checks.SeverityWarning,
					spec: `2025-11-25 basic/transports, Sending Messages to the Server: "The server SHOULD ` +
						`immediately send an SSE event consisting of an event ID and an empty data field in ` +
						`order to prime the client to reconnect". Its event streams open with the response.`},
				{id: "http.concurrent-requests", is: checks.StatusPass,
					spec: `JSON-RPC 2.0 §4 (made normative by 2025-11-25 basic): "When a rpc call is made, the ` +
						`Server MUST reply with a Response"; it answers two pings POSTed at once on one session.`},
			},
		},
		{
			name:      "brave-search/http",
			target:    braveHTTP,
			exitsZero: true,
			verdicts: []verdict{
				{id: "http.session", is: checks.StatusWarn, spec: specNeverIssuedSession},
			},
		},
		{
			name:   "go-sdk-everything/stdio",
			target: goSDKEverythingStdio,
			verdicts: []verdict{
				// The severity is "advice" (no normative keyword applies), spelt out so that
				// this file does not depend on the name of its constant.
				{id: "resources.read", is: checks.StatusPass, spec: specResourceRead},
				{id: "resources.read-unknown", is: checks.StatusPass,
					spec: specResourceNotFoundStateless + ` It answers -32602 with the uri in data.`},
				{id: "tools.description", severity: checks.Severity("advice"),
					spec: `2025-11-25 schema, Tool: "description?: string" is optional (as in every ` +
						`revision) and no sentence asks for one: nine of its ten tools have none, which ` +
						`is advice, not a SHOULD broken.`},
				secure[0], secure[1],
				statelessResults[0], statelessResults[1], statelessResults[2], listens,
			},
		},
		{
			// Probed without a token: the OAuth chain is public, the MCP endpoint is not.
			name:   "typescript-sdk-oauth/http",
			target: typeScriptSDKOAuthHTTP,
			verdicts: []verdict{
				{id: "auth.challenge", is: checks.StatusPass,
					spec: `RFC 9110 §11.6.1: a 401 "MUST send a WWW-Authenticate header field"; 2025-11-25 ` +
						`basic/authorization: servers "MUST use the HTTP header WWW-Authenticate when returning a ` +
						`401 Unauthorized". It names resource_metadata.`},
				{id: "auth.resource-metadata", is: checks.StatusPass,
					spec: `RFC 9728 §3.3: "The resource value returned MUST be identical to the protected ` +
						`resource's resource identifier value into which the well-known URI path suffix was ` +
						`inserted". Its metadata names http://localhost:PORT/mcp and a loopback authorization server.`},
				{id: "auth.server-metadata", is: checks.StatusPass,
					spec: `2025-11-25 basic/authorization, Authorization Server Metadata Discovery: clients "MUST" ` +
						`try the OAuth and OpenID Connect well-known URLs in order; RFC 8414 §3.3: the issuer ` +
						`"MUST be identical". Its demo server serves RFC 8414 metadata at the root.`},
				{id: "auth.pkce", is: checks.StatusPass,
					spec: `2025-11-25 basic/authorization, Authorization Code Protection: "If ` +
						`code_challenge_methods_supported is absent, the authorization server does not support ` +
						`PKCE and MCP clients MUST refuse to proceed." It lists S256.`},
				// The example verifies tokens by introspection and answers a token its authorization
				// server never issued with 500 {"error":"server_error"}.
				{id: "auth.invalid-token", is: checks.StatusFail,
					spec: `2025-11-25 basic/authorization, Token Handling: "Invalid or expired tokens MUST ` +
						`receive a HTTP 401 response." It answers HTTP 500.`},
				{id: "auth.client-registration", is: checks.StatusWarn,
					spec: `2025-11-25 basic/authorization, Client ID Metadata Documents: "MCP clients and ` +
						`authorization servers SHOULD support OAuth Client ID Metadata Documents"; its demo ` +
						`server offers Dynamic Client Registration only (which clients MAY use).`},
				{id: "auth.scope", is: checks.StatusWarn,
					spec: `2025-11-25 basic/authorization: "MCP servers SHOULD include a scope parameter in the ` +
						`WWW-Authenticate header"; its challenge names none.`},
				// RFC 6750 §3 leaves the body of a 401 to the server: its {"error":"invalid_token"}
				// is OAuth's, not a JSON-RPC message with a wrong envelope.
				{id: "jsonrpc.version", not: checks.StatusFail,
					spec: `2025-11-25 basic/authorization, Error Handling: "401 Unauthorized - Authorization ` +
						`required or token invalid"; RFC 6750 §3 puts the error in WWW-Authenticate and says ` +
						`nothing of the body, which no MCP sentence makes a JSON-RPC message.`},
				{id: "jsonrpc.error-shape", not: checks.StatusFail,
					spec: `As jsonrpc.version: the OAuth error body of a 401 is not a JSON-RPC error object.`},
			},
		},
	}
}

// TestInteropVerdicts runs `prober check` on each real server of verdictCases, in parallel,
// and holds its exit code and findings to the case. Every run logs its verdict (exit code,
// summary, each error-severity failure): the record of what the prober says of real servers.
func TestInteropVerdicts(t *testing.T) {
	if testing.Short() {
		t.Skip("interop tests start real servers; skipped with -short")
	}
	if built.buildErr != nil {
		t.Fatalf("building the example servers and the prober: %v", built.buildErr)
	}
	for _, c := range append(verdictCases(), callVerdictCases()...) {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			runVerdictCase(t, c)
		})
	}
}

// cliReport is what the verdict tests read of the JSON report (the --format json contract).
type cliReport struct {
	Transport       string         `json:"transport"`
	ProtocolVersion string         `json:"protocolVersion"`
	Verdict         string         `json:"verdict"`
	Summary         map[string]int `json:"summary"`
	Checks          []struct {
		ID       string          `json:"id"`
		Status   checks.Status   `json:"status"`
		Severity checks.Severity `json:"severity"`
		Message  string          `json:"message"`
	} `json:"checks"`
	Steps []struct {
		Name    string `json:"name"`
		Method  string `json:"method"`
		Conn    int    `json:"conn"`
		Outcome string `json:"outcome"`
		Err     string `json:"err"`
	} `json:"steps"`
	// Transcript is there with --verbose only.
	Transcript []struct {
		Seq  int    `json:"seq"`
		Conn int    `json:"conn"`
		Dir  string `json:"dir"`
		Kind string `json:"kind"`
		Raw  string `json:"raw"`
	} `json:"transcript"`
}

func runVerdictCase(t *testing.T, c verdictCase) {
	target := c.target(t)
	code, rep, stderr := runProberCheck(t, target, c.flags)
	t.Logf("%s: exit %d, %s %s, %s", c.name, code, rep.Transport, rep.ProtocolVersion, summaryOf(rep.Summary))
	for _, f := range rep.Checks {
		if f.Status == checks.StatusFail && f.Severity == checks.SeverityError {
			t.Logf("  error %s: %s", f.ID, f.Message)
		}
	}
	defer func() {
		if t.Failed() && stderr != "" {
			t.Logf("prober stderr:\n%s", lastBytes(stderr, 2048))
		}
	}()

	if c.exitsZero && code != 0 {
		t.Errorf("prober check exits %d, want 0: the server breaks no MUST the prober can see", code)
	}
	byID := map[string]int{}
	for i, f := range rep.Checks {
		byID[f.ID] = i
	}
	for _, v := range c.verdicts {
		i, ok := byID[v.id]
		if !ok {
			if v.is != "" || v.severity != "" {
				t.Errorf("no finding %s in the report; decided by %s", v.id, v.spec)
			}
			continue
		}
		f := rep.Checks[i]
		if v.is != "" && f.Status != v.is {
			t.Errorf("%s is %s (%s), want %s; decided by %s", v.id, f.Status, f.Message, v.is, v.spec)
		}
		if v.not != "" && f.Status == v.not {
			t.Errorf("%s is %s (%s), must not be; decided by %s", v.id, f.Status, f.Message, v.spec)
		}
		if v.severity != "" && f.Severity != v.severity {
			t.Errorf("%s has severity %q (%s %s), want %q; decided by %s", v.id, f.Severity, f.Status, f.Message, v.severity, v.spec)
		}
		if v.says != "" && !strings.Contains(f.Message, v.says) {
			t.Errorf("%s says %q, want it to say %q; decided by %s", v.id, f.Message, v.says, v.spec)
		}
	}
	if c.more != nil {
		c.more(t, rep)
	}
}

// runProberCheck runs the built prober on target with --format json and flags, and returns
// its exit code, its report and what it wrote to stderr. Only exit codes 0 and 1 (the gate's
// two verdicts) are a verdict; anything else fails the test.
func runProberCheck(t *testing.T, target probe.Target, flags []string) (int, cliReport, string) {
	t.Helper()
	args := append([]string{"check", "--format", "json"}, flags...)
	for _, e := range target.Env {
		args = append(args, "--env", e)
	}
	if target.URL != "" {
		args = append(args, target.URL)
	} else {
		args = append(append(args, "--"), target.Command...)
	}
	ctx, cancel := context.WithTimeout(t.Context(), cliTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, goServer(t, proberBinary), args...)
	cmd.Env = append(os.Environ(), TelemetryOff()...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	code := 0
	if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("prober %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	if code != 0 && code != 1 {
		t.Fatalf("prober %s: exit %d\n%s", strings.Join(args, " "), code, stderr.String())
	}
	var rep cliReport
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatalf("prober %s: the report is not JSON: %v\n%s", strings.Join(args, " "), err, lastBytes(stdout.String(), 2048))
	}
	return code, rep, stderr.String()
}

// summaryOf prints a report's summary counts in a stable order, whatever statuses it holds.
func summaryOf(s map[string]int) string {
	keys := slices.Sorted(maps.Keys(s))
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s=%d", k, s[k]))
	}
	return strings.Join(parts, " ")
}
