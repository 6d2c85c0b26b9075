package checks

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/mcpwatch/mcpwatch/jsondoc"

	"github.com/mcpwatch/mcpwatch/checks/mcpschema"
	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/protocol"
)

// noCallsFile is the skip of every check of the opt-in tool calls without --calls.
const noCallsFile = "no calls file: the probe never calls a tool unasked"

// toolCallChecks judge the opt-in tool calls of a calls file (prober check --calls): the
// results of the calls, their structured content, the answer to arguments that break the
// tool's inputSchema, and the file's own expectations. Without a calls file each skips.
func toolCallChecks(schemas *mcpschema.Validator) []Check {
	return []Check{
		{ID: "tools.call-result", Area: "tools", Rule: "-", Spec: specTools + "#tool-result",
			Title:    "a called tool's answer is a CallToolResult of the revision: content blocks, base64 data, isError",
			Hint:     "answer tools/call with {content: [...], isError?: bool}: every content block of a type the revision has, image and audio data in base64 with a MIME type",
			Evaluate: checkCallResult},
		{ID: "tools.structured-content", Area: "tools", Rule: "-", Spec: specTools + "#structured-content",
			Title:    "a tool that declares an outputSchema returns structuredContent valid against it, mirrored in a text block",
			Hint:     "return structuredContent that conforms to the tool's outputSchema, and its serialized JSON in a TextContent block too",
			Evaluate: func(r *Capture, f *Finding) { checkStructuredContent(schemas, r, f) }},
		{ID: "tools.invalid-arguments", Area: "tools", Rule: "-", Spec: specTools + "#error-handling",
			Title:    "arguments that break a tool's inputSchema get a tool execution error (isError: true) or -32602, not a run of the tool",
			Hint:     "validate tool inputs against the inputSchema and report a failure as a result with isError: true",
			Evaluate: checkInvalidArguments},
		{ID: "tools.call-expectations", Area: "tools", Rule: "-", Spec: specTools + "#calling-tools",
			Title:    "a called tool's result matches what the calls file expects (isError, text, structured content)",
			Hint:     "the tool answered otherwise than the calls file expects: fix the tool, or the expectation",
			Evaluate: checkCallExpectations},
	}
}

// sentCall is one call of the calls file that the probe sent, with its answer.
type sentCall struct {
	rec    probe.CallRecord
	st     probe.Step
	answer *Message
	frames []int
}

// callsOf reads the calls of the result: those sent with their answers, and the reasons of
// those not sent. ok is false, f settled, without a calls file.
func callsOf(r *Capture, f *Finding) (sent []sentCall, notSent []string, ok bool) {
	if len(r.Calls) == 0 {
		f.Skip(noCallsFile)
		return nil, nil, false
	}
	for _, rec := range r.Calls {
		if rec.Step == "" {
			notSent = append(notSent, fmt.Sprintf("%s: %s", quoteName(rec.Tool), rec.NotSent))
			continue
		}
		st, found := stepOn(r, probe.ConnMain, rec.Step)
		if !found {
			notSent = append(notSent, fmt.Sprintf("%s: the probe stopped before the call", quoteName(rec.Tool)))
			continue
		}
		sent = append(sent, sentCall{rec: rec, st: st, answer: exchangeAnswer(r, st), frames: Seqs(st.Request, st.Response)})
	}
	return sent, notSent, true
}

// untestedCalls marks f untested for the calls that were not sent or not judged (evidence
// recorded alongside still decides the status); the message still names the calls that
// passed (passed, "" when none did), since untested is never a pass but what did pass is
// worth knowing.
func untestedCalls(f *Finding, notSent []string, passed string) {
	if len(notSent) == 0 {
		return
	}
	if passed != "" {
		f.Untested("not judged: %s; passed: %s", strings.Join(notSent, "; "), passed)
		return
	}
	f.Untested("not judged: %s", strings.Join(notSent, "; "))
}

// inputRequired reports whether an answer is an InputRequiredResult (2026-07-28
// basic/patterns/mrtr): resultType "input_required".
func inputRequired(m *Message) bool {
	if m == nil || m.Kind != ResultResponse {
		return false
	}
	res, _ := objectMembers(m.Result)
	return string(res["resultType"]) == `"input_required"`
}

