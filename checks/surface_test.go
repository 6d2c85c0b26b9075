package checks

import (
	"strings"
	"testing"

	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/protocol"
)

// surfaceSession is a scripted session whose initialize result, tools/list result and other
// answers are given; rev is the revision the initialize result names.
func surfaceSession(rev, caps, tools string, edits ...func(p *sessionPlan)) *probe.Result {
	return scriptedSession(protocol.TransportStdio, append([]func(p *sessionPlan){func(p *sessionPlan) {
		p.initResult = `{"protocolVersion":"` + rev + `","capabilities":` + caps + `,"serverInfo":{"name":"fixture","version":"1.0.0"}}`
		if tools != "" {
			p.toolsResult = tools
		}
	}}, edits...)...)
}

func answerStep(step, result string) func(p *sessionPlan) {
	return func(p *sessionPlan) { p.answers[step] = resultReply(result) }
}

const surfaceToolsCaps = `{"tools":{}}`

func TestXMCPHeader(t *testing.T) {
	tool := func(props string) string {
		return `{"tools":[{"name":"sql","inputSchema":{"type":"object","properties":` + props + `}}]}`
	}
	rev := protocol.Revision20260728
	// 2026-07-28 server/tools, x-mcp-header: "MUST NOT be empty"; "MUST match HTTP field-name
	// token syntax (1*tchar, RFC 9110 Section 5.1)"; "MUST be case-insensitively unique among
	// all x-mcp-header values in the inputSchema"; "MUST only be applied to parameters with
	// primitive types (integer, string, boolean). Parameters with type number are not
	// permitted"; "MUST only be applied to properties that are statically reachable".
	runCheckRows(t, "tools.x-mcp-header", []checkRow{
		{"valid", surfaceSession(rev, surfaceToolsCaps, tool(`{"region":{"type":"string","x-mcp-header":"Region"},"n":{"type":"integer","x-mcp-header":"N"},"nested":{"type":"object","properties":{"on":{"type":"boolean","x-mcp-header":"On"}}}}`)), StatusPass, "3 x-mcp-header", false},
		{"none", surfaceSession(rev, surfaceToolsCaps, tool(`{"q":{"type":"string"}}`)), StatusSkip, "none of 1 tools", false},
		{"before 2026-07-28", surfaceSession(protocol.Revision20251125, surfaceToolsCaps, tool(`{"q":{"type":"string","x-mcp-header":""}}`)), StatusSkip, "exists from 2026-07-28", false},
		{"empty", surfaceSession(rev, surfaceToolsCaps, tool(`{"q":{"type":"string","x-mcp-header":""}}`)), StatusFail, "is empty", false},
		{"not a token", surfaceSession(rev, surfaceToolsCaps, tool(`{"q":{"type":"string","x-mcp-header":"My Region"}}`)), StatusFail, "not an RFC 9110 token", false},
		{"CRLF", surfaceSession(rev, surfaceToolsCaps, tool(`{"q":{"type":"string","x-mcp-header":"A\r\nB"}}`)), StatusFail, "not an RFC 9110 token", false},
		{"duplicate", surfaceSession(rev, surfaceToolsCaps, tool(`{"a":{"type":"string","x-mcp-header":"Region"},"b":{"type":"string","x-mcp-header":"REGION"}}`)), StatusFail, "unique, case-insensitively", false},
		{"number", surfaceSession(rev, surfaceToolsCaps, tool(`{"a":{"type":"number","x-mcp-header":"A"}}`)), StatusFail, `type "number"`, false},
		{"array", surfaceSession(rev, surfaceToolsCaps, tool(`{"a":{"type":"array","items":{"type":"string"},"x-mcp-header":"A"}}`)), StatusFail, `type "array"`, false},
		{"under items", surfaceSession(rev, surfaceToolsCaps, tool(`{"a":{"type":"array","items":{"type":"string","x-mcp-header":"A"}}}`)), StatusFail, "statically reachable", false},
		{"under anyOf", surfaceSession(rev, surfaceToolsCaps, tool(`{"a":{"anyOf":[{"type":"string","x-mcp-header":"A"}]}}`)), StatusFail, "statically reachable", false},
		{"data is no annotation", surfaceSession(rev, surfaceToolsCaps, tool(`{"a":{"type":"object","default":{"x-mcp-header":""}}}`)), StatusSkip, "none of 1 tools", false},
	})
}

