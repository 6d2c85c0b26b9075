package checks

import (
	"strings"
	"testing"

	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/protocol"
)

const (
	completionParams   = `{"ref":{"type":"ref/prompt","name":"greeting"},"argument":{"name":"name","value":""}}`
	noCompletionsInit  = `{"protocolVersion":"2025-11-25","capabilities":{"tools":{},"prompts":{}},"serverInfo":{"name":"fixture","version":"1.0.0"}}`
	noLoggingInit      = `{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"fixture","version":"1.0.0"}}`
	logNotification    = `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"hello"}}`
	completionInit2024 = `{"protocolVersion":"2024-11-05","capabilities":{"tools":{},"prompts":{}},"serverInfo":{"name":"fixture","version":"1.0.0"}}`
)

// completionSession scripts a session that lists a prompt with an argument and asks to
// complete it, answered by answer (nil: not sent).
func completionSession(transport, init string, answer reply) *probe.Result {
	return scriptedSession(transport, func(p *sessionPlan) {
		p.initResult = init
		p.answers[probe.StepPromptsList] = resultReply(promptsList)
		p.atEnd = func(w *wireScript, next func() string) {
			if answer != nil {
				w.call(probe.ConnMain, probe.StepComplete, "completion/complete", next(), completionParams, answer)
			}
		}
	})
}

// server/utilities/completion (2025-03-26 and later): "Servers that support completions MUST
// declare the completions capability"; Completion Results: "Maximum 100 items per response";
// the CompleteResult schema requires completion.values, an array of strings.
func TestCompletionWantsValues(t *testing.T) {
	hundredOne := `{"completion":{"values":["a"` + strings.Repeat(`,"a"`, 100) + `]}}`
	rows := []checkRow{
		{name: "values", want: StatusPass, msg: `completion/complete of argument "name" of prompt "greeting" returned completion.values`,
			res: completionSession(protocol.TransportStdio, promptsInit, resultReply(`{"completion":{"values":["Ada"],"total":1,"hasMore":false}}`))},
		{name: "no values", want: StatusFail, msg: "expected completion.values, an array of strings",
			res: completionSession(protocol.TransportHTTP, promptsInit, resultReply(`{"completion":{"total":0}}`))},
		{name: "more than 100", want: StatusFail, msg: "completion.values holds 101 values, more than the 100 allowed",
			res: completionSession(protocol.TransportStdio, promptsInit, resultReply(hundredOne))},
		{name: "a value that is no string", want: StatusFail, msg: "completion.values[0] is a number, not a string",
			res: completionSession(protocol.TransportStdio, promptsInit, resultReply(`{"completion":{"values":[1]}}`))},
		{name: "declared but not found", want: StatusFail, msg: "server declares completions, but completion/complete",
			res: completionSession(protocol.TransportStdio, promptsInit, errorReply(-32601, "Method not found"))},
		{name: "declared, another error", want: StatusUntested, msg: "so no completion result to judge",
			res: completionSession(protocol.TransportStdio, promptsInit, errorReply(-32602, "no completion for that"))},
		{name: "undeclared and refused", want: StatusPass, msg: "server declares no completions capability, and completion/complete",
			res: completionSession(protocol.TransportStdio, noCompletionsInit, errorReply(-32601, "Method not found"))},
		{name: "undeclared but served", want: StatusWarn, msg: "server declares no completions capability, yet completion/complete",
			res: completionSession(protocol.TransportStdio, noCompletionsInit, resultReply(`{"completion":{"values":[]}}`))},
		{name: "nothing to complete", want: StatusSkip, msg: "lists no prompt argument or template variable",
			res: completionSession(protocol.TransportStdio, noCompletionsInit, nil)},
		{name: "2024-11-05 has no completions capability", want: StatusSkip, msg: "revision 2024-11-05 has no completions capability",
			res: completionSession(protocol.TransportStdio, completionInit2024, nil)},
	}
	runCheckRows(t, "completion.complete", rows)
}

// setLevelSession scripts a session that declares logging and at its end sets a valid level,
// an invalid one and (restore non-nil) the valid one again.
func setLevelSession(transport string, valid, invalid, restore reply) *probe.Result {
	return scriptedSession(transport, func(p *sessionPlan) {
		p.initResult = promptsInit
		p.atEnd = func(w *wireScript, next func() string) {
			w.call(probe.ConnMain, probe.StepSetLevel, "logging/setLevel", next(), `{"level":"info"}`, valid)
			w.call(probe.ConnMain, probe.StepSetLevelInvalid, "logging/setLevel", next(), `{"level":"loud"}`, invalid)
			if restore != nil {
				w.call(probe.ConnMain, probe.StepSetLevelRestore, "logging/setLevel", next(), `{"level":"info"}`, restore)
			}
		}
	})
}

