package checks

// The official MCP conformance suite (@modelcontextprotocol/conformance) reports its own check
// IDs when it tests a server. This file maps each of them to the checks of this catalogue that
// judge the same rule, so that a server author who knows one set of IDs finds the other, and so
// that the rules the suite tests and this prober does not are named rather than forgotten.
// The data was read from the suite's published release, not from its sources: an ID the suite
// adds later is simply absent until the table is read again.

// OfficialSuiteVersion is the release of the official suite the mapping was read from.
const OfficialSuiteVersion = "0.2.0-alpha.12"

// OfficialScope says which servers an official check can judge.
type OfficialScope int

const (
	// OfficialAnyServer: the rule binds every server (within the revision, transport or
	// capability it names), and the suite needs nothing of the server but the protocol.
	OfficialAnyServer OfficialScope = iota
	// OfficialFixture: the suite judges it only on its own fixture server, through tools,
	// resources, prompts or hooks of known names (test_simple_text, test://static-text, ...).
	OfficialFixture
	// OfficialExtension: the rule belongs to an optional extension (tasks, skills), and the
	// suite's scenarios need the fixture's extension tools.
	OfficialExtension
	// OfficialCredentials: judging it takes a registered client and a token, which a
	// read-only probe never obtains.
	OfficialCredentials
	// OfficialHarness: the suite's own bookkeeping (setup, a trace event, a scenario that
	// could not run), which states no rule.
	OfficialHarness
)

// String names the scope as the catalogue prints it.
func (s OfficialScope) String() string {
	switch s {
	case OfficialAnyServer:
		return "any server"
	case OfficialFixture:
		return "the suite's fixture"
	case OfficialExtension:
		return "an optional extension"
	case OfficialCredentials:
		return "credentials"
	case OfficialHarness:
		return "the suite's harness"
	}
	return "unknown"
}

// OfficialCheck is one check ID the official suite reports when it tests a server.
type OfficialCheck struct {
	// ID is the suite's check ID, as its results name it.
	ID string
	// Scenario is the suite's scenario that reports it.
	Scenario string
	// Scope says which servers the check can judge.
	Scope OfficialScope
	// Tests is what the check tests, briefly.
	Tests string
	// Ours are the IDs of this catalogue that judge the same rule; empty when none does.
	Ours []string
	// Lacked says why no check of ours judges the rule; empty when Ours is not, and for the
	// harness's IDs, which state no rule.
	Lacked string
}