func TestToolExecution(t *testing.T) {
	rev := protocol.Revision20251125
	tools := `{"tools":[{"name":"long","inputSchema":{"type":"object"},"execution":{"taskSupport":"optional"}}]}`
	forbidden := `{"tools":[{"name":"long","inputSchema":{"type":"object"},"execution":{"taskSupport":"forbidden"}}]}`
	// 2025-11-25 basic/utilities/tasks, Capabilities: "Servers and clients that support
	// task-augmented requests MUST declare a tasks capability during initialization"; "If a
	// request type is not present, it does not support task-augmentation."
	runCheckRows(t, "tools.execution", []checkRow{
		{"declared", surfaceSession(rev, `{"tools":{},"tasks":{"requests":{"tools":{"call":{}}}}}`, tools), StatusPass, "1 tool(s)", false},
		{"undeclared", surfaceSession(rev, surfaceToolsCaps, tools), StatusFail, "declares no tasks.requests.tools.call", false},
		{"tasks without tools.call", surfaceSession(rev, `{"tools":{},"tasks":{"list":{}}}`, tools), StatusFail, "declares no tasks", false},
		{"forbidden", surfaceSession(rev, surfaceToolsCaps, forbidden), StatusSkip, "no tool declares", false},
		{"2026-07-28", surfaceSession(protocol.Revision20260728, surfaceToolsCaps, tools), StatusSkip, "moved tasks into an extension", false},
	})
}

func TestMetaKeys(t *testing.T) {
	withMeta := func(rev, meta string) *probe.Result {
		return surfaceSession(rev, surfaceToolsCaps, `{"tools":[{"name":"a","inputSchema":{"type":"object","properties":{"_meta":{"type":"object"}}},"_meta":`+meta+`}]}`)
	}
	rev := protocol.Revision20251125
	// basic, _meta (2025-06-18 and later): a prefix "MUST be a series of labels separated by
	// dots (.), followed by a slash (/)"; "Labels MUST start with a letter and end with a
	// letter or digit"; a name, "Unless empty, MUST begin and end with an alphanumeric
	// character". Reserved prefixes are "reserved for MCP use" (no keyword: advice).
	runCheckRows(t, "meta.keys", []checkRow{
		{"valid", withMeta(rev, `{"com.example/key":1,"progressToken":2,"io.modelcontextprotocol/related-task":{"taskId":"x"},"com.example.mcp/x":3,"com.example/":4}`), StatusPass, "5 distinct key(s)", false},
		{"label starts with a digit", withMeta(rev, `{"1example.com/key":1}`), StatusFail, `label "1example"`, false},
		{"label ends with a hyphen", withMeta(rev, `{"example-/key":1}`), StatusFail, "label", false},
		{"empty prefix", withMeta(rev, `{"/key":1}`), StatusFail, "no prefix", false},
		{"name with a space", withMeta(rev, `{"com.example/my key":1}`), StatusFail, "has the name", false},
		{"name ends with an underscore", withMeta(rev, `{"key_":1}`), StatusFail, "has the name", false},
		{"reserved prefix", withMeta(rev, `{"io.modelcontextprotocol/custom":1}`), StatusWarn, "reserves for MCP", false},
		{"reserved in 2025-06-18", withMeta(protocol.Revision20250618, `{"tools.mcp.com/x":1}`), StatusWarn, "reserves for MCP", false},
		{"not reserved in 2025-06-18", withMeta(protocol.Revision20250618, `{"io.modelcontextprotocol/custom":1}`), StatusPass, "", false},
		{"before 2025-06-18", withMeta(protocol.Revision20250326, `{"/key":1}`), StatusSkip, "from 2025-06-18", false},
		{"no _meta", surfaceSession(rev, surfaceToolsCaps, ""), StatusSkip, "no _meta", false},
	})
}