// inputRequiredReason is why a call answered input_required is not judged: the probe ends the
// call there ("Servers MUST NOT assume that clients will fulfill the inputRequests or retry
// the original request").
const inputRequiredReason = "answered input_required (an InputRequiredResult); the probe declares no client capabilities, so it cannot fulfil input requests, and the call ends there without a retry"

// unanswered says why a sent call has no answer to judge: its timeout, or describeAnswer.
func unansweredCall(r *Capture, rec probe.CallRecord, st probe.Step) string {
	if st.Outcome == probe.OutcomeNoAnswer && strings.Contains(st.Err, probe.ErrTimeout.Error()) && rec.Timeout > 0 {
		return fmt.Sprintf("no answer within %s", rec.Timeout)
	}
	return describeAnswer(r, st)
}

// serverRequestsDuring are the methods of the requests the server sent on the probe's
// connection while the call was pending: between the call's request and the probe's next
// request of the session (ping excluded, which the probe answers).
func serverRequestsDuring(r *Capture, st probe.Step) []string {
	end := -1
	for _, other := range r.Steps {
		if other.Conn == st.Conn && other.Request > st.Request && (end < 0 || other.Request < end) {
			end = other.Request
		}
	}
	var methods []string
	seen := map[string]bool{}
	r.Inbound(func(fr probe.Frame, m *Message) {
		if fr.Conn != st.Conn || fr.Seq <= st.Request || end >= 0 && fr.Seq >= end || m == nil || m.Kind != Request || m.Method == "ping" {
			return
		}
		if !seen[m.Method] {
			seen[m.Method] = true
			methods = append(methods, m.Method)
		}
	})
	return methods
}

// serverRequestsNote says what became of the requests a server sent during the calls ("" when
// it sent none): refused in a session era, since the probe declared no client capability
// (2025-11-25 basic/lifecycle, Operation: both parties MUST "Only use capabilities that were
// successfully negotiated"); unanswered under 2026-07-28, where stateless.server-requests
// judges them.
func serverRequestsNote(r *Capture, asked map[string][]string) string {
	if len(asked) == 0 {
		return ""
	}
	tools := make([]string, 0, len(asked))
	for tool := range asked {
		tools = append(tools, tool)
	}
	sort.Strings(tools)
	var parts []string
	for _, tool := range tools {
		parts = append(parts, fmt.Sprintf("%s sent %s", quoteName(tool), strings.Join(asked[tool], ", ")))
	}
	if r.Stateless() {
		return fmt.Sprintf("; during the call %s, which %s has no place for: the probe answered nothing (stateless.server-requests judges them)", strings.Join(parts, "; "), r.Revision())
	}
	return fmt.Sprintf("; during the call %s: the probe refused with -32601, since it declared none of those capabilities (sampling, elicitation, roots) and a server may \"Only use capabilities that were successfully negotiated\"", strings.Join(parts, "; "))
}

// resultOf is the answer's result when it is one.
func resultOf(c sentCall) (json.RawMessage, bool) {
	if c.answer != nil && c.answer.Kind == ResultResponse {
		return c.answer.Result, true
	}
	return nil, false
}

func checkCallResult(r *Capture, f *Finding) {
	sent, notSent, ok := callsOf(r, f)
	if !ok {
		return
	}
	rev := r.Revision()
	var judged, notJudged []string
	asked := map[string][]string{}
	judge := func(rec probe.CallRecord, st probe.Step, m *Message, frames []int, what string) {
		tool := rec.Tool
		if methods := serverRequestsDuring(r, st); len(methods) > 0 {
			asked[tool+what] = methods
		}
		switch {
		case inputRequired(m):
			notJudged = append(notJudged, fmt.Sprintf("%s%s: %s", quoteName(tool), what, inputRequiredReason))
		case m != nil && m.Kind == ResultResponse:
			if p := callResultProblem(rev, m.Result); p != "" {
				f.FailTool(tool, frames, "tools/call of %s%s: expected a CallToolResult of %s, got one whose %s", quoteName(tool), what, rev, p)
				return
			}
			judged = append(judged, quoteName(tool)+what)
		case m != nil && m.Kind == ErrorResponse:
			judged = append(judged, quoteName(tool)+what+" (a JSON-RPC error: "+describeError(m)+")")
		default:
			notJudged = append(notJudged, fmt.Sprintf("%s%s: %s", quoteName(tool), what, unansweredCall(r, rec, st)))
		}
	}
	for _, c := range sent {
		judge(c.rec, c.st, c.answer, c.frames, "")
		if c.rec.InvalidStep != "" {
			if st, found := stepOn(r, probe.ConnMain, c.rec.InvalidStep); found {
				judge(c.rec, st, exchangeAnswer(r, st), Seqs(st.Request, st.Response), " with invalid arguments")
			}
		}
	}
	note := serverRequestsNote(r, asked)
	passed := ""
	if len(judged) > 0 {
		passed = fmt.Sprintf("tools/call of %s answered as %s has it", strings.Join(judged, ", "), rev)
	}
	untestedCalls(f, append(notSent, notJudged...), passed+note)
	if len(judged) > 0 {
		f.Pass("%s%s", passed, note)
	}
}

