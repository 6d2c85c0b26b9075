package checks

import "github.com/mcpwatch/mcpwatch/protocol"

// specBase is where every revision of the MCP specification is published.
const specBase = "https://modelcontextprotocol.io/specification/"

// Documents outside the MCP specification that some rules come from. The MCP specification
// makes them normative: every message follows JSON-RPC 2.0, and the HTTP transport and its
// authorization follow the RFCs they name.
const (
	jsonrpcErrorObject    = "https://www.jsonrpc.org/specification#error_object"    // JSON-RPC 2.0 §5.1 Error object
	jsonrpcResponseObject = "https://www.jsonrpc.org/specification#response_object" // JSON-RPC 2.0 §5 Response object
	rfc9110Challenge      = "https://www.rfc-editor.org/rfc/rfc9110#section-11.6.1" // RFC 9110 §11.6.1 WWW-Authenticate
	rfc9110HTTPS          = "https://www.rfc-editor.org/rfc/rfc9110#section-4.3.4"  // RFC 9110 §4.3.4 https certificate verification
	rfc9728Metadata       = "https://www.rfc-editor.org/rfc/rfc9728#section-3"      // RFC 9728 §3 Obtaining Protected Resource Metadata
	sep2127ServerCard     = specServerCard                                          // SEP-2127 MCP Server Cards (draft extension)
	rfc8414Metadata       = "https://www.rfc-editor.org/rfc/rfc8414#section-3"      // RFC 8414 §3 Obtaining Authorization Server Metadata
)

// ExternalSpec names the document outside the MCP specification that a link points into
// ("JSON-RPC 2.0 §5.1 Error object"), "" for a link into the MCP specification: a report
// says so when a rule is not the MCP specification's own.
func ExternalSpec(link string) string {
	switch link {
	case jsonrpcErrorObject:
		return "JSON-RPC 2.0 §5.1 Error object"
	case jsonrpcResponseObject:
		return "JSON-RPC 2.0 §5 Response object"
	case rfc9110Challenge:
		return "RFC 9110 §11.6.1 WWW-Authenticate"
	case rfc9110HTTPS:
		return "RFC 9110 §4.3.4 https certificate verification"
	case rfc9728Metadata:
		return "RFC 9728 §3 protected resource metadata"
	case sep2127ServerCard:
		return "SEP-2127 MCP Server Cards (draft extension)"
	case rfc8414Metadata:
		return "RFC 8414 §3 authorization server metadata"
	}
	return ""
}

// SpecPlace is where a rule is stated: a page and heading of one MCP revision, or a document
// outside the MCP specification.
type SpecPlace struct {
	// Revision pins the MCP revision whose page states the rule; "" means the revision the
	// probe spoke. A rule a revision does not have (server/discover before 2026-07-28,
	// sessions after 2025-11-25) is pinned to the revision that states it.
	Revision string
	Page     string // path under the revision, "" for its front page ("basic/transports")
	Anchor   string // heading anchor on the page, "" for the page's opening text
	// External is the URL of a document outside the MCP specification (JSON-RPC 2.0, an
	// RFC); Revision, Page and Anchor are then unused.
	External string
}

// URL resolves the place for the revision the probe spoke.
func (p SpecPlace) URL(revision string) string {
	if p.External != "" {
		return p.External
	}
	if p.Revision != "" {
		revision = p.Revision
	}
	// One concatenation each: every finding of a probe asks for its link.
	switch {
	case p.Page != "" && p.Anchor != "":
		return specBase + revision + "/" + p.Page + "#" + p.Anchor
	case p.Page != "":
		return specBase + revision + "/" + p.Page
	case p.Anchor != "":
		return specBase + revision + "#" + p.Anchor
	}
	return specBase + revision
}

// specStep says where a rule is stated from one revision on, until the next step's revision.
type specStep struct {
	from  string
	place SpecPlace
}

// specSteps is the places of one rule, oldest revision first.
type specSteps []specStep

// at resolves the place for a revision: the last step that starts at or before it, the
// first step for a revision older than all of them. A revision the probe does not know (a
// server's bogus answer) reads as the newest session revision.
func (s specSteps) at(revision string) (SpecPlace, string) {
	if !protocol.KnownRevision(revision) {
		revision = protocol.LatestSessionRevision
	}
	if len(s) == 0 {
		return SpecPlace{}, revision
	}
	place := s[0].place
	for _, st := range s {
		if st.from <= revision {
			place = st.place
		}
	}
	return place, revision
}