func TestItemHygiene(t *testing.T) {
	rev := protocol.Revision20251125
	caps := `{"tools":{},"resources":{},"prompts":{}}`
	good := func(p *sessionPlan) {
		p.answers[probe.StepResourcesList] = resultReply(`{"resources":[{"uri":"file:///a","name":"a","size":10,"mimeType":"text/plain; charset=utf-8","annotations":{"lastModified":"2025-01-12T15:00:58Z"},"icons":[{"src":"https://x/i.png","mimeType":"image/png","sizes":["48x48","any"]}]}]}`)
		p.answers[probe.StepTemplatesList] = resultReply(`{"resourceTemplates":[{"uriTemplate":"file:///{p}","name":"t"}]}`)
		p.answers[probe.StepPromptsList] = resultReply(`{"prompts":[{"name":"p"},{"name":"q"}]}`)
	}
	with := func(step, result string) *probe.Result {
		return surfaceSession(rev, caps, "", good, answerStep(step, result))
	}
	// server/resources, Data Types: uri "Unique identifier for the resource", size "Optional
	// size in bytes"; server/prompts: name "Unique identifier for the prompt"; Annotations:
	// lastModified "An ISO 8601 formatted timestamp"; basic, icons: sizes "48x48" or "any".
	// None carries a keyword: advice, which warns.
	runCheckRows(t, "lists.item-hygiene", []checkRow{
		{"clean", surfaceSession(rev, caps, "", good), StatusPass, "listed item(s)", false},
		{"duplicate uri", with(probe.StepResourcesList, `{"resources":[{"uri":"file:///a","name":"a"},{"uri":"file:///a","name":"b"}]}`), StatusWarn, "repeats the uri", false},
		{"duplicate prompt", with(probe.StepPromptsList, `{"prompts":[{"name":"p"},{"name":"p"}]}`), StatusWarn, "repeats the name", false},
		{"empty name", with(probe.StepTemplatesList, `{"resourceTemplates":[{"uriTemplate":"x://{a}","name":""}]}`), StatusWarn, "empty name", false},
		{"negative size", with(probe.StepResourcesList, `{"resources":[{"uri":"file:///a","name":"a","size":-1}]}`), StatusWarn, "negative size -1", false},
		{"bad MIME", with(probe.StepResourcesList, `{"resources":[{"uri":"file:///a","name":"a","mimeType":"text"}]}`), StatusWarn, "not a MIME type", false},
		{"bad lastModified", with(probe.StepResourcesList, `{"resources":[{"uri":"file:///a","name":"a","annotations":{"lastModified":"yesterday"}}]}`), StatusWarn, "ISO 8601", false},
		{"bad icon size", with(probe.StepPromptsList, `{"prompts":[{"name":"p","icons":[{"src":"https://x/i.png","sizes":["48"]}]}]}`), StatusWarn, "neither WxH", false},
		{"bad icon MIME", with(probe.StepPromptsList, `{"prompts":[{"name":"p","icons":[{"src":"https://x/i.png","mimeType":"png"}]}]}`), StatusWarn, "not a MIME type", false},
		{"nothing declared", surfaceSession(rev, `{}`, ""), StatusSkip, "lists nothing", false},
	})
	f := evaluateCheck(t, "lists.item-hygiene", with(probe.StepResourcesList, `{"resources":[{"uri":"file:///a","name":"a","size":-1}]}`))
	if f.Severity != SeverityAdvice {
		t.Errorf("severity %q, want advice", f.Severity)
	}
}