// OfficialSuite is every server check ID of the official suite: scenario by scenario in the
// order the suite lists them, then the wire-schema checks every scenario reports, the
// authorization-server scenarios, and the extensions (tasks, skills).
func OfficialSuite() []OfficialCheck {
	return []OfficialCheck{
		{"server-initialize", "server-initialize", OfficialAnyServer, "initialize gets a valid InitializeResult", []string{"lifecycle.initialize", "lifecycle.initialize-result"}, ""},
		{"server-session-id-visible-ascii", "server-initialize", OfficialAnyServer, "a session id is visible ASCII only", []string{"http.session"}, ""},
		{"server-session-lifecycle-error", "server-session-lifecycle", OfficialHarness, "the scenario could not run", nil, ""},
		{"server-session-lifecycle-skipped", "server-session-lifecycle", OfficialHarness, "no session issued, nothing to test", nil, ""},
		{"server-session-initialized-accepted", "server-session-lifecycle", OfficialAnyServer, "the initialized notification on the session gets 2xx", []string{"http.notification-accepted"}, ""},
		{"server-session-delete-accepted", "server-session-lifecycle", OfficialAnyServer, "DELETE of the session gets 2xx, or 405 if refused", []string{"http.delete-session"}, ""},
		{"server-session-terminated-returns-404", "server-session-lifecycle", OfficialAnyServer, "a request on a deleted session gets 404", []string{"http.session"}, ""},
		{"sep-2575-request-meta-invalid-missing-meta", "server-stateless", OfficialAnyServer, "a request without _meta gets -32602", []string{"discover.meta-required"}, ""},
		{"sep-2575-request-meta-invalid-missing-protocol-version", "server-stateless", OfficialAnyServer, "_meta without protocolVersion gets -32602", []string{"discover.meta-required"}, ""},
		{"sep-2575-request-meta-invalid-missing-client-capabilities", "server-stateless", OfficialAnyServer, "_meta without clientCapabilities gets -32602", []string{"discover.meta-required"}, ""},
		{"sep-2575-http-server-meta-invalid-400", "server-stateless", OfficialAnyServer, "those rejections use HTTP 400", []string{"discover.meta-required"}, ""},
		{"sep-2575-request-meta-client-info-optional", "server-stateless", OfficialAnyServer, "a request whose _meta has no clientInfo is served", []string{"discover.meta-required"}, ""},
		{"sep-2575-server-implements-discover", "server-stateless", OfficialAnyServer, "server/discover returns supportedVersions and capabilities", []string{"discover.result"}, ""},
		{"sep-2575-server-identifies-in-result-meta", "server-stateless", OfficialAnyServer, "the discover result names the server in _meta serverInfo", []string{"discover.result"}, ""},
		{"sep-2575-server-declares-prompts-in-discover", "server-stateless", OfficialAnyServer, "a server serving prompts declares the prompts capability", []string{"lifecycle.capabilities"}, ""},
		{"sep-2575-discover-capabilities-match-handlers", "server-stateless", OfficialAnyServer, "declared capabilities are served, undeclared ones get -32601", []string{"lifecycle.capabilities"}, ""},
		{"sep-2575-server-unsupported-version-error", "server-stateless", OfficialAnyServer, "an unsupported revision gets UnsupportedProtocolVersionError naming the supported ones", []string{"discover.unsupported-version"}, ""},
		{"sep-2575-http-server-unsupported-version-400", "server-stateless", OfficialAnyServer, "that error comes with HTTP 400", []string{"discover.unsupported-version"}, ""},
		{"sep-2575-http-server-header-mismatch-400", "server-stateless", OfficialAnyServer, "a protocol-version header that disagrees with _meta gets 400 and -32020", []string{"stateless.headers"}, ""},
		{"sep-2575-server-rejects-undeclared-capability", "server-stateless", OfficialFixture, "a tool needing an undeclared client capability gets -32021", nil, "needs the suite's tool test_missing_capability; a read-only probe never calls a tool"},
		{"sep-2575-missing-capability-http-400", "server-stateless", OfficialFixture, "that -32021 comes with HTTP 400", nil, "needs the suite's tool test_missing_capability; a read-only probe never calls a tool"},
		{"sep-2575-http-server-method-not-found-404-initialize", "server-stateless", OfficialAnyServer, "initialize on a stateless server gets 404 and -32601", []string{"stateless.removed-methods"}, ""},
		{"sep-2575-http-server-method-not-found-404-ping", "server-stateless", OfficialAnyServer, "ping gets 404 and -32601", []string{"stateless.removed-methods"}, ""},
		{"sep-2575-http-server-method-not-found-404-logging-setlevel", "server-stateless", OfficialAnyServer, "logging/setLevel gets 404 and -32601", []string{"stateless.removed-methods"}, ""},
		{"sep-2575-http-server-method-not-found-404-resources-subscribe", "server-stateless", OfficialAnyServer, "resources/subscribe gets 404 and -32601", []string{"stateless.removed-methods"}, ""},
		{"sep-2575-http-server-method-not-found-404-resources-unsubscribe", "server-stateless", OfficialAnyServer, "resources/unsubscribe gets 404 and -32601", []string{"stateless.removed-methods"}, ""},
		{"sep-2575-http-server-method-not-found-404", "server-stateless", OfficialAnyServer, "an unknown method gets 404 and -32601", []string{"lifecycle.unknown-method", "http.status"}, ""},
		{"sep-2575-http-server-no-independent-requests-on-stream", "server-stateless", OfficialFixture, "a request's stream carries no server request", []string{"stateless.server-requests"}, ""},
		{"sep-2575-server-no-log-without-loglevel", "server-stateless", OfficialFixture, "no log message on a request without _meta logLevel", []string{"logging.messages"}, ""},
		{"sep-2575-server-sends-subscription-ack", "server-stateless", OfficialAnyServer, "subscriptions/listen is acknowledged first", []string{"subscriptions.listen"}, ""},
		{"sep-2575-server-tags-subscription-id", "server-stateless", OfficialAnyServer, "listen-stream notifications carry the subscriptionId", []string{"subscriptions.listen"}, ""},
		{"sep-2575-server-honors-notification-filter", "server-stateless", OfficialAnyServer, "no notification type the client did not ask for", []string{"subscriptions.listen"}, ""},
		{"sep-2575-server-sends-prompts-list-changed-on-subscription", "server-stateless", OfficialFixture, "a prompt list change reaches the listen stream", nil, "needs the suite's hook test_trigger_prompt_change to change the prompt list"},
		{"sep-2575-server-sends-tools-list-changed-on-subscription", "server-stateless", OfficialFixture, "a tool list change reaches the listen stream", nil, "needs the suite's hook test_trigger_tool_change to change the tool list"},
		{"sep-2575-http-server-error-jsonrpc-id", "server-stateless", OfficialAnyServer, "every error response carries the request's id", []string{"jsonrpc.id-echo"}, ""},
		{"logging-set-level", "logging-set-level", OfficialAnyServer, "logging/setLevel returns an empty result", []string{"logging.set-level"}, ""},
		{"ping", "ping", OfficialAnyServer, "ping returns an empty result", []string{"lifecycle.ping"}, ""},
		{"completion-complete", "completion-complete", OfficialFixture, "completion/complete returns completion.values", []string{"completion.complete"}, ""},
		{"tools-list", "tools-list", OfficialAnyServer, "tools/list returns tools with name, description and inputSchema", []string{"tools.list", "tools.input-schema", "tools.description"}, ""},
		{"tools-name-format", "tools-list", OfficialAnyServer, "tool names follow the Tool Names rules", []string{"tools.name-format"}, ""},
		{"tools-list-deterministic-order", "tools-list", OfficialAnyServer, "two tools/list calls return the same order", []string{"lists.stable"}, ""},
		{"tools-call-simple-text", "tools-call-simple-text", OfficialFixture, "a call returns one text block", []string{"tools.call-result"}, ""},
		{"tools-call-image", "tools-call-image", OfficialFixture, "a call returns an image block", []string{"tools.call-result"}, ""},
		{"tools-call-audio", "tools-call-audio", OfficialFixture, "a call returns an audio block", []string{"tools.call-result"}, ""},
		{"tools-call-embedded-resource", "tools-call-embedded-resource", OfficialFixture, "a call returns an embedded resource", []string{"tools.call-result"}, ""},
		{"tools-call-mixed-content", "tools-call-mixed-content", OfficialFixture, "a call returns mixed content blocks", []string{"tools.call-result"}, ""},
		{"tools-call-with-logging", "tools-call-with-logging", OfficialFixture, "a call sends log notifications", nil, "needs the suite's tool test_tool_with_logging; a read-only probe never calls a tool"},
		{"tools-call-error", "tools-call-error", OfficialFixture, "a failing call returns isError: true", []string{"tools.call-result", "tools.call-expectations"}, ""},
		{"tools-call-with-progress", "tools-call-with-progress", OfficialFixture, "a call sends progress notifications", nil, "needs the suite's tool test_tool_with_progress; a read-only probe never calls a tool"},
		{"tools-call-sampling", "tools-call-sampling", OfficialFixture, "a call asks the client for sampling", nil, "needs the suite's tool test_sampling and a client answering sampling"},
		{"tools-call-elicitation", "tools-call-elicitation", OfficialFixture, "a call asks the client for elicitation", nil, "needs the suite's tool test_elicitation and a client answering elicitation"},
		{"json-schema-2020-12-tool-found", "json-schema-2020-12", OfficialHarness, "the suite's schema tool is listed", nil, ""},
		{"json-schema-2020-12-$schema", "json-schema-2020-12", OfficialFixture, "the listed schema keeps its $schema", nil, "needs the suite's tool json_schema_2020_12_tool with a known schema to compare"},
		{"json-schema-2020-12-$defs", "json-schema-2020-12", OfficialFixture, "the listed schema keeps its $defs", nil, "needs the suite's tool json_schema_2020_12_tool with a known schema to compare"},
		{"json-schema-2020-12-additionalProperties", "json-schema-2020-12", OfficialFixture, "the listed schema keeps additionalProperties", nil, "needs the suite's tool json_schema_2020_12_tool with a known schema to compare"},
		{"sep-2106-composition-keywords-preserved", "json-schema-2020-12", OfficialFixture, "the listed schema keeps allOf/anyOf/oneOf/not", nil, "needs the suite's tool json_schema_2020_12_tool with a known schema to compare"},
		{"sep-2106-conditional-keywords-preserved", "json-schema-2020-12", OfficialFixture, "the listed schema keeps if/then/else", nil, "needs the suite's tool json_schema_2020_12_tool with a known schema to compare"},
		{"sep-2106-anchor-keyword-preserved", "json-schema-2020-12", OfficialFixture, "the listed schema keeps $anchor", nil, "needs the suite's tool json_schema_2020_12_tool with a known schema to compare"},
		{"json-schema-2020-12-error", "json-schema-2020-12", OfficialHarness, "the scenario could not run", nil, ""},
		{"elicitation-sep1034-general", "elicitation-sep1034-defaults", OfficialFixture, "an elicitation request with defaults arrives", nil, "needs the suite's tool test_elicitation_sep1034_defaults and a client answering elicitation"},
		{"elicitation-sep1034-string-default", "elicitation-sep1034-defaults", OfficialFixture, "a string field carries its default", nil, "needs the suite's tool test_elicitation_sep1034_defaults and a client answering elicitation"},
		{"elicitation-sep1034-integer-default", "elicitation-sep1034-defaults", OfficialFixture, "an integer field carries its default", nil, "needs the suite's tool test_elicitation_sep1034_defaults and a client answering elicitation"},
		{"elicitation-sep1034-number-default", "elicitation-sep1034-defaults", OfficialFixture, "a number field carries its default", nil, "needs the suite's tool test_elicitation_sep1034_defaults and a client answering elicitation"},
		{"elicitation-sep1034-enum-default", "elicitation-sep1034-defaults", OfficialFixture, "an enum field carries its default", nil, "needs the suite's tool test_elicitation_sep1034_defaults and a client answering elicitation"},
		{"elicitation-sep1034-boolean-default", "elicitation-sep1034-defaults", OfficialFixture, "a boolean field carries its default", nil, "needs the suite's tool test_elicitation_sep1034_defaults and a client answering elicitation"},
		{"elicitation-sep1330-general", "elicitation-sep1330-enums", OfficialFixture, "an elicitation request with enums arrives", nil, "needs the suite's tool test_elicitation_sep1330_enums and a client answering elicitation"},
		{"elicitation-sep1330-untitled-single", "elicitation-sep1330-enums", OfficialFixture, "an untitled single-select enum is well formed", nil, "needs the suite's tool test_elicitation_sep1330_enums and a client answering elicitation"},
		{"elicitation-sep1330-titled-single", "elicitation-sep1330-enums", OfficialFixture, "a titled single-select enum is well formed", nil, "needs the suite's tool test_elicitation_sep1330_enums and a client answering elicitation"},
		{"elicitation-sep1330-legacy-enumnames", "elicitation-sep1330-enums", OfficialFixture, "a legacy enumNames enum is well formed", nil, "needs the suite's tool test_elicitation_sep1330_enums and a client answering elicitation"},
		{"elicitation-sep1330-untitled-multi", "elicitation-sep1330-enums", OfficialFixture, "an untitled multi-select enum is well formed", nil, "needs the suite's tool test_elicitation_sep1330_enums and a client answering elicitation"},
		{"elicitation-sep1330-titled-multi", "elicitation-sep1330-enums", OfficialFixture, "a titled multi-select enum is well formed", nil, "needs the suite's tool test_elicitation_sep1330_enums and a client answering elicitation"},
		{"server-sse-polling-session", "server-sse-polling", OfficialHarness, "the session for the scenario opened", nil, ""},
		{"server-sse-test-reconnection-tool", "server-sse-polling", OfficialFixture, "the suite's reconnection tool exists", nil, "needs the suite's tool test_reconnection"},
		{"server-sse-post-request", "server-sse-polling", OfficialFixture, "a tools/call is answered on an event stream", nil, "needs the suite's tool test_reconnection"},
		{"server-sse-content-type", "server-sse-polling", OfficialHarness, "records the content type of the answer (info)", nil, ""},
		{"server-sse-polling-stream", "server-sse-polling", OfficialFixture, "the event stream has a body", nil, "needs the suite's tool test_reconnection"},
		{"outgoing-request", "server-sse-polling", OfficialHarness, "trace of a request the suite sent (info)", nil, ""},
		{"incoming-response", "server-sse-polling", OfficialHarness, "trace of a response the suite received (info)", nil, ""},
		{"incoming-sse-event", "server-sse-polling", OfficialHarness, "trace of an event the suite received (info)", nil, ""},
		{"stream-closed", "server-sse-polling", OfficialHarness, "trace of a stream closing (info)", nil, ""},
		{"server-sse-priming-event", "server-sse-polling", OfficialFixture, "an event stream opens with a priming event (id, empty data)", []string{"http.sse-priming"}, ""},
		{"server-sse-retry-field", "server-sse-polling", OfficialFixture, "a stream closed early sends retry", []string{"http.sse-priming"}, ""},
		{"server-sse-disconnect-resume", "server-sse-polling", OfficialFixture, "a closed stream resumes with Last-Event-ID", nil, "needs the suite's tool test_reconnection, whose stream closes mid-call"},
		{"server-sse-polling-error", "server-sse-polling", OfficialHarness, "the scenario could not run", nil, ""},
		{"server-sse-multiple-streams-session", "server-sse-multiple-streams", OfficialHarness, "the session for the scenario opened", nil, ""},
		{"server-accepts-multiple-post-streams", "server-sse-multiple-streams", OfficialAnyServer, "concurrent POSTs are all accepted", []string{"http.concurrent-requests"}, ""},
		{"server-sse-streams-functional", "server-sse-multiple-streams", OfficialAnyServer, "each concurrent event stream carries its response", []string{"http.concurrent-requests", "http.sse-framing"}, ""},
		{"server-sse-multiple-streams-error", "server-sse-multiple-streams", OfficialHarness, "the scenario could not run", nil, ""},
		{"resources-list", "resources-list", OfficialAnyServer, "resources/list returns resources with uri and name", []string{"resources.list"}, ""},
		{"resources-read-text", "resources-read-text", OfficialFixture, "resources/read of a text resource returns its text", []string{"resources.read"}, ""},
		{"resources-read-binary", "resources-read-binary", OfficialFixture, "resources/read of a binary resource returns a blob", []string{"resources.read"}, ""},
		{"resources-templates-read", "resources-templates-read", OfficialFixture, "resources/read of a URI built from a template", nil, "needs the suite's template test://template/{id}/data; a URI filled in by the probe could name anything"},
		{"resources-subscribe", "resources-subscribe", OfficialFixture, "resources/subscribe returns an empty result", []string{"resources.subscribe"}, ""},
		{"resources-unsubscribe", "resources-unsubscribe", OfficialFixture, "resources/unsubscribe returns an empty result", []string{"resources.subscribe"}, ""},
		{"sep-2164-no-empty-contents", "sep-2164-resource-not-found", OfficialAnyServer, "an unknown resource never gets empty contents", []string{"resources.read-unknown"}, ""},
		{"sep-2164-error-code", "sep-2164-resource-not-found", OfficialAnyServer, "an unknown resource gets -32602", []string{"resources.read-unknown"}, ""},
		{"sep-2164-data-uri", "sep-2164-resource-not-found", OfficialAnyServer, "that error's data.uri echoes the URI", []string{"resources.read-unknown"}, ""},
		{"prompts-list", "prompts-list", OfficialAnyServer, "prompts/list returns prompts with name and description", []string{"prompts.list"}, ""},
		{"prompts-get-simple", "prompts-get-simple", OfficialFixture, "prompts/get of a prompt without arguments", []string{"prompts.get"}, ""},
		{"prompts-get-with-args", "prompts-get-with-args", OfficialFixture, "prompts/get fills in the arguments", nil, "needs the suite's prompt test_prompt_with_arguments; the probe gets only prompts without required arguments"},
		{"prompts-get-embedded-resource", "prompts-get-embedded-resource", OfficialFixture, "a prompt message embeds a resource", []string{"prompts.get"}, ""},
		{"prompts-get-with-image", "prompts-get-with-image", OfficialFixture, "a prompt message carries an image", []string{"prompts.get"}, ""},
		{"localhost-host-rebinding-rejected", "dns-rebinding-protection", OfficialAnyServer, "a foreign Host and Origin are refused with 4xx", []string{"http.origin"}, ""},
		{"localhost-host-valid-accepted", "dns-rebinding-protection", OfficialAnyServer, "a localhost Host and Origin are accepted", nil, "the probe sends no Origin of its own host; no spec sentence requires a same-origin Origin to be served as such"},
		{"sep-2549-caching-connection", "caching", OfficialHarness, "the scenario could not connect", nil, ""},
		{"sep-2549-tools-list-caching-hints", "caching", OfficialAnyServer, "tools/list carries ttlMs and cacheScope", []string{"results.cache-hints"}, ""},
		{"sep-2549-prompts-list-caching-hints", "caching", OfficialAnyServer, "prompts/list carries ttlMs and cacheScope", []string{"results.cache-hints"}, ""},
		{"sep-2549-resources-list-caching-hints", "caching", OfficialAnyServer, "resources/list carries ttlMs and cacheScope", []string{"results.cache-hints"}, ""},
		{"sep-2549-resources-templates-list-caching-hints", "caching", OfficialAnyServer, "resources/templates/list carries ttlMs and cacheScope", []string{"results.cache-hints"}, ""},
		{"sep-2549-resources-read-caching-hints", "caching", OfficialAnyServer, "resources/read carries ttlMs and cacheScope", []string{"results.cache-hints"}, ""},
		{"sep-2549-ttl-non-negative", "caching", OfficialAnyServer, "ttlMs is a non-negative integer", []string{"results.cache-hints"}, ""},
		{"sep-2549-cache-scope-valid", "caching", OfficialAnyServer, "cacheScope is public or private", []string{"results.cache-hints"}, ""},
		{"sep-2243-server-standard-setup", "http-header-validation", OfficialHarness, "a tool to address was found", nil, ""},
		{"sep-2243-server-reject-invalid-headers", "http-header-validation", OfficialAnyServer, "a missing or mismatched Mcp-Name gets 400", []string{"stateless.headers"}, ""},
		{"sep-2243-server-reject-error-code", "http-header-validation", OfficialAnyServer, "that refusal carries -32020", []string{"stateless.headers"}, ""},
		{"sep-2243-header-name-case-insensitive", "http-header-validation", OfficialAnyServer, "header names are matched case-insensitively", []string{"stateless.headers"}, ""},
		{"sep-2243-server-accepts-whitespace-header-value", "http-header-validation", OfficialAnyServer, "whitespace around a header value is ignored", []string{"stateless.headers"}, ""},
		{"sep-2243-server-custom-setup", "http-custom-header-server-validation", OfficialHarness, "a tool with x-mcp-header was found", nil, ""},
		{"sep-2243-server-no-xmcp-tool", "http-custom-header-server-validation", OfficialHarness, "no tool declares x-mcp-header, nothing to test", nil, ""},
		{"sep-2243-server-no-string-param", "http-custom-header-server-validation", OfficialHarness, "no string x-mcp-header parameter, nothing to test", nil, ""},
		{"sep-2243-server-decode-base64", "http-custom-header-server-validation", OfficialAnyServer, "a Base64-encoded Mcp-Param value is decoded", nil, "proving it means calling the tool; planned under opt-in tool calls"},
		{"sep-2243-server-validate-param-match", "http-custom-header-server-validation", OfficialAnyServer, "an Mcp-Param header omitted for a value in the body is refused", nil, "a server that fails would run the tool; planned under opt-in tool calls"},
		{"sep-2243-server-reject-invalid-param-chars", "http-custom-header-server-validation", OfficialAnyServer, "an Mcp-Param value with invalid characters is refused", nil, "a server that fails would run the tool; planned under opt-in tool calls"},
		{"sep-2243-server-reject-param-mismatch", "http-custom-header-server-validation", OfficialAnyServer, "an Mcp-Param value that differs from the body gets -32020", nil, "a server that fails would run the tool; planned under opt-in tool calls"},
		{"sep-2322-elicitation-incomplete", "input-required-result-basic-elicitation", OfficialFixture, "a tool answers input_required asking for elicitation", nil, "needs the suite's tool test_input_required_result_elicitation"},
		{"sep-2322-elicitation-complete", "input-required-result-basic-elicitation", OfficialFixture, "the retried call with the answer completes", nil, "needs the suite's tool test_input_required_result_elicitation"},
		{"sep-2322-sampling-incomplete", "input-required-result-basic-sampling", OfficialFixture, "a tool answers input_required asking for sampling", nil, "needs the suite's tool test_input_required_result_sampling"},
		{"sep-2322-sampling-complete", "input-required-result-basic-sampling", OfficialFixture, "the retried call with the answer completes", nil, "needs the suite's tool test_input_required_result_sampling"},
		{"sep-2322-list-roots-incomplete", "input-required-result-basic-list-roots", OfficialFixture, "a tool answers input_required asking for roots", nil, "needs the suite's tool test_input_required_result_list_roots"},
		{"sep-2322-list-roots-complete", "input-required-result-basic-list-roots", OfficialFixture, "the retried call with the answer completes", nil, "needs the suite's tool test_input_required_result_list_roots"},
		{"sep-2322-request-state-incomplete", "input-required-result-request-state", OfficialFixture, "input_required carries requestState", nil, "needs the suite's tool test_input_required_result_request_state"},
		{"sep-2322-request-state-complete", "input-required-result-request-state", OfficialFixture, "the retry echoing requestState completes", nil, "needs the suite's tool test_input_required_result_request_state"},
		{"sep-2322-multiple-inputs-incomplete", "input-required-result-multiple-input-requests", OfficialFixture, "one input_required asks several inputs", nil, "needs the suite's tool test_input_required_result_multiple_inputs"},
		{"sep-2322-multiple-inputs-complete", "input-required-result-multiple-input-requests", OfficialFixture, "the retry answering all of them completes", nil, "needs the suite's tool test_input_required_result_multiple_inputs"},
		{"sep-2322-multi-round-r1", "input-required-result-multi-round", OfficialFixture, "first round asks for input", nil, "needs the suite's tool test_input_required_result_multi_round"},
		{"sep-2322-multi-round-r2", "input-required-result-multi-round", OfficialFixture, "second round asks for more input", nil, "needs the suite's tool test_input_required_result_multi_round"},
		{"sep-2322-multi-round-r3", "input-required-result-multi-round", OfficialFixture, "third round completes", nil, "needs the suite's tool test_input_required_result_multi_round"},
		{"sep-2322-missing-response-rerequests", "input-required-result-missing-input-response", OfficialFixture, "a retry without the answer is asked again", nil, "needs the suite's tool test_input_required_result_elicitation"},
		{"sep-2322-non-tool-incomplete", "input-required-result-non-tool-request", OfficialFixture, "prompts/get answers input_required", nil, "needs the suite's prompt test_input_required_result_prompt"},
		{"sep-2322-non-tool-complete", "input-required-result-non-tool-request", OfficialFixture, "the retried prompts/get completes", nil, "needs the suite's prompt test_input_required_result_prompt"},
		{"sep-2322-result-type-included", "input-required-result-result-type", OfficialFixture, "an input_required result says resultType", []string{"results.result-type"}, ""},
		{"sep-2322-not-on-unsupported-requests", "input-required-result-unsupported-methods", OfficialAnyServer, "tools/list and prompts/list never answer input_required", []string{"results.input-required"}, ""},
		{"sep-2322-reject-tampered-state", "input-required-result-tampered-state", OfficialFixture, "a tampered requestState is refused", nil, "needs the suite's tool test_input_required_result_tampered_state"},
		{"sep-2322-respect-client-capabilities", "input-required-result-capability-check", OfficialFixture, "input requests only for declared client capabilities", nil, "needs the suite's tool test_input_required_result_capabilities"},
		{"sep-2322-ignore-unexpected-params", "input-required-result-ignore-extra-params", OfficialFixture, "extra answer parameters are ignored", nil, "needs the suite's tool test_input_required_result_elicitation"},
		{"sep-2322-validate-input-responses", "input-required-result-validate-input", OfficialFixture, "malformed input responses are refused", nil, "needs the suite's tool test_input_required_result_elicitation"},
		{"sep-2322-error-on-protocol-error", "input-required-result-validate-input", OfficialFixture, "a protocol error in an answer gets a JSON-RPC error", nil, "needs the suite's tool test_input_required_result_elicitation"},
		{"wire-schema-valid", "every scenario", OfficialAnyServer, "every message the server sent is valid against the revision's JSON schema", []string{"jsonrpc.message-shape", "lifecycle.initialize-result", "discover.result", "tools.list", "resources.list", "resources.templates-list", "prompts.list"}, ""},
		{"wire-schema-harness-error", "every scenario", OfficialHarness, "the suite itself sent an invalid message", nil, ""},
		{"authorization-server-metadata", "authorization-server-metadata-endpoint", OfficialAnyServer, "authorization-server metadata is served with issuer, endpoints and response types", []string{"auth.server-metadata"}, ""},
		{"authorization-server-metadata-cimd", "authorization-server-metadata-endpoint", OfficialAnyServer, "the metadata says client_id_metadata_document_supported", []string{"auth.client-registration"}, ""},
		{"authorization-code-grant", "authorization-code-grant", OfficialCredentials, "a full authorization-code grant succeeds", nil, "needs a registered client and a user's consent; the probe never registers a client nor requests a token"},
		{"tasks-status-notifications", "tasks-status-notifications", OfficialExtension, "task status notifications (pending in the suite, reported as a warning)", nil, "the tasks extension (SEP-2663) is optional; its scenarios need the suite's task tools"},
		{"sep-2663-cancel-ack-empty-result", "tasks-lifecycle", OfficialExtension, "tasks/cancel is acknowledged with an empty result", nil, "the tasks extension (SEP-2663) is optional; its scenarios need the suite's task tools"},
		{"sep-2663-durable-create-strong-consistency", "tasks-dispatch-and-envelope", OfficialExtension, "a created task is visible to tasks/get at once", nil, "the tasks extension (SEP-2663) is optional; its scenarios need the suite's task tools"},
		{"sep-2663-legacy-task-param-ignored", "tasks-dispatch-and-envelope", OfficialExtension, "the legacy task parameter is ignored", nil, "the tasks extension (SEP-2663) is optional; its scenarios need the suite's task tools"},
		{"sep-2663-mrtr-synchronous-before-task-creation", "tasks-mrtr-composition", OfficialExtension, "input is asked before the task is created", nil, "the tasks extension (SEP-2663) is optional; its scenarios need the suite's task tools"},
		{"sep-2663-result-type-task-on-create", "tasks-lifecycle", OfficialExtension, "a task-creating call answers resultType task", nil, "the tasks extension (SEP-2663) is optional; its scenarios need the suite's task tools"},
		{"sep-2663-routing-headers-accepted-on-tasks-get", "tasks-request-headers", OfficialExtension, "routing headers on tasks/get are accepted", nil, "the tasks extension (SEP-2663) is optional; its scenarios need the suite's task tools"},
		{"sep-2663-server-rejects-mismatched-mcp-name-on-tasks-get", "tasks-request-headers", OfficialExtension, "a mismatched Mcp-Name on tasks/get is refused", nil, "the tasks extension (SEP-2663) is optional; its scenarios need the suite's task tools"},
		{"sep-2663-server-rejects-undeclared-client", "tasks-capability-negotiation", OfficialExtension, "task opt-in refused from a client not declaring tasks", nil, "the tasks extension (SEP-2663) is optional; its scenarios need the suite's task tools"},
		{"sep-2663-server-returns-missing-capability-data-shape", "tasks-required-task-error", OfficialExtension, "that error names the missing capability", nil, "the tasks extension (SEP-2663) is optional; its scenarios need the suite's task tools"},
		{"sep-2663-server-returns-missing-capability-when-required", "tasks-required-task-error", OfficialExtension, "a task-required tool without task support gets -32021", nil, "the tasks extension (SEP-2663) is optional; its scenarios need the suite's task tools"},
		{"sep-2663-tasks-get-invalid-task-id-32602", "tasks-dispatch-and-envelope", OfficialExtension, "tasks/get of an unknown task gets -32602", nil, "the tasks extension (SEP-2663) is optional; its scenarios need the suite's task tools"},
		{"sep-2663-tasks-get-status-completed", "tasks-lifecycle", OfficialExtension, "tasks/get of a finished task says completed", nil, "the tasks extension (SEP-2663) is optional; its scenarios need the suite's task tools"},
		{"sep-2663-tasks-get-status-failed", "tasks-lifecycle", OfficialExtension, "tasks/get of a failed task says failed", nil, "the tasks extension (SEP-2663) is optional; its scenarios need the suite's task tools"},
		{"sep-2663-tasks-get-status-input-required", "tasks-mrtr-input", OfficialExtension, "a task waiting for input says input_required", nil, "the tasks extension (SEP-2663) is optional; its scenarios need the suite's task tools"},
		{"sep-2663-tasks-get-status-working", "tasks-lifecycle", OfficialExtension, "tasks/get of a running task says working", nil, "the tasks extension (SEP-2663) is optional; its scenarios need the suite's task tools"},
		{"sep-2663-tasks-methods-non-declaring", "tasks-capability-negotiation", OfficialExtension, "task methods refused to a client not declaring tasks", nil, "the tasks extension (SEP-2663) is optional; its scenarios need the suite's task tools"},
		{"sep-2663-tasks-result-removed-method-not-found", "tasks-dispatch-and-envelope", OfficialExtension, "the removed tasks/result gets -32601", nil, "the tasks extension (SEP-2663) is optional; its scenarios need the suite's task tools"},
		{"sep-2663-tool-error-uses-completed-status", "tasks-lifecycle", OfficialExtension, "a tool error ends the task as completed", nil, "the tasks extension (SEP-2663) is optional; its scenarios need the suite's task tools"},
		{"sep-2663-wrong-task-id-for-routing-header-mismatch", "tasks-request-headers", OfficialExtension, "a routing header naming another task is refused", nil, "the tasks extension (SEP-2663) is optional; its scenarios need the suite's task tools"},
		{"tasks-cancel-terminal-idempotent-ack", "tasks-lifecycle", OfficialExtension, "cancelling a finished task is acknowledged", nil, "the tasks extension (SEP-2663) is optional; its scenarios need the suite's task tools"},
		{"tasks-capability-bootstrap", "tasks-capability-negotiation", OfficialHarness, "the session for the scenario opened", nil, ""},
		{"tasks-create-result-no-request-state", "tasks-request-state-removal", OfficialExtension, "a task-creation result carries no requestState", nil, "the tasks extension (SEP-2663) is optional; its scenarios need the suite's task tools"},
		{"tasks-dispatch-bootstrap", "tasks-dispatch-and-envelope", OfficialHarness, "the session for the scenario opened", nil, ""},
		{"tasks-extension-advertised", "tasks-capability-negotiation", OfficialExtension, "the server advertises the tasks extension", nil, "the tasks extension (SEP-2663) is optional; its scenarios need the suite's task tools"},
		{"tasks-get-detailed-no-request-state", "tasks-request-state-removal", OfficialExtension, "a detailed tasks/get carries no requestState", nil, "the tasks extension (SEP-2663) is optional; its scenarios need the suite's task tools"},
		{"tasks-headers-bootstrap", "tasks-request-headers", OfficialHarness, "the session for the scenario opened", nil, ""},
		{"tasks-headers-reject-mismatched-method", "tasks-request-headers", OfficialExtension, "a mismatched Mcp-Method on a task request is refused", nil, "the tasks extension (SEP-2663) is optional; its scenarios need the suite's task tools"},
		{"tasks-headers-tolerate-mcp-method-on-tools-call", "tasks-request-headers", OfficialExtension, "Mcp-Method on a task-creating tools/call is accepted", nil, "the tasks extension (SEP-2663) is optional; its scenarios need the suite's task tools"},
		{"tasks-immediate-result-shortcut", "tasks-dispatch-and-envelope", OfficialExtension, "a task-capable call may answer at once", nil, "the tasks extension (SEP-2663) is optional; its scenarios need the suite's task tools"},
		{"tasks-lifecycle-bootstrap", "tasks-lifecycle", OfficialHarness, "the session for the scenario opened", nil, ""},
		{"tasks-mrtr-input-bootstrap", "tasks-mrtr-input", OfficialHarness, "the session for the scenario opened", nil, ""},
		{"tasks-mrtr-partial-fulfillment", "tasks-mrtr-input", OfficialExtension, "a partial answer leaves the task waiting", nil, "the tasks extension (SEP-2663) is optional; its scenarios need the suite's task tools"},
		{"tasks-mrtr-tasks-update-resumes", "tasks-mrtr-input", OfficialExtension, "tasks/update with the input resumes the task", nil, "the tasks extension (SEP-2663) is optional; its scenarios need the suite's task tools"},
		{"tasks-no-early-ttl-expiry", "tasks-wire-fields", OfficialExtension, "a task is kept for its ttl", nil, "the tasks extension (SEP-2663) is optional; its scenarios need the suite's task tools"},
		{"tasks-no-related-task-meta-on-inlined-result", "tasks-wire-fields", OfficialExtension, "an inlined result carries no related-task _meta", nil, "the tasks extension (SEP-2663) is optional; its scenarios need the suite's task tools"},
		{"tasks-per-request-meta-opt-in", "tasks-capability-negotiation", OfficialExtension, "task creation is opted into per request in _meta", nil, "the tasks extension (SEP-2663) is optional; its scenarios need the suite's task tools"},
		{"tasks-removed-tasks-list", "tasks-dispatch-and-envelope", OfficialExtension, "the removed tasks/list gets -32601", nil, "the tasks extension (SEP-2663) is optional; its scenarios need the suite's task tools"},
		{"tasks-request-state-bootstrap", "tasks-request-state-removal", OfficialHarness, "the session for the scenario opened", nil, ""},
		{"tasks-request-state-removal-setup", "tasks-request-state-removal", OfficialHarness, "a task for the scenario was created", nil, ""},
		{"tasks-required-error-bootstrap", "tasks-required-task-error", OfficialHarness, "the session for the scenario opened", nil, ""},
		{"tasks-result-type-complete-on-non-task-responses", "tasks-dispatch-and-envelope", OfficialExtension, "non-task answers say resultType complete", nil, "the tasks extension (SEP-2663) is optional; its scenarios need the suite's task tools"},
		{"tasks-server-directed-creation-no-hint", "tasks-dispatch-and-envelope", OfficialExtension, "the server may create a task without a client hint", nil, "the tasks extension (SEP-2663) is optional; its scenarios need the suite's task tools"},
		{"tasks-sync-tool-call", "tasks-lifecycle", OfficialExtension, "a call without task opt-in answers synchronously", nil, "the tasks extension (SEP-2663) is optional; its scenarios need the suite's task tools"},
		{"tasks-wire-field-renames", "tasks-wire-fields", OfficialExtension, "task objects use the renamed wire fields", nil, "the tasks extension (SEP-2663) is optional; its scenarios need the suite's task tools"},
		{"tasks-wire-fields-bootstrap", "tasks-wire-fields", OfficialHarness, "the session for the scenario opened", nil, ""},
		{"sep-2640-capability-directory-read-flag", "sep-2640-skills-directory", OfficialExtension, "the capability flags directory reads", nil, "the skills extension (SEP-2640) is optional"},
		{"sep-2640-directory-read-method-registered", "sep-2640-skills-directory", OfficialExtension, "the directory-read method is served", nil, "the skills extension (SEP-2640) is optional"},
		{"sep-2640-directory-read-result-resources-shape", "sep-2640-skills-directory", OfficialExtension, "a directory read lists well-formed resources", nil, "the skills extension (SEP-2640) is optional"},
		{"sep-2640-directory-read-subdir-mimetype", "sep-2640-skills-directory", OfficialExtension, "subdirectories carry the inode/directory type", nil, "the skills extension (SEP-2640) is optional"},
		{"sep-2640-directory-read-invalid-params", "sep-2640-skills-directory", OfficialExtension, "a bad directory read gets -32602", nil, "the skills extension (SEP-2640) is optional"},
		{"sep-2640-directory-read-pagination", "sep-2640-skills-directory", OfficialExtension, "directory reads paginate", nil, "the skills extension (SEP-2640) is optional"},
		{"sep-2640-capability-declaration-inline", "sep-2640-skills-enumeration", OfficialExtension, "the skills capability is declared inline", nil, "the skills extension (SEP-2640) is optional"},
		{"sep-2640-capability-requires-resources", "sep-2640-skills-enumeration", OfficialExtension, "the skills capability comes with resources", nil, "the skills extension (SEP-2640) is optional"},
		{"sep-2640-capability-commits-to-methods", "sep-2640-skills-enumeration", OfficialExtension, "a declared skills capability serves its methods", nil, "the skills extension (SEP-2640) is optional"},
		{"sep-2640-capability-empty-object", "sep-2640-skills-enumeration", OfficialExtension, "the skills capability is an object", nil, "the skills extension (SEP-2640) is optional"},
		{"sep-2640-skills-list-implemented", "sep-2640-skills-enumeration", OfficialExtension, "skills/list is served", nil, "the skills extension (SEP-2640) is optional"},
		{"sep-2640-skills-list-pagination", "sep-2640-skills-enumeration", OfficialExtension, "skills/list paginates", nil, "the skills extension (SEP-2640) is optional"},
		{"sep-2640-skills-list-entry-atomic", "sep-2640-skills-enumeration", OfficialExtension, "each listed skill is complete", nil, "the skills extension (SEP-2640) is optional"},
		{"sep-2640-skills-list-cache-attributes", "sep-2640-skills-enumeration", OfficialExtension, "skills/list carries cache hints", nil, "the skills extension (SEP-2640) is optional"},
		{"sep-2640-entry-uri-required", "sep-2640-skills-enumeration", OfficialExtension, "a skill entry has a uri", nil, "the skills extension (SEP-2640) is optional"},
		{"sep-2640-entry-frontmatter-required", "sep-2640-skills-enumeration", OfficialExtension, "a skill entry has frontmatter", nil, "the skills extension (SEP-2640) is optional"},
		{"sep-2640-entry-uri-matches-frontmatter-name", "sep-2640-skills-enumeration", OfficialExtension, "a skill's uri matches its name", nil, "the skills extension (SEP-2640) is optional"},
		{"sep-2640-skill-uri-scheme", "sep-2640-skills-enumeration", OfficialExtension, "skill URIs use the skill scheme", nil, "the skills extension (SEP-2640) is optional"},
		{"sep-2640-entry-resources-required", "sep-2640-skills-enumeration", OfficialExtension, "a skill entry lists its resources", nil, "the skills extension (SEP-2640) is optional"},
		{"sep-2640-resources-complete", "sep-2640-skills-enumeration", OfficialExtension, "a skill's resource list is complete", nil, "the skills extension (SEP-2640) is optional"},
		{"sep-2640-resources-uri-within-skill", "sep-2640-skills-enumeration", OfficialExtension, "a skill's resources lie under its uri", nil, "the skills extension (SEP-2640) is optional"},
		{"sep-2640-resources-digest-format", "sep-2640-skills-enumeration", OfficialExtension, "resource digests are well formed", nil, "the skills extension (SEP-2640) is optional"},
		{"sep-2640-resources-size-required", "sep-2640-skills-enumeration", OfficialExtension, "resources carry their size", nil, "the skills extension (SEP-2640) is optional"},
		{"sep-2640-limit-resources-per-skill", "sep-2640-skills-enumeration", OfficialExtension, "a skill stays under the resource count limit", nil, "the skills extension (SEP-2640) is optional"},
		{"sep-2640-limit-total-size", "sep-2640-skills-enumeration", OfficialExtension, "a skill stays under the total size limit", nil, "the skills extension (SEP-2640) is optional"},
		{"sep-2640-metadata-reserved-prefix", "sep-2640-skills-enumeration", OfficialExtension, "metadata keys avoid the reserved prefix", nil, "the skills extension (SEP-2640) is optional"},
		{"sep-2640-name-naming-rules", "sep-2640-skills-enumeration", OfficialExtension, "skill names follow the naming rules", nil, "the skills extension (SEP-2640) is optional"},
		{"sep-2640-authority-reg-name", "sep-2640-skills-enumeration", OfficialExtension, "the URI authority is a registered name", nil, "the skills extension (SEP-2640) is optional"},
		{"sep-2640-names-should-be-unique", "sep-2640-skills-enumeration", OfficialExtension, "skill names are unique", nil, "the skills extension (SEP-2640) is optional"},
		{"sep-2640-skills-get-implemented", "sep-2640-skills-enumeration", OfficialExtension, "skills/get is served", nil, "the skills extension (SEP-2640) is optional"},
		{"sep-2640-skills-get-entry-shape", "sep-2640-skills-enumeration", OfficialExtension, "skills/get returns a well-formed entry", nil, "the skills extension (SEP-2640) is optional"},
		{"sep-2640-skills-get-cache-attributes", "sep-2640-skills-enumeration", OfficialExtension, "skills/get carries cache hints", nil, "the skills extension (SEP-2640) is optional"},
		{"sep-2640-skills-get-no-cursor", "sep-2640-skills-enumeration", OfficialExtension, "skills/get returns no cursor", nil, "the skills extension (SEP-2640) is optional"},
		{"sep-2640-skills-get-unknown-uri-invalid-params", "sep-2640-skills-enumeration", OfficialExtension, "skills/get of an unknown uri gets -32602", nil, "the skills extension (SEP-2640) is optional"},
		{"sep-2640-skillmd-required", "sep-2640-skills-enumeration", OfficialExtension, "every skill has a SKILL.md", nil, "the skills extension (SEP-2640) is optional"},
		{"sep-2640-skillmd-frontmatter", "sep-2640-skills-enumeration", OfficialExtension, "SKILL.md opens with frontmatter", nil, "the skills extension (SEP-2640) is optional"},
		{"sep-2640-entry-frontmatter-identical", "sep-2640-skills-enumeration", OfficialExtension, "the entry's frontmatter equals SKILL.md's", nil, "the skills extension (SEP-2640) is optional"},
		{"sep-2640-skillmd-mimetype", "sep-2640-skills-manifest", OfficialExtension, "SKILL.md is served as text/markdown", nil, "the skills extension (SEP-2640) is optional"},
		{"sep-2640-skillmd-metadata-name", "sep-2640-skills-manifest", OfficialExtension, "SKILL.md names the skill", nil, "the skills extension (SEP-2640) is optional"},
		{"sep-2640-skillmd-metadata-description", "sep-2640-skills-manifest", OfficialExtension, "SKILL.md describes the skill", nil, "the skills extension (SEP-2640) is optional"},
		{"sep-2640-final-segment-equals-name", "sep-2640-skills-manifest", OfficialExtension, "the URI's last segment is the skill name", nil, "the skills extension (SEP-2640) is optional"},
		{"sep-2640-meta-prefix", "sep-2640-skills-manifest", OfficialExtension, "skill _meta keys use the extension prefix", nil, "the skills extension (SEP-2640) is optional"},
	}
}

// OfficialCounts sums up the mapping for the catalogue.
type OfficialCounts struct {
	// Total is the number of server check IDs of the suite.
	Total int
	// AnyServer is the number of them whose rule applies to any server.
	AnyServer int
	// Covered is the number of them judged by at least one check of ours.
	Covered int
	// Lacked is the number of those applying to any server that no check of ours judges.
	Lacked int
}

// CountOfficial computes the counts of a mapping.
func CountOfficial(cs []OfficialCheck) OfficialCounts {
	var n OfficialCounts
	for _, c := range cs {
		n.Total++
		if len(c.Ours) > 0 {
			n.Covered++
		}
		if c.Scope != OfficialAnyServer {
			continue
		}
		n.AnyServer++
		if len(c.Ours) == 0 {
			n.Lacked++
		}
	}
	return n
}

// OfficialIDsByCheck indexes a mapping by our check ID: for each, the official IDs that test
// the same rule, in the mapping's order.
func OfficialIDsByCheck(cs []OfficialCheck) map[string][]string {
	by := make(map[string][]string)
	for _, c := range cs {
		for _, id := range c.Ours {
			by[id] = append(by[id], c.ID)
		}
	}
	return by
}