// server/utilities/logging (2024-11-05 to 2025-11-25): logging/setLevel's result is an
// EmptyResult; Error Handling: "Servers SHOULD return standard JSON-RPC errors for common
// failure cases: Invalid log level: -32602 (Invalid params)".
func TestSetLevelWantsAnEmptyResultAndMinus32602(t *testing.T) {
	empty, invalid := resultReply(`{}`), errorReply(-32602, "bad level")
	rows := []checkRow{
		{name: "empty result, -32602", want: StatusPass, msg: `logging/setLevel of "info", "loud" (-32602) answered as the spec asks`,
			res: setLevelSession(protocol.TransportStdio, empty, invalid, nil)},
		{name: "_meta is allowed", want: StatusPass, msg: `"info"`,
			res: setLevelSession(protocol.TransportHTTP, resultReply(`{"_meta":{"x.example/k":1}}`), invalid, nil)},
		{name: "a non-empty result", want: StatusFail, msg: `logging/setLevel of "info": expected an empty result {}, got {"level":"info"}`,
			res: setLevelSession(protocol.TransportStdio, resultReply(`{"level":"info"}`), invalid, nil)},
		{name: "an error to a valid level", want: StatusFail, msg: `expected an empty result {}, got JSON-RPC error -32603`,
			res: setLevelSession(protocol.TransportStdio, errorReply(-32603, "no"), invalid, nil)},
		{name: "the invalid level taken, then restored", want: StatusWarn, msg: `logging/setLevel of the invalid level "loud": expected error -32602, got a result {}`,
			res: setLevelSession(protocol.TransportStdio, empty, empty, empty)},
		{name: "the restore got a non-empty result", want: StatusFail, msg: `expected an empty result {}, got {"ok":true}`,
			res: setLevelSession(protocol.TransportStdio, empty, empty, resultReply(`{"ok":true}`))},
		{name: "another code for the invalid level", want: StatusWarn, msg: "expected error -32602, got JSON-RPC error -32603",
			res: setLevelSession(protocol.TransportStdio, empty, errorReply(-32603, "x"), nil)},
		{name: "no logging capability", want: StatusSkip, msg: "server declares no logging capability",
			res: scriptedSession(protocol.TransportStdio, func(p *sessionPlan) { p.initResult = noLoggingInit })},
		{name: "never sent", want: StatusUntested, msg: "logging/setLevel was not sent",
			res: scriptedSession(protocol.TransportStdio)},
	}
	runCheckRows(t, "logging.set-level", rows)
}

// server/utilities/logging, Capabilities (every revision): "Servers that emit log message
// notifications MUST declare the logging capability".
func TestLogMessagesNeedTheLoggingCapability(t *testing.T) {
	withLog := func(init string) *probe.Result {
		return scriptedSession(protocol.TransportStdio, func(p *sessionPlan) {
			p.initResult = init
			p.afterNotifications = func(w *wireScript) { w.in(probe.ConnMain, logNotification) }
		})
	}
	rows := []checkRow{
		{name: "declared", want: StatusPass, msg: "1 notifications/message from a server that declares logging",
			res: withLog(plainInitResult)},
		{name: "undeclared", want: StatusFail, msg: "notifications/message from a server that declares no logging capability",
			res: withLog(noLoggingInit)},
		{name: "none came", want: StatusPass, msg: "no notifications/message came",
			res: scriptedSession(protocol.TransportStdio, func(p *sessionPlan) { p.initResult = noLoggingInit })},
	}
	runCheckRows(t, "logging.messages", rows)
}

// 2026-07-28 server/utilities/logging, Per-request log level: "The server MUST NOT emit
// notifications/message for a request that does not include this field"
// (io.modelcontextprotocol/logLevel in _meta).
func TestLogMessagesUnderStatelessNeedALogLevelRequest(t *testing.T) {
	session := func(meta string) *probe.Result {
		w := newWireScript(protocol.TransportHTTP)
		w.res.Requested, w.res.ProtocolVersion, w.res.Negotiated = protocol.Revision20260728, protocol.Revision20260728, protocol.Revision20260728
		base := `"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}`
		disc := w.call(probe.ConnMain, probe.StepDiscover, "server/discover", "1", `{"_meta":{`+base+`}}`,
			resultReply(`{"supportedVersions":["2026-07-28"],"capabilities":{"logging":{}},"resultType":"complete","ttlMs":1,"cacheScope":"public"}`))
		w.res.Discover = disc.Result
		w.out(probe.ConnMain, `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":{`+base+meta+`}}}`)
		w.in(probe.ConnMain, logNotification)
		w.in(probe.ConnMain, `{"jsonrpc":"2.0","id":2,"result":{"tools":[],"resultType":"complete","ttlMs":1,"cacheScope":"public"}}`)
		return w.res
	}
	rows := []checkRow{
		{name: "asked for", want: StatusPass, msg: "1 notifications/message",
			res: session(`,"io.modelcontextprotocol/logLevel":"info"`)},
		{name: "not asked for", want: StatusFail, msg: "notifications/message on a request that asked for no log level",
			res: session("")},
	}
	runCheckRows(t, "logging.messages", rows)
}