func TestQualityMetadata(t *testing.T) {
	rich := `{"protocolVersion":"2025-11-25","capabilities":{"tools":{},"prompts":{}},"serverInfo":{"name":"s","title":"S","version":"1"},"instructions":"Use it well."}`
	tools := `{"tools":[{"name":"a","title":"A","description":"d","annotations":{"readOnlyHint":true},"inputSchema":{"type":"object","properties":{"x":{"type":"string","description":"X."}}}}]}`
	prompts := `{"prompts":[{"name":"p","description":"P.","arguments":[{"name":"q","description":"Q."}]}]}`
	richPlan := func(p *sessionPlan) {
		p.initResult, p.toolsResult = rich, tools
		p.answers[probe.StepPromptsList] = resultReply(prompts)
	}
	runCheckRows(t, "quality.metadata", []checkRow{
		{"complete", scriptedSession(protocol.TransportStdio, richPlan), StatusPass, "carry the titles", false},
		{"bare", scriptedSession(protocol.TransportStdio, richPlan, func(p *sessionPlan) {
			p.initResult = `{"protocolVersion":"2025-11-25","capabilities":{"tools":{},"prompts":{}},"serverInfo":{"name":"s","version":"1"}}`
			p.toolsResult = `{"tools":[{"name":"a","inputSchema":{"type":"object","properties":{"x":{"type":"string"}}}}]}`
			p.answers[probe.StepPromptsList] = resultReply(`{"prompts":[{"name":"p","arguments":[{"name":"q"}]}]}`)
		}), StatusWarn, "1 tools without a title (a); 1 tools without annotations (a); 1 tool arguments without a description (a.x); 1 prompts without a description (p); 1 prompt arguments without a description (p.q); 2 server fields missing (serverInfo.title, instructions)", false},
		{"2024-11-05 asks for no titles", surfaceSession(protocol.Revision20241105, surfaceToolsCaps, `{"tools":[{"name":"a","inputSchema":{"type":"object"}}]}`), StatusPass, "", false},
	})
	f := evaluateCheck(t, "quality.metadata", surfaceSession(protocol.Revision20251125, surfaceToolsCaps, ""))
	if f.Severity != SeverityAdvice || len(f.Evidence) != 1 {
		t.Errorf("severity %q with %d evidence, want one advice", f.Severity, len(f.Evidence))
	}
}

// stableSession lists tools again at the end of the main session and on the negotiation
// connection.
func stableSession(rev, first, again, other string, notes ...string) *probe.Result {
	return surfaceSession(rev, surfaceToolsCaps, first, func(p *sessionPlan) {
		if other != "" {
			p.onNegotiation = func(w *wireScript) {
				w.call(probe.ConnNegotiation, probe.StepToolsListOther, "tools/list", "2", "", resultReply(other))
			}
		}
		p.atEnd = func(w *wireScript, next func() string) {
			for _, n := range notes {
				w.in(probe.ConnMain, `{"jsonrpc":"2.0","method":"`+n+`"}`)
			}
			if again != "" {
				w.call(probe.ConnMain, probe.StepToolsListRepeat, "tools/list", next(), "", resultReply(again))
			}
		}
	})
}

func TestListsStable(t *testing.T) {
	ab := `{"tools":[{"name":"a","inputSchema":{"type":"object"}},{"name":"b","inputSchema":{"type":"object"}}]}`
	ba := `{"tools":[{"name":"b","inputSchema":{"type":"object"}},{"name":"a","inputSchema":{"type":"object"}}]}`
	abc := `{"tools":[{"name":"a","inputSchema":{"type":"object"}},{"name":"b","inputSchema":{"type":"object"}},{"name":"c","inputSchema":{"type":"object"}}]}`
	rev := protocol.Revision20260728
	// 2026-07-28 server/tools, Capabilities: the set "MUST NOT vary per-connection or as a
	// side effect of other requests on the connection"; "Servers SHOULD return tools in a
	// deterministic order".
	runCheckRows(t, "lists.stable", []checkRow{
		{"stable", stableSession(rev, ab, ab, ab), StatusPass, "tools/list asked twice, tools/list on two connections", false},
		{"reordered", stableSession(rev, ab, ba, ab), StatusWarn, "different order", false},
		{"set changed on the connection", stableSession(rev, ab, abc, ab), StatusFail, `added "c"`, false},
		{"set differs per connection", stableSession(rev, ab, ab, abc), StatusFail, "second connection", false},
		{"list_changed excuses", stableSession(rev, ab, abc, abc, "notifications/tools/list_changed"), StatusUntested, "announced a change", false},
		{"not sent", stableSession(rev, ab, "", ""), StatusUntested, "not sent", false},
		{"reordered before 2026-07-28", stableSession(protocol.Revision20251125, ab, ba, ab), StatusWarn, "does not", false},
		{"per connection before 2026-07-28", stableSession(protocol.Revision20251125, ab, ab, abc), StatusWarn, "2026-07-28 forbids this", false},
		{"no lists declared", surfaceSession(rev, `{}`, ""), StatusSkip, "declares no", false},
	})
	f := evaluateCheck(t, "lists.stable", stableSession(protocol.Revision20251125, ab, ab, abc))
	if f.Severity != SeverityAdvice {
		t.Errorf("before 2026-07-28 severity %q, want advice", f.Severity)
	}
}