// callResultProblem says what makes a result no CallToolResult of the revision ("" when it
// is one): a content array of blocks of the revision (image and audio data in base64, as
// contentProblem judges prompt content alike), isError a boolean, structuredContent an
// object before 2026-07-28.
func callResultProblem(rev string, result json.RawMessage) string {
	res, ok := objectMembers(result)
	if !ok {
		return "result is " + article(jsonType(result)) + ", not an object"
	}
	var content []json.RawMessage
	if raw, ok := res["content"]; !ok || json.Unmarshal(raw, &content) != nil || jsonType(raw) != "array" {
		return "content is not an array: " + clipJSON(result)
	}
	for i, block := range content {
		if p := contentProblem(rev, block); p != "" {
			return fmt.Sprintf("content[%d] %s", i, p)
		}
	}
	if v, ok := res["isError"]; ok && jsonType(v) != "boolean" {
		return "isError is " + article(jsonType(v)) + ", not a boolean"
	}
	if v, ok := res["structuredContent"]; ok && rev >= protocol.Revision20250618 && rev < protocol.Revision20260728 && jsonType(v) != "object" {
		return "structuredContent is " + article(jsonType(v)) + ", not an object"
	}
	return ""
}

// calledToolSchemas are the outputSchemas of the main connection's tools/list pages by tool.
func calledToolSchemas(r *Capture) map[string]json.RawMessage {
	out := map[string]json.RawMessage{}
	for _, st := range stepsOn(r, probe.ConnMain, probe.StepToolsList) {
		var page struct {
			Tools []struct {
				Name         string          `json:"name"`
				OutputSchema json.RawMessage `json:"outputSchema"`
			} `json:"tools"`
		}
		if json.Unmarshal(st.Result, &page) != nil {
			continue
		}
		for _, t := range page.Tools {
			if _, seen := out[t.Name]; !seen && len(t.OutputSchema) > 0 && string(t.OutputSchema) != "null" {
				out[t.Name] = t.OutputSchema
			}
		}
	}
	return out
}

func checkStructuredContent(schemas *mcpschema.Validator, r *Capture, f *Finding) {
	sent, notSent, ok := callsOf(r, f)
	if !ok {
		return
	}
	rev := r.Revision()
	if rev < protocol.Revision20250618 {
		f.Skip("structured content and outputSchema are 2025-06-18's; the server spoke %s", rev)
		return
	}
	outputs := calledToolSchemas(r)
	var judged []string
	for _, c := range sent {
		schema, declared := outputs[c.rec.Tool]
		result, isResult := resultOf(c)
		if declared && inputRequired(c.answer) {
			notSent = append(notSent, quoteName(c.rec.Tool)+": "+inputRequiredReason)
			continue
		}
		if !declared || !isResult {
			continue
		}
		res, _ := objectMembers(result)
		if string(res["isError"]) == "true" {
			continue // a tool execution error carries no structured result
		}
		tool := c.rec.Tool
		sc, has := res["structuredContent"]
		if !has {
			f.FailTool(tool, c.frames, "%s declares an outputSchema, but its result has no structuredContent (\"Servers MUST provide structured results that conform to this schema\")", quoteName(tool))
			continue
		}
		err := schemas.ValidateAgainst(rev, schema, sc)
		var v *mcpschema.Violation
		switch {
		case errors.As(err, &v):
			f.FailTool(tool, c.frames, "the structuredContent of %s does not conform to its outputSchema: %s (got %s)", quoteName(tool), v.Error(), clipJSON(sc))
			continue
		case err != nil:
			f.Untested("the outputSchema of %s could not be used: %v", quoteName(tool), err)
			continue
		}
		if !mirrorsInText(res["content"], sc) {
			f.WarnTool(tool, c.frames, "the structuredContent of %s is not mirrored in a text block: \"a tool that returns structured content SHOULD also return the serialized JSON in a TextContent block\"", quoteName(tool))
			continue
		}
		judged = append(judged, quoteName(tool))
	}
	if len(judged) == 0 && len(f.Evidence) == 0 && len(notSent) == 0 {
		f.Skip("no tool called with a result declares an outputSchema")
		return
	}
	passed := ""
	if len(judged) > 0 {
		passed = fmt.Sprintf("the structured content of %s conforms to its outputSchema and is mirrored in text", strings.Join(judged, ", "))
	}
	untestedCalls(f, notSent, passed)
	f.Pass("%s", passed)
}