func (s specSteps) url(revision string) string {
	place, rev := s.at(revision)
	return place.URL(rev)
}

// Shorthands for the table below.
func page(p, anchor string) SpecPlace { return SpecPlace{Page: p, Anchor: anchor} }
func pinned(rev, p, anchor string) SpecPlace {
	return SpecPlace{Revision: rev, Page: p, Anchor: anchor}
}
func external(u string) SpecPlace  { return SpecPlace{External: u} }
func always(p SpecPlace) specSteps { return specSteps{{protocol.Revision20241105, p}} }

const (
	r241105 = protocol.Revision20241105
	r250326 = protocol.Revision20250326
	r250618 = protocol.Revision20250618
	r251125 = protocol.Revision20251125
	r260728 = protocol.Revision20260728
)

// specTable is where each check's rule is stated, per revision. The pages and headings are
// the specification's own (docs/specification/<revision>/ of the specification repository);
// a test resolves every check for every revision against the list of them.
func specTable() map[string]specSteps {
	// Pages that moved between revisions.
	messages := specSteps{{r241105, page("basic/messages", "")}, {r250326, page("basic", "messages")}}
	responses := specSteps{{r241105, page("basic/messages", "responses")}, {r250326, page("basic", "responses")}}
	notifications := specSteps{{r241105, page("basic/messages", "notifications")}, {r250326, page("basic", "notifications")}}
	// 2026-07-28 has no initialize: its versioning page says how a modern server meets the
	// initialize-based revisions.
	initCompat := page("basic/versioning", "backward-compatibility-with-initialization-based-versions")
	lifecycle := func(anchor string) specSteps {
		return specSteps{{r241105, page("basic/lifecycle", anchor)}, {r260728, initCompat}}
	}
	negotiation := specSteps{{r241105, page("basic/lifecycle", "version-negotiation")},
		{r260728, page("basic/versioning", "protocol-version-negotiation")}}
	// Streamable HTTP: one section of basic/transports from 2025-03-26, its own page in
	// 2026-07-28; 2024-11-05 had HTTP with SSE in its place.
	httpPost := specSteps{{r241105, page("basic/transports", "http-with-sse")},
		{r250326, page("basic/transports", "sending-messages-to-the-server")},
		{r260728, page("basic/transports/streamable-http", "sending-messages")}}
	// Sessions exist from 2025-03-26 to 2025-11-25; 2026-07-28 says what a server does with
	// an older client's session traffic.
	sessions := specSteps{{r241105, pinned(r250326, "basic/transports", "session-management")},
		{r250326, page("basic/transports", "session-management")},
		{r260728, page("basic/transports/streamable-http", "earlier-streamable-http-revisions")}}
	legacySSE := specSteps{{r241105, page("basic/transports", "http-with-sse")},
		{r250326, page("basic/transports", "backwards-compatibility")},
		{r260728, page("basic/transports/streamable-http", "httpsse-transport-2024-11-05")}}
	stdio := specSteps{{r241105, page("basic/transports", "stdio")}, {r260728, page("basic/transports/stdio", "")}}
	stateless := func(p, anchor string) specSteps { return always(pinned(r260728, p, anchor)) }

	return map[string]specSteps{
		"jsonrpc.parse":                messages,
		"jsonrpc.version":              messages,
		"jsonrpc.message-shape":        messages,
		"jsonrpc.id-echo":              responses,
		"jsonrpc.error-shape":          always(external(jsonrpcErrorObject)),
		"jsonrpc.null-id":              always(external(jsonrpcResponseObject)),
		"jsonrpc.notification-silence": notifications,
		// Batches are a MUST of 2025-03-26 only; 2025-06-18 removed them.
		"jsonrpc.batch": always(pinned(r250326, "basic", "batching")),

		"lifecycle.initialize":          lifecycle("initialization"),
		"lifecycle.initialize-result":   lifecycle("initialization"),
		"lifecycle.version-negotiation": negotiation,
		"lifecycle.ping":                {{r241105, page("basic/utilities/ping", "behavior-requirements")}, {r260728, initCompat}},
		"lifecycle.unknown-method":      always(external(jsonrpcErrorObject)),
		"lifecycle.capabilities":        {{r241105, page("basic/lifecycle", "capability-negotiation")}, {r260728, page("server/discover", "response")}},
		"lifecycle.early-messages":      lifecycle("initialization"),
		"lifecycle.parse-error":         always(external(jsonrpcErrorObject)),
		"lifecycle.invalid-request":     always(external(jsonrpcErrorObject)),
		"lifecycle.version-support":     negotiation,

		"discover.result":              stateless("server/discover", "response"),
		"discover.unsupported-version": stateless("basic/versioning", "protocol-version-negotiation"),
		"discover.meta-required":       stateless("basic", "_meta"),
		"results.result-type":          stateless("basic", "resulttype"),
		"results.cache-hints":          stateless("server/utilities/caching", "cacheable-results"),
		"stateless.headers":            stateless("basic/transports/streamable-http", "server-validation"),
		"stateless.removed-methods":    stateless("basic/transports/streamable-http", "protocol-version-header"),
		"stateless.no-session":         stateless("basic/transports/streamable-http", "earlier-streamable-http-revisions"),
		"stateless.get-delete":         stateless("basic/transports/streamable-http", "earlier-streamable-http-revisions"),
		"stateless.server-requests":    stateless("basic/transports/streamable-http", "receiving-messages"),
		"discover.version-error":       stateless("basic/versioning", "backward-compatibility-with-initialization-based-versions"),

		"tools.list":               always(page("server/tools", "listing-tools")),
		"tools.pagination":         always(page("server/utilities/pagination", "implementation-guidelines")),
		"tools.input-schema":       {{r241105, page("server/tools", "tool")}, {r251125, page("basic", "json-schema-usage")}},
		"tools.output-schema":      {{r241105, pinned(r250618, "server/tools", "output-schema")}, {r250618, page("server/tools", "output-schema")}},
		"tools.name-format":        {{r241105, pinned(r251125, "server/tools", "tool-names")}, {r251125, page("server/tools", "tool-names")}},
		"tools.description":        always(page("server/tools", "tool")),
		"tools.fingerprint":        always(page("server/tools", "listing-tools")),
		"tools.unknown-tool":       always(page("server/tools", "error-handling")),
		"tools.invalid-cursor":     always(page("server/utilities/pagination", "error-handling")),
		"tools.call-result":        always(page("server/tools", "tool-result")),
		"tools.structured-content": {{r241105, pinned(r250618, "server/tools", "structured-content")}, {r250618, page("server/tools", "structured-content")}},
		"tools.invalid-arguments":  {{r241105, pinned(r251125, "server/tools", "error-handling")}, {r251125, page("server/tools", "error-handling")}},
		"tools.call-expectations":  always(page("server/tools", "calling-tools")),

		"resources.list":           always(page("server/resources", "listing-resources")),
		"resources.templates-list": always(page("server/resources", "resource-templates")),
		"resources.read":           always(page("server/resources", "reading-resources")),
		"resources.read-unknown":   always(page("server/resources", "error-handling")),
		"resources.subscribe":      always(page("server/resources", "subscriptions")),
		"prompts.list":             always(page("server/prompts", "listing-prompts")),

		"prompts.get":         always(page("server/prompts", "getting-a-prompt")),
		"prompts.get-invalid": always(page("server/prompts", "error-handling")),
		// The completions capability enters in 2025-03-26; 2026-07-28 has no setLevel.
		"completion.complete": {{r241105, pinned(r250326, "server/utilities/completion", "completion-results")},
			{r250326, page("server/utilities/completion", "completion-results")}},
		"logging.set-level": {{r241105, page("server/utilities/logging", "setting-log-level")},
			{r260728, pinned(r251125, "server/utilities/logging", "setting-log-level")}},
		"logging.messages": {{r241105, page("server/utilities/logging", "capabilities")},
			{r260728, page("server/utilities/logging", "per-request-log-level")}},
		// The surface checks of issue 19.
		"lists.item-hygiene": always(page("server/resources", "data-types")),
		"lists.stable":       always(pinned(r260728, "server/tools", "capabilities")),
		"tools.x-mcp-header": always(pinned(r260728, "server/tools", "x-mcp-header")),
		"tools.execution":    always(pinned(r251125, "basic/utilities/tasks", "capabilities")),
		"meta.keys":          {{r241105, pinned(r250618, "basic", "_meta")}, {r250618, page("basic", "_meta")}},
		"quality.metadata":   always(page("server/tools", "tool")),
		"server.card":        always(external(sep2127ServerCard)),
		// Results, error codes and subscriptions of the stateless revision (issue 20).
		"results.input-required": stateless("basic/patterns/mrtr", "supported-requests"),
		"errors.codes":           stateless("basic", "error-codes"),
		"subscriptions.listen":   stateless("basic/patterns/subscriptions", "acknowledgment"),

		"stdio.stdout-purity": stdio,
		"stdio.spawn":         stdio,
		"stdio.shutdown":      {{r241105, page("basic/lifecycle", "stdio")}, {r260728, page("basic/transports/stdio", "shutdown")}},

		"http.status":                httpPost,
		"http.content-type":          httpPost,
		"http.notification-accepted": httpPost,
		"http.sse-framing": {{r241105, page("basic/transports", "http-with-sse")},
			{r250326, page("basic/transports", "sending-messages-to-the-server")},
			{r260728, page("basic/transports/streamable-http", "receiving-messages")}},
		"http.session":        sessions,
		"http.delete-session": sessions,
		"http.protocol-version-header": {{r241105, pinned(r250618, "basic/transports", "protocol-version-header")},
			{r250618, page("basic/transports", "protocol-version-header")},
			{r260728, page("basic/transports/streamable-http", "protocol-version-header")}},
		"http.get-stream": {{r241105, page("basic/transports", "http-with-sse")},
			{r250326, page("basic/transports", "listening-for-messages-from-the-server")},
			{r260728, page("basic/transports/streamable-http", "earlier-streamable-http-revisions")}},
		"http.origin": {{r241105, page("basic/transports", "security-warning")},
			{r260728, page("basic/transports/streamable-http", "security--endpoint")}},

		"sse.endpoint-event": legacySSE,
		"sse.message-events": legacySSE,

		"auth.challenge": always(external(rfc9110Challenge)),
		// Protected resource metadata (RFC 9728) enters the MCP specification in 2025-06-18.
		"auth.resource-metadata": {{r241105, external(rfc9728Metadata)},
			{r250618, page("basic/authorization", "authorization-server-location")},
			{r251125, page("basic/authorization", "protected-resource-metadata-discovery-requirements")},
			{r260728, page("basic/authorization/authorization-server-discovery", "protected-resource-metadata-discovery-requirements")}},
		// The authorization chain past the protected resource metadata. Before 2025-06-18 the
		// rules live in RFC 8414 and RFC 9728; 2026-07-28 splits the page in four.
		"auth.server-metadata": {{r241105, external(rfc8414Metadata)},
			{r250618, page("basic/authorization", "server-metadata-discovery")},
			{r251125, page("basic/authorization", "authorization-server-metadata-discovery")},
			{r260728, page("basic/authorization/authorization-server-discovery", "authorization-server-metadata-discovery")}},
		"auth.pkce": {{r241105, pinned(r251125, "basic/authorization", "authorization-code-protection")},
			{r251125, page("basic/authorization", "authorization-code-protection")},
			{r260728, page("basic/authorization/security-considerations", "authorization-code-protection")}},
		"auth.client-registration": {{r241105, pinned(r250618, "basic/authorization", "dynamic-client-registration")},
			{r250618, page("basic/authorization", "dynamic-client-registration")},
			{r251125, page("basic/authorization", "client-id-metadata-documents")},
			{r260728, page("basic/authorization/client-registration", "client-id-metadata-documents")}},
		"auth.invalid-token": {{r241105, pinned(r250618, "basic/authorization", "token-handling")},
			{r250618, page("basic/authorization", "token-handling")},
			{r260728, page("basic/authorization", "token-handling")}},
		"auth.scope": {{r241105, external(rfc9728Metadata)},
			{r251125, page("basic/authorization", "protected-resource-metadata-discovery-requirements")},
			{r260728, page("basic/authorization", "scope-selection-strategy")}},
		"tls.certificate": always(external(rfc9110HTTPS)),

		// The front page's "Security and Trust & Safety": tool descriptions are untrusted, and
		// implementors SHOULD follow security best practices.
		"security.tool-poisoning": always(page("", "security-and-trust--safety")),
		"security.error-leak":     always(page("", "security-and-trust--safety")),

		"http.concurrent-requests": httpPost,
		"http.sse-priming":         always(pinned(r251125, "basic/transports", "sending-messages-to-the-server")),
		"tls.version": {{r241105, pinned(r250326, "basic/authorization", "security-considerations")},
			{r250326, page("basic/authorization", "security-considerations")},
			{r250618, page("basic/authorization", "communication-security")},
			{r260728, page("basic/authorization/security-considerations", "communication-security")}},
	}
}

// SpecURL is the link to the rule of the check in the given revision (the one the probe
// spoke): a page and heading of that revision, of the revision that states a rule the given
// one lacks, or of the JSON-RPC 2.0 or RFC text the rule comes from.
func (c Check) SpecURL(revision string) string {
	if len(c.spec) == 0 {
		return c.Spec
	}
	return c.spec.url(revision)
}