// cardSession is an HTTP session whose server card GET got status and body.
func cardSession(status int, body string) *probe.Result {
	res := scriptedSession(protocol.TransportHTTP)
	res.Target = "http://127.0.0.1:1/mcp"
	w := &wireScript{res: res, exchange: map[int]int{}}
	out := w.add(probe.Frame{Conn: probe.ConnServerCard, Dir: probe.Out, Kind: probe.KindHTTPRequest, Exchange: 1,
		HTTP: &probe.HTTPInfo{Method: "GET", URL: "http://127.0.0.1:1/mcp/server-card"}})
	head := w.add(probe.Frame{Conn: probe.ConnServerCard, Dir: probe.In, Kind: probe.KindHTTPResponse, Exchange: 1, Raw: []byte(body),
		HTTP: &probe.HTTPInfo{Status: status, ContentType: "application/json"}})
	outcome := probe.OutcomeOK
	if status > 299 {
		outcome = probe.OutcomeTransport
	}
	res.Steps = append(res.Steps, probe.Step{Name: probe.StepServerCard, Method: "GET", Conn: probe.ConnServerCard, Request: out, Response: head, HTTPStatus: status, Outcome: outcome})
	return res
}

func TestServerCard(t *testing.T) {
	card := func(url, versions, version string) string {
		return `{"$schema":"https://static.modelcontextprotocol.io/schemas/v2/server-card.schema.json","name":"io.example/fixture","version":"` + version + `","description":"d","remotes":[{"type":"streamable-http","url":"` + url + `","supportedProtocolVersions":` + versions + `}]}`
	}
	// SEP-2127 (draft), Consistency with Runtime Behavior: "A Server Card SHOULD accurately
	// reflect the server's runtime behavior"; the values a client observes "SHOULD NOT
	// contradict the equivalent values declared in the Server Card". Advice: a draft.
	runCheckRows(t, "server.card", []checkRow{
		{"consistent", cardSession(200, card("http://127.0.0.1:1/mcp/", `["2025-11-25"]`, "1.0.0")), StatusPass, "consistent", false},
		{"none", cardSession(404, "not found"), StatusSkip, "no server card", false},
		{"not JSON", cardSession(200, "<html>"), StatusWarn, "not a JSON object", false},
		{"other endpoint", cardSession(200, card("https://elsewhere.example/mcp", `["2025-11-25"]`, "1.0.0")), StatusWarn, "not the endpoint probed", false},
		{"other version", cardSession(200, card("http://127.0.0.1:1/mcp", `["2025-11-25"]`, "2.0.0")), StatusWarn, `names version "2.0.0"`, false},
		{"not probed", scriptedSession(protocol.TransportHTTP), StatusUntested, "not asked for", false},
	})
}

func TestSetDifference(t *testing.T) {
	if d := setDifference([]string{"a", "b"}, []string{"b", "a"}); d != "" {
		t.Errorf("same sets: %q", d)
	}
	if d := setDifference([]string{"a", "b"}, []string{"b", "c"}); !strings.Contains(d, `missing "a"`) || !strings.Contains(d, `added "c"`) {
		t.Errorf("got %q", d)
	}
}
