package checks

import (
	"strings"
	"testing"

	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/protocol"
)

const (
	promptsInit = `{"protocolVersion":"2025-11-25","capabilities":{"tools":{},"prompts":{},"completions":{},"logging":{}},"serverInfo":{"name":"fixture","version":"1.0.0"}}`
	promptsList = `{"prompts":[{"name":"status"},{"name":"greeting","arguments":[{"name":"name","required":true}]}]}`
	// A one-pixel PNG.
	pngData = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
)

// promptSession scripts a session that declares prompts and lists promptsList; at its end
// the probe's prompt reads, each answered as given (nil: not sent).
func promptSession(transport string, get, unknown, missing reply, edits ...func(p *sessionPlan)) *probe.Result {
	edits = append([]func(p *sessionPlan){func(p *sessionPlan) {
		p.initResult = promptsInit
		p.answers[probe.StepPromptsList] = resultReply(promptsList)
		p.atEnd = func(w *wireScript, next func() string) {
			if get != nil {
				w.call(probe.ConnMain, probe.StepPromptGet, "prompts/get", next(), `{"name":"status"}`, get)
			}
			if unknown != nil {
				w.call(probe.ConnMain, probe.StepPromptGetUnknown, "prompts/get", next(), `{"name":"mcpwatch-no-such-prompt-0123456789abcdef"}`, unknown)
			}
			if missing != nil {
				w.call(probe.ConnMain, probe.StepPromptGetMissingArgument, "prompts/get", next(), `{"name":"greeting","arguments":{}}`, missing)
			}
		}
	}}, edits...)
	return scriptedSession(transport, edits...)
}

func promptResult(content string) reply {
	return resultReply(`{"description":"d","messages":[{"role":"user","content":` + content + `}]}`)
}

// server/prompts (every revision): "The image data MUST be base64-encoded and include a valid
// MIME type"; embedded resources "MUST include: A valid resource URI ... Either text content
// or base64-encoded blob data". The schema's GetPromptResult requires messages, each with a
// role and a content block.
func TestPromptGetWantsAGetPromptResult(t *testing.T) {
	bad := errorReply(-32602, "x")
	rows := []checkRow{
		{name: "text", want: StatusPass, msg: `prompts/get of "status" returned GetPromptResults of 2025-11-25`,
			res: promptSession(protocol.TransportStdio, promptResult(`{"type":"text","text":"hi"}`), bad, bad)},
		{name: "an image in base64 with a MIME type", want: StatusPass, msg: `"status"`,
			res: promptSession(protocol.TransportHTTP, promptResult(`{"type":"image","data":"`+pngData+`","mimeType":"image/png"}`), bad, bad)},
		{name: "an embedded resource with a blob", want: StatusPass, msg: `"status"`,
			res: promptSession(protocol.TransportStdio, promptResult(`{"type":"resource","resource":{"uri":"x://a","mimeType":"image/png","blob":"`+pngData+`"}}`), bad, bad)},
		{name: "a resource link (2025-06-18 and later)", want: StatusPass, msg: `"status"`,
			res: promptSession(protocol.TransportStdio, promptResult(`{"type":"resource_link","uri":"x://a","name":"a"}`), bad, bad)},
		{name: "image data not base64", want: StatusFail, msg: `messages[0].content of type image: data is not valid base64 ("not base64!")`,
			res: promptSession(protocol.TransportStdio, promptResult(`{"type":"image","data":"not base64!","mimeType":"image/png"}`), bad, bad)},
		{name: "audio without a MIME type", want: StatusFail, msg: `of type audio: mimeType "" is not a valid MIME type`,
			res: promptSession(protocol.TransportStdio, promptResult(`{"type":"audio","data":"`+pngData+`"}`), bad, bad)},
		{name: "an embedded resource without text or blob", want: StatusFail, msg: `the embedded resource has neither text nor blob`,
			res: promptSession(protocol.TransportStdio, promptResult(`{"type":"resource","resource":{"uri":"x://a"}}`), bad, bad)},
		{name: "an embedded resource without a uri", want: StatusFail, msg: "the embedded resource has no uri",
			res: promptSession(protocol.TransportStdio, promptResult(`{"type":"resource","resource":{"text":"t"}}`), bad, bad)},
		{name: "no messages", want: StatusFail, msg: "expected a messages array",
			res: promptSession(protocol.TransportStdio, resultReply(`{"description":"d"}`), bad, bad)},
		{name: "a role outside user and assistant", want: StatusFail, msg: `messages[0] has no role "user" or "assistant"`,
			res: promptSession(protocol.TransportStdio, resultReply(`{"messages":[{"role":"system","content":{"type":"text","text":"x"}}]}`), bad, bad)},
		{name: "an unknown content type", want: StatusFail, msg: `has type "video", which no content block of 2025-11-25 has`,
			res: promptSession(protocol.TransportStdio, promptResult(`{"type":"video","data":"x"}`), bad, bad)},
		{name: "an error for a listed prompt without arguments", want: StatusFail, msg: `expected a GetPromptResult, got JSON-RPC error -32603`,
			res: promptSession(protocol.TransportStdio, errorReply(-32603, "boom"), bad, bad)},
		{name: "no answer", want: StatusUntested, msg: "got no answer within the timeout",
			res: promptSession(protocol.TransportStdio, noReply(), bad, bad)},
		{name: "every prompt needs an argument", want: StatusSkip, msg: "every listed prompt has a required argument",
			res: promptSession(protocol.TransportStdio, nil, bad, bad, func(p *sessionPlan) {
				p.answers[probe.StepPromptsList] = resultReply(`{"prompts":[{"name":"greeting","arguments":[{"name":"name","required":true}]}]}`)
			})},
		{name: "prompts/list failed", want: StatusUntested, msg: "prompts/list failed (JSON-RPC error -32603)",
			res: promptSession(protocol.TransportStdio, nil, nil, nil, func(p *sessionPlan) {
				p.answers[probe.StepPromptsList] = errorReply(-32603, "busy")
			})},
		{name: "never sent", want: StatusUntested, msg: "prompts/get was not sent",
			res: promptSession(protocol.TransportStdio, nil, nil, nil)},
		{name: "no prompts capability", want: StatusSkip, msg: "server declares no prompts capability",
			res: scriptedSession(protocol.TransportStdio)},
	}
	runCheckRows(t, "prompts.get", rows)
}