// mirrorsInText reports whether a text block of content holds JSON equal to sc.
func mirrorsInText(content, sc json.RawMessage) bool {
	var want any
	if json.Unmarshal(sc, &want) != nil {
		return false
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(content, &blocks) != nil {
		return false
	}
	for _, b := range blocks {
		var got any
		if b.Type == "text" && json.Unmarshal([]byte(b.Text), &got) == nil && reflect.DeepEqual(got, want) {
			return true
		}
	}
	return false
}

func checkInvalidArguments(r *Capture, f *Finding) {
	if len(r.Calls) == 0 {
		f.Skip(noCallsFile)
		return
	}
	if rev := r.Revision(); rev < protocol.Revision20251125 {
		f.Skip("input validation errors as tool execution errors are 2025-11-25's; the server spoke %s", rev)
		return
	}
	var judged, notSent []string
	asked := false
	for _, rec := range r.Calls {
		if !rec.Call.InvalidArguments {
			continue
		}
		asked = true
		tool := rec.Tool
		if rec.InvalidStep == "" {
			why := rec.InvalidNotSent
			if why == "" {
				why = rec.NotSent
			}
			notSent = append(notSent, quoteName(tool)+": "+why)
			continue
		}
		st, found := stepOn(r, probe.ConnMain, rec.InvalidStep)
		if !found {
			continue
		}
		frames := Seqs(st.Request, st.Response)
		m := exchangeAnswer(r, st)
		switch {
		case inputRequired(m):
			notSent = append(notSent, quoteName(tool)+": "+inputRequiredReason)
		case m != nil && m.Kind == ResultResponse:
			res, _ := objectMembers(m.Result)
			if string(res["isError"]) == "true" {
				judged = append(judged, quoteName(tool)+" (isError: true)")
				continue
			}
			f.WarnTool(tool, frames, "tools/call of %s with %s ran the tool: expected a tool execution error (isError: true) or -32602, got %s", quoteName(tool), rec.InvalidHow, clipJSON(m.Result))
		case m != nil && m.Kind == ErrorResponse:
			if code, ok := errorCode(m); ok && code == protocol.CodeInvalidParams {
				judged = append(judged, quoteName(tool)+" (-32602)")
				continue
			}
			f.WarnTool(tool, frames, "tools/call of %s with %s: expected isError: true or -32602, got %s", quoteName(tool), rec.InvalidHow, describeError(m))
		default:
			notSent = append(notSent, quoteName(tool)+": "+unansweredCall(r, rec, st))
		}
	}
	if !asked {
		f.Skip("the calls file marks no call invalidArguments: true")
		return
	}
	passed := ""
	if len(judged) > 0 {
		passed = "arguments that break the inputSchema were refused: " + strings.Join(judged, ", ")
	}
	untestedCalls(f, notSent, passed)
	if passed != "" {
		f.Pass("%s", passed)
	}
}

func checkCallExpectations(r *Capture, f *Finding) {
	sent, notSent, ok := callsOf(r, f)
	if !ok {
		return
	}
	var judged, unanswered []string
	asked := false
	for _, c := range sent {
		e := c.rec.Call.Expect
		if e == nil {
			continue
		}
		asked = true
		tool := c.rec.Tool
		result, isResult := resultOf(c)
		switch {
		case inputRequired(c.answer):
			unanswered = append(unanswered, quoteName(tool)+": "+inputRequiredReason)
			continue
		case c.answer != nil && c.answer.Kind == ErrorResponse:
			f.FailTool(tool, c.frames, "tools/call of %s: the calls file expects a result, got %s", quoteName(tool), describeError(c.answer))
			continue
		case !isResult:
			unanswered = append(unanswered, quoteName(tool)+": "+unansweredCall(r, c.rec, c.st))
			continue
		}
		if p := expectationProblem(e, result); p != "" {
			f.FailTool(tool, c.frames, "tools/call of %s: %s", quoteName(tool), p)
			continue
		}
		judged = append(judged, quoteName(tool))
	}
	for _, rec := range r.Calls {
		if rec.Step == "" && rec.Call.Expect != nil {
			asked = true
		}
	}
	if !asked {
		f.Skip("the calls file expects nothing of any call")
		return
	}
	passed := ""
	if len(judged) > 0 {
		passed = fmt.Sprintf("the results of %s are what the calls file expects", strings.Join(judged, ", "))
	}
	untestedCalls(f, append(notSent, unanswered...), passed)
	if passed != "" {
		f.Pass("%s", passed)
	}
}

// expectationProblem says how a CallToolResult misses what the file expects ("" when it
// does not).
func expectationProblem(e *probe.CallExpect, result json.RawMessage) string {
	var res struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		IsError           bool            `json:"isError"`
		StructuredContent json.RawMessage `json:"structuredContent"`
	}
	if json.Unmarshal(result, &res) != nil {
		return "expected a CallToolResult, got " + clipJSON(result)
	}
	if e.IsError != nil && res.IsError != *e.IsError {
		return fmt.Sprintf("expected isError %t, got %t: %s", *e.IsError, res.IsError, clipJSON(result))
	}
	if e.TextContains != "" {
		var texts []string
		for _, b := range res.Content {
			if b.Type == "text" {
				texts = append(texts, b.Text)
			}
		}
		if !strings.Contains(strings.Join(texts, "\n"), e.TextContains) {
			return fmt.Sprintf("expected text containing %s, got %s", strconv.Quote(e.TextContains), clipJSON(result))
		}
	}
	if e.Pointer == "" {
		return ""
	}
	got, found := pointerValue(res.StructuredContent, e.Pointer)
	if !found {
		return fmt.Sprintf("expected a value at %s of structuredContent, found none: %s", e.Pointer, clipJSON(result))
	}
	if e.Equals != nil {
		var want, have any
		if json.Unmarshal(e.Equals, &want) != nil || json.Unmarshal(got, &have) != nil || !reflect.DeepEqual(want, have) {
			return fmt.Sprintf("expected %s at %s of structuredContent, got %s", clipJSON(e.Equals), e.Pointer, clipJSON(got))
		}
	}
	if e.Matches != "" {
		re, err := regexp.Compile(e.Matches)
		if err != nil {
			return "the calls file's matches is not a regular expression: " + err.Error()
		}
		text := string(got)
		var s string
		if json.Unmarshal(got, &s) == nil {
			text = s
		}
		if !re.MatchString(text) {
			return fmt.Sprintf("expected the value at %s of structuredContent to match %s, got %s", e.Pointer, strconv.Quote(e.Matches), clipJSON(got))
		}
	}
	return ""
}

// pointerValue resolves a JSON Pointer (RFC 6901) in doc.
func pointerValue(doc json.RawMessage, pointer string) (json.RawMessage, bool) {
	if len(doc) == 0 {
		return nil, false
	}
	if pointer == "" {
		return doc, true
	}
	cur := doc
	tokens, ok := jsondoc.PointerTokens(pointer)
	if !ok {
		return nil, false
	}
	for _, token := range tokens {
		switch jsonType(cur) {
		case "object":
			var m map[string]json.RawMessage
			if json.Unmarshal(cur, &m) != nil {
				return nil, false
			}
			next, ok := m[token]
			if !ok {
				return nil, false
			}
			cur = next
		case "array":
			var l []json.RawMessage
			i, err := strconv.Atoi(token)
			if json.Unmarshal(cur, &l) != nil || err != nil || i < 0 || i >= len(l) {
				return nil, false
			}
			cur = l[i]
		default:
			return nil, false
		}
	}
	return cur, true
}