func TestPromptGetKnowsTheContentOfEachRevision(t *testing.T) {
	cases := []struct {
		rev, content, problem string
	}{
		{protocol.Revision20241105, `{"type":"audio","data":"AAAA","mimeType":"audio/wav"}`, `has type "audio", which no content block of 2024-11-05 has`},
		{protocol.Revision20250326, `{"type":"audio","data":"AAAA","mimeType":"audio/wav"}`, ""},
		{protocol.Revision20250326, `{"type":"resource_link","uri":"x://a","name":"a"}`, `has type "resource_link", which no content block of 2025-03-26 has`},
		{protocol.Revision20250618, `{"type":"resource_link","uri":"x://a","name":"a"}`, ""},
		{protocol.Revision20250618, `{"type":"resource_link","uri":"x://a"}`, "of type resource_link has no string name"},
		{protocol.Revision20251125, `{"type":"image","data":"AAAA","mimeType":"png"}`, `mimeType "png" is not a valid MIME type`},
	}
	for _, c := range cases {
		got := promptResultProblem(c.rev, []byte(`{"messages":[{"role":"assistant","content":`+c.content+`}]}`))
		if want := c.problem; (want == "") != (got == "") || want != "" && !strings.Contains(got, want) {
			t.Errorf("%s %s: problem %q, want %q", c.rev, c.content, got, want)
		}
	}
}

// server/prompts, Error Handling (every revision): "Servers SHOULD return standard JSON-RPC
// errors for common failure cases: Invalid prompt name: -32602 (Invalid params); Missing
// required arguments: -32602 (Invalid params)".
func TestPromptGetInvalidWantsMinus32602(t *testing.T) {
	text := promptResult(`{"type":"text","text":"hi"}`)
	rows := []checkRow{
		{name: "both -32602", want: StatusPass,
			msg: `prompts/get of a prompt the server does not list ("mcpwatch-no-such-prompt-0123456789abcdef") and prompts/get without a required argument ("greeting") got -32602`,
			res: promptSession(protocol.TransportStdio, text, errorReply(-32602, "unknown"), errorReply(-32602, "missing"))},
		{name: "an unknown prompt gets a result", want: StatusWarn,
			msg: `prompts/get of a prompt the server does not list ("mcpwatch-no-such-prompt-0123456789abcdef"): expected error -32602, got a result`,
			res: promptSession(protocol.TransportHTTP, text, text, errorReply(-32602, "missing"))},
		{name: "a missing argument gets -32603", want: StatusWarn,
			msg: `prompts/get without a required argument ("greeting"): expected error -32602, got JSON-RPC error -32603`,
			res: promptSession(protocol.TransportStdio, text, errorReply(-32602, "unknown"), errorReply(-32603, "crash"))},
		{name: "only the unknown name (no prompt needs an argument)", want: StatusPass, msg: "prompts/get of a prompt the server does not list",
			res: promptSession(protocol.TransportStdio, text, errorReply(-32602, "unknown"), nil)},
		{name: "never sent", want: StatusUntested, msg: "no invalid prompts/get was sent",
			res: promptSession(protocol.TransportStdio, text, nil, nil)},
		{name: "no prompts capability", want: StatusSkip, msg: "server declares no prompts capability",
			res: scriptedSession(protocol.TransportStdio)},
	}
	runCheckRows(t, "prompts.get-invalid", rows)
}

func TestPromptReadsElsewhereAreSkipped(t *testing.T) {
	res := promptSession(protocol.TransportStdio, nil, nil, nil)
	res.RulesElsewhere = "in the probe of revision 2025-11-25"
	for _, id := range []string{"prompts.get", "prompts.get-invalid"} {
		if f := evaluateCheck(t, id, res); f.Status != StatusSkip || !strings.Contains(f.Message, res.RulesElsewhere) {
			t.Errorf("%s: %s %q, want a skip citing where the reads ran", id, f.Status, f.Message)
		}
	}
}
