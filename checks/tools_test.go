package checks

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpwatch/mcpwatch/checks/mcpschema"
	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/protocol"
)

// toolProbe builds a probe.Result the way the session records one: an initialize exchange,
// then one tools/list exchange per page, each with its Out and In frames and its Step.
type toolProbe struct {
	res    *probe.Result
	nextID int
	cursor string // the nextCursor of the last page, sent with the next one
}

const toolsCaps = `{"tools":{"listChanged":true}}`

func newToolProbe(rev, caps string) *toolProbe {
	p := &toolProbe{res: &probe.Result{Target: "fixture", Transport: protocol.TransportStdio, Requested: rev, InitializedAt: -1}}
	init := fmt.Sprintf(`{"protocolVersion":%q,"capabilities":%s,"serverInfo":{"name":"fixture","version":"1"}}`, rev, caps)
	p.exchange(probe.StepInitialize, "initialize", 0, `{}`, `"result":`+init, func(st *probe.Step) {
		st.Outcome, st.Result = probe.OutcomeOK, json.RawMessage(init)
	})
	p.res.Initialize = json.RawMessage(init)
	p.res.Negotiated, p.res.ProtocolVersion = rev, rev
	return p
}

func (p *toolProbe) frame(dir probe.Direction, kind probe.FrameKind, raw string) int {
	seq := len(p.res.Frames)
	p.res.Frames = append(p.res.Frames, probe.Frame{Seq: seq, Conn: probe.ConnMain, Dir: dir, Kind: kind, Raw: []byte(raw)})
	return seq
}

// exchange records a request and, when answer is not "", the response carrying it.
func (p *toolProbe) exchange(name, method string, page int, params, answer string, finish func(*probe.Step)) {
	p.nextID++
	id := fmt.Sprint(p.nextID)
	st := probe.Step{Name: name, Method: method, Conn: probe.ConnMain, ID: id, Page: page, Response: -1}
	st.Request = p.frame(probe.Out, probe.KindMessage, `{"jsonrpc":"2.0","id":`+id+`,"method":"`+method+`","params":`+params+`}`)
	if answer != "" {
		st.Response = p.frame(probe.In, probe.KindMessage, `{"jsonrpc":"2.0","id":`+id+`,`+answer+`}`)
	}
	finish(&st)
	p.res.Steps = append(p.res.Steps, st)
}

func (p *toolProbe) nextPage() (int, string) {
	page := len(p.res.StepsNamed(probe.StepToolsList)) + 1
	params := `{}`
	if page > 1 {
		params = fmt.Sprintf(`{"cursor":%q}`, p.cursor)
	}
	return page, params
}

// page answers the next tools/list with a result.
func (p *toolProbe) page(result string) *toolProbe {
	page, params := p.nextPage()
	p.exchange(probe.StepToolsList, "tools/list", page, params, `"result":`+result, func(st *probe.Step) {
		st.Outcome, st.Result = probe.OutcomeOK, json.RawMessage(result)
	})
	var r struct {
		NextCursor string `json:"nextCursor"`
	}
	_ = json.Unmarshal([]byte(result), &r)
	p.cursor = r.NextCursor
	return p
}

// pageError answers the next tools/list with a JSON-RPC error.
func (p *toolProbe) pageError(code int64) *toolProbe {
	page, params := p.nextPage()
	p.exchange(probe.StepToolsList, "tools/list", page, params, fmt.Sprintf(`"error":{"code":%d,"message":"nope"}`, code), func(st *probe.Step) {
		st.Outcome, st.ErrorCode, st.ErrorCodeRaw = probe.OutcomeError, &code, json.RawMessage(fmt.Sprint(code))
	})
	return p
}

// pageTimeout leaves the next tools/list unanswered.
func (p *toolProbe) pageTimeout() *toolProbe {
	page, params := p.nextPage()
	p.exchange(probe.StepToolsList, "tools/list", page, params, "", func(st *probe.Step) {
		st.Outcome, st.Err = probe.OutcomeNoAnswer, probe.ErrTimeout.Error()
	})
	p.frame(probe.In, probe.KindNote, "")
	return p
}

func (p *toolProbe) result() *probe.Result { return p.res }

// toolsPage is a tools/list result holding the given tools (JSON objects).
func toolsPage(tools ...string) string { return `{"tools":[` + strings.Join(tools, ",") + `]}` }

func toolsPageWith(extra string, tools ...string) string {
	return `{"tools":[` + strings.Join(tools, ",") + `],` + extra + `}`
}

func tool(name, desc, input string) string {
	return fmt.Sprintf(`{"name":%q,"description":%q,"inputSchema":%s}`, name, desc, input)
}

const objectSchema = `{"type":"object","properties":{"message":{"type":"string"}},"required":["message"]}`

var (
	echoTool = tool("echo", "Echoes back the input", objectSchema)
	addTool  = tool("add", "Adds two numbers", `{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}}}`)
)

// expect is what one check must report.
type expect struct {
	status Status
	msg    string // a fragment of the finding's message
	tool   string // a tool some evidence must name
}

func evaluateTools(t testing.TB, v *mcpschema.Validator, res *probe.Result) map[string]Finding {
	t.Helper()
	reg, err := NewRegistry(toolChecks(v)...)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]Finding{}
	for _, f := range reg.Evaluate(res) {
		out[f.ID] = f
	}
	return out
}

func TestToolChecks(t *testing.T) {
	const (
		r0326 = "2025-03-26"
		r0618 = "2025-06-18"
		r1125 = "2025-11-25"
		r2026 = "2026-07-28"
	)
	all := []string{"tools.list", "tools.pagination", "tools.input-schema", "tools.output-schema", "tools.name-format", "tools.description", "tools.fingerprint"}
	allWith := func(status Status, msg string) map[string]expect {
		m := map[string]expect{}
		for _, id := range all {
			m[id] = expect{status: status, msg: msg}
		}
		return m
	}
	skipAll := func(msg string) map[string]expect { return allWith(StatusSkip, msg) }
	untestedAll := func(msg string) map[string]expect { return allWith(StatusUntested, msg) }
	noDescription := `{"name":"bare","inputSchema":{"type":"object"}}`
	withOutput := func(name, output string) string {
		return fmt.Sprintf(`{"name":%q,"description":"d","inputSchema":{"type":"object"},"outputSchema":%s}`, name, output)
	}
	cacheHints := `"resultType":"complete","ttlMs":60000,"cacheScope":"public"`

	tests := []struct {
		name string
		res  *probe.Result
		want map[string]expect
	}{
		{
			name: "a conformant single page passes",
			res:  newToolProbe(r1125, toolsCaps).page(toolsPage(echoTool, addTool)).result(),
			want: map[string]expect{
				"tools.list":          {status: StatusPass, msg: "2 tools on 1 page(s) match ListToolsResult of 2025-11-25"},
				"tools.pagination":    {status: StatusPass, msg: "2 tools on 1 page(s)"},
				"tools.input-schema":  {status: StatusPass, msg: "each of 2 tools"},
				"tools.output-schema": {status: StatusSkip, msg: "no tool declares an outputSchema"},
				"tools.name-format":   {status: StatusPass, msg: "2 tool names"},
				"tools.description":   {status: StatusPass, msg: "all 2 tools"},
				"tools.fingerprint":   {status: StatusInfo, msg: "2 tools, sha256:"},
			},
		},
		{
			name: "no tools capability skips every tools check even when tools/list fails",
			res:  newToolProbe(r1125, `{"prompts":{}}`).pageError(-32601).result(),
			want: skipAll("server declares no tools capability"),
		},
		{
			name: "a null tools capability counts as undeclared",
			res:  newToolProbe(r1125, `{"tools":null}`).page(toolsPage(echoTool)).result(),
			want: skipAll("server declares no tools capability"),
		},
		{
			name: "no initialize result leaves them untested",
			res:  &probe.Result{Requested: r1125, Err: "initialize failed: JSON-RPC error -32600"},
			want: untestedAll("no initialize result"),
		},
		{
			name: "tools/list never sent leaves them untested with the probe's error",
			res: func() *probe.Result {
				r := newToolProbe(r1125, toolsCaps).result()
				r.Err = "probe did not finish within 1s"
				return r
			}(),
			want: untestedAll("tools/list was never sent: probe did not finish within 1s"),
		},
		{
			name: "a declared capability whose list fails fails tools.list and leaves the rest untested",
			res:  newToolProbe(r1125, toolsCaps).pageError(-32601).result(),
			want: map[string]expect{
				"tools.list":          {status: StatusFail, msg: "tools/list failed although the server declares tools: JSON-RPC error -32601"},
				"tools.pagination":    {status: StatusUntested, msg: "tools/list failed (JSON-RPC error -32601)"},
				"tools.input-schema":  {status: StatusUntested, msg: "tools/list failed (JSON-RPC error -32601)"},
				"tools.output-schema": {status: StatusUntested, msg: "tools/list failed"},
				"tools.name-format":   {status: StatusUntested, msg: "tools/list failed"},
				"tools.description":   {status: StatusUntested, msg: "tools/list failed"},
				"tools.fingerprint":   {status: StatusUntested, msg: "tools/list did not complete (page 1: JSON-RPC error -32601)"},
			},
		},
		{
			name: "an unanswered tools/list fails tools.list",
			res:  newToolProbe(r0618, toolsCaps).pageTimeout().result(),
			want: map[string]expect{
				"tools.list":        {status: StatusFail, msg: "no answer: timed out waiting for an answer"},
				"tools.fingerprint": {status: StatusUntested, msg: "did not complete"},
			},
		},
		{
			name: "a tool without inputSchema fails the list and the input schema check",
			res:  newToolProbe(r1125, toolsCaps).page(toolsPage(echoTool, `{"name":"broken","description":"d"}`)).result(),
			want: map[string]expect{
				"tools.list":         {status: StatusFail, msg: "page 1 does not match ListToolsResult of 2025-11-25: /tools/1: required: missing properties: 'inputSchema'"},
				"tools.input-schema": {status: StatusFail, msg: `tool "broken" has no inputSchema`, tool: "broken"},
				"tools.fingerprint":  {status: StatusInfo, msg: "2 tools"},
			},
		},
		{
			name: "an inputSchema of type string fails both",
			res:  newToolProbe(r0326, toolsCaps).page(toolsPage(tool("echo", "d", `{"type":"string"}`))).result(),
			want: map[string]expect{
				"tools.list":         {status: StatusFail, msg: `/tools/0/inputSchema/type: const: value must be "object"`},
				"tools.input-schema": {status: StatusFail, msg: `inputSchema of tool "echo": the root "type" is "string", not "object"`, tool: "echo"},
			},
		},
		{
			name: "an inputSchema that is no valid JSON Schema fails only the input schema check",
			res:  newToolProbe(r1125, toolsCaps).page(toolsPage(tool("echo", "d", `{"type":"object","properties":{"a":{"type":"strin"}}}`))).result(),
			want: map[string]expect{
				"tools.list":         {status: StatusPass},
				"tools.input-schema": {status: StatusFail, msg: `inputSchema of tool "echo": not a valid 2020-12 schema: /properties/a/type`, tool: "echo"},
			},
		},
		{
			name: "the dialect follows $schema",
			res:  newToolProbe(r1125, toolsCaps).page(toolsPage(tool("t", "d", `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"a":{"type":"array","items":[{"type":"string"}]}}}`))).result(),
			want: map[string]expect{"tools.input-schema": {status: StatusPass}},
		},
		{
			name: "the default dialect before 2025-11-25 is draft-07",
			res:  newToolProbe(r0618, toolsCaps).page(toolsPage(tool("t", "d", `{"type":"object","properties":{"a":{"type":"array","items":[{"type":"string"}]}}}`))).result(),
			want: map[string]expect{"tools.input-schema": {status: StatusPass}},
		},
		{
			name: "the default dialect from 2025-11-25 is 2020-12",
			res:  newToolProbe(r1125, toolsCaps).page(toolsPage(tool("t", "d", `{"type":"object","properties":{"a":{"type":"array","items":[{"type":"string"}]}}}`))).result(),
			want: map[string]expect{"tools.input-schema": {status: StatusFail, msg: "not a valid 2020-12 schema", tool: "t"}},
		},
		{
			name: "schemas that cannot be judged warn",
			res: newToolProbe(r1125, toolsCaps).page(toolsPage(
				tool("mail", "d", `{"type":"object","properties":{"to":{"type":"string","pattern":"^(?!\\.)[^@]+@[^@]+$"}}}`),
				tool("remote", "d", `{"type":"object","properties":{"x":{"$ref":"https://example.com/x.json"}}}`),
			)).result(),
			want: map[string]expect{
				"tools.input-schema": {status: StatusWarn, msg: `inputSchema of tool "mail" cannot be checked: its pattern "^(?!\\.)[^@]+@[^@]+$" uses ECMA-262 syntax that Go's RE2 does not implement (and 1 more)`, tool: "remote"},
			},
		},
		{
			name: "an outputSchema must have root type object before 2026-07-28",
			res:  newToolProbe(r0618, toolsCaps).page(toolsPage(withOutput("list", `{"type":"array"}`), withOutput("obj", `{"type":"object"}`))).result(),
			want: map[string]expect{
				"tools.list":          {status: StatusFail, msg: "/tools/0/outputSchema/type"},
				"tools.output-schema": {status: StatusFail, msg: `outputSchema of tool "list": the root "type" is "array", not "object"`, tool: "list"},
			},
		},
		{
			name: "a valid outputSchema passes",
			res:  newToolProbe(r1125, toolsCaps).page(toolsPage(withOutput("obj", `{"type":"object","properties":{"n":{"type":"integer"}}}`))).result(),
			want: map[string]expect{"tools.output-schema": {status: StatusPass, msg: "each of 1 outputSchemas"}},
		},
		{
			name: "any outputSchema root is fine in 2026-07-28, an invalid one is not",
			res:  newToolProbe(r2026, toolsCaps).page(toolsPageWith(cacheHints, withOutput("list", `{"type":"array"}`), withOutput("bad", `{"type":"lisst"}`))).result(),
			want: map[string]expect{
				"tools.list":          {status: StatusPass},
				"tools.output-schema": {status: StatusFail, msg: `outputSchema of tool "bad": not a valid 2020-12 schema: /type`, tool: "bad"},
			},
		},
		{
			name: "outputSchema is not judged before 2025-06-18",
			res:  newToolProbe(r0326, toolsCaps).page(toolsPage(withOutput("list", `{"type":"array"}`))).result(),
			want: map[string]expect{"tools.output-schema": {status: StatusSkip, msg: "outputSchema exists from 2025-06-18 on; the server speaks 2025-03-26"}},
		},
		{
			name: "2026-07-28 list results need resultType and cache hints",
			res:  newToolProbe(r2026, toolsCaps).page(toolsPageWith(`"ttlMs":5,"cacheScope":"public"`, echoTool)).result(),
			want: map[string]expect{
				"tools.list":         {status: StatusFail, msg: "(root): required: missing properties: 'resultType'"},
				"tools.input-schema": {status: StatusPass},
			},
		},
		{
			name: "an unknown revision has no list schema",
			res:  newToolProbe("2099-01-01", toolsCaps).page(toolsPage(echoTool)).result(),
			want: map[string]expect{"tools.list": {status: StatusSkip, msg: "no ListToolsResult schema for revision 2099-01-01"}},
		},
		{
			name: "tool names outside the rule and duplicates warn from 2025-11-25",
			res:  newToolProbe(r1125, toolsCaps).page(toolsPage(tool("greet (structured)", "d", objectSchema), echoTool, echoTool, tool(strings.Repeat("n", 129), "d", objectSchema))).result(),
			want: map[string]expect{
				"tools.name-format": {status: StatusWarn, msg: `tool name "greet (structured)" is outside ^[A-Za-z0-9_.-]{1,128}$ (and 2 more)`, tool: "echo"},
				"tools.pagination":  {status: StatusPass},
			},
		},
		{
			name: "tool names are not judged before 2025-11-25",
			res:  newToolProbe(r0618, toolsCaps).page(toolsPage(tool("greet (structured)", "d", objectSchema))).result(),
			want: map[string]expect{"tools.name-format": {status: StatusSkip, msg: "the tool name rule exists from 2025-11-25 on; the server speaks 2025-06-18"}},
		},
		{
			name: "a tool without a description is advice, as is an empty one",
			res:  newToolProbe(r0618, toolsCaps).page(toolsPage(echoTool, noDescription, tool("blank", "  ", objectSchema))).result(),
			want: map[string]expect{
				"tools.description": {status: StatusWarn, msg: `tool "bare" has no description (and 1 more)`, tool: "blank"},
			},
		},
		{
			name: "an empty tool list has nothing to judge per tool",
			res:  newToolProbe(r1125, toolsCaps).page(toolsPage()).result(),
			want: map[string]expect{
				"tools.list":         {status: StatusPass, msg: "0 tools"},
				"tools.input-schema": {status: StatusSkip, msg: "lists no tools"},
				"tools.description":  {status: StatusSkip, msg: "lists no tools"},
				"tools.name-format":  {status: StatusSkip, msg: "no named tools"},
				"tools.fingerprint":  {status: StatusInfo, msg: "0 tools"},
			},
		},
		{
			name: "entries that are not objects fail the list and are no tools for the rest",
			res:  newToolProbe(r1125, toolsCaps).page(toolsPage(`"echo"`, echoTool)).result(),
			want: map[string]expect{
				"tools.list":         {status: StatusFail, msg: "/tools/0: type: expected object, but got string"},
				"tools.input-schema": {status: StatusPass, msg: "each of 1 tools"},
				"tools.fingerprint":  {status: StatusInfo, msg: "2 tools"},
			},
		},
		{
			name: "two pages that end pass",
			res:  newToolProbe(r1125, toolsCaps).page(toolsPageWith(`"nextCursor":"p2"`, echoTool)).page(toolsPage(addTool)).result(),
			want: map[string]expect{
				"tools.list":        {status: StatusPass, msg: "2 tools on 2 page(s)"},
				"tools.pagination":  {status: StatusPass, msg: "2 tools on 2 page(s)"},
				"tools.fingerprint": {status: StatusInfo, msg: "2 tools"},
			},
		},
		{
			name: "a repeated cursor is a loop",
			res:  newToolProbe(r1125, toolsCaps).page(toolsPageWith(`"nextCursor":"a"`, echoTool)).page(toolsPageWith(`"nextCursor":"a"`, addTool)).result(),
			want: map[string]expect{"tools.pagination": {status: StatusFail, msg: `page 2 returned the cursor "a" that page 1 already returned: the listing loops`}},
		},
		{
			name: "an empty string is a cursor, and repeating it loops",
			res:  newToolProbe(r2026, toolsCaps).page(toolsPageWith(cacheHints+`,"nextCursor":""`, echoTool)).page(toolsPageWith(cacheHints+`,"nextCursor":""`, addTool)).result(),
			want: map[string]expect{"tools.pagination": {status: StatusFail, msg: `page 2 returned the cursor "" that page 1 already returned`}},
		},
		{
			name: "a tool listed on two pages fails",
			res:  newToolProbe(r1125, toolsCaps).page(toolsPageWith(`"nextCursor":"2"`, echoTool, addTool)).page(toolsPage(echoTool)).result(),
			want: map[string]expect{
				"tools.pagination":  {status: StatusFail, msg: `tool "echo" is listed on page 1 and again on page 2`, tool: "echo"},
				"tools.name-format": {status: StatusWarn, msg: `tool name "echo" is listed 2 times`, tool: "echo"},
			},
		},
		{
			name: "a numeric nextCursor fails pagination and the list",
			res:  newToolProbe(r0618, toolsCaps).page(toolsPageWith(`"nextCursor":2`, echoTool)).result(),
			want: map[string]expect{
				"tools.pagination": {status: StatusFail, msg: "page 1: nextCursor is a number 2, not a string"},
				"tools.list":       {status: StatusFail, msg: "/nextCursor: type: expected string, but got number"},
			},
		},
		{
			name: "a null nextCursor is not a string either",
			res:  newToolProbe(r0618, toolsCaps).page(toolsPageWith(`"nextCursor":null`, echoTool)).result(),
			want: map[string]expect{"tools.pagination": {status: StatusFail, msg: "nextCursor is null, not a string"}},
		},
		{
			name: "a last page that still points further hit the page limit",
			res: newToolProbe(r1125, toolsCaps).
				page(toolsPageWith(`"nextCursor":"c1"`, echoTool)).
				page(toolsPageWith(`"nextCursor":"c2"`, addTool)).
				page(toolsPageWith(`"nextCursor":"c3"`)).result(),
			want: map[string]expect{"tools.pagination": {status: StatusFail, msg: "page 3 still returns a nextCursor; the listing goes beyond the probe's limit of 3 pages"}},
		},
		{
			name: "a later page that fails fails pagination, not the list",
			res:  newToolProbe(r1125, toolsCaps).page(toolsPageWith(`"nextCursor":"c1"`, echoTool)).pageError(-32602).result(),
			want: map[string]expect{
				"tools.list":         {status: StatusPass, msg: "1 tools on 1 page(s)"},
				"tools.pagination":   {status: StatusFail, msg: "page 2 (asked for with the cursor page 1 returned) failed: JSON-RPC error -32602"},
				"tools.input-schema": {status: StatusPass},
				"tools.fingerprint":  {status: StatusUntested, msg: "tools/list did not complete (page 2: JSON-RPC error -32602)"},
			},
		},
	}
	v := newTestValidator(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := evaluateTools(t, v, tt.res)
			for id, want := range tt.want {
				f, ok := got[id]
				if !ok {
					t.Fatalf("%s: no finding", id)
				}
				if f.Status != want.status || !strings.Contains(f.Message, want.msg) {
					t.Errorf("%s: got %s %q, want %s containing %q", id, f.Status, f.Message, want.status, want.msg)
				}
				if want.tool != "" && !evidenceNames(f, want.tool) {
					t.Errorf("%s: no evidence names tool %q: %+v", id, want.tool, f.Evidence)
				}
				if f.Status == StatusFail || f.Status == StatusWarn {
					for _, e := range f.Evidence {
						if len(e.Frames) == 0 {
							t.Errorf("%s: evidence without frames: %q", id, e.Message)
						}
						for _, seq := range e.Frames {
							if seq < 0 || seq >= len(tt.res.Frames) {
								t.Errorf("%s: evidence frame %d outside the transcript", id, seq)
							}
						}
					}
				}
			}
		})
	}
}

func evidenceNames(f Finding, tool string) bool {
	for _, e := range f.Evidence {
		if e.Tool == tool {
			return true
		}
	}
	return false
}

func newTestValidator(t testing.TB) *mcpschema.Validator {
	t.Helper()
	v, err := mcpschema.New()
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestToolCheckFindingsPointAtTheAnsweringFrame(t *testing.T) {
	res := newToolProbe("2025-11-25", toolsCaps).page(toolsPage(tool("echo", "d", `{"type":"string"}`))).result()
	f := evaluateTools(t, newTestValidator(t), res)["tools.input-schema"]
	st, _ := res.FirstStep(probe.StepToolsList)
	if len(f.Evidence) != 1 || len(f.Evidence[0].Frames) != 1 || f.Evidence[0].Frames[0] != st.Response {
		t.Fatalf("evidence %+v, want the tools/list answer frame %d", f.Evidence, st.Response)
	}
}

func TestToolFingerprint(t *testing.T) {
	v := newTestValidator(t)
	fingerprint := func(pages ...string) (string, int) {
		p := newToolProbe("2025-11-25", toolsCaps)
		for _, pg := range pages {
			p.page(pg)
		}
		f := evaluateTools(t, v, p.result())["tools.fingerprint"]
		if f.Status != StatusInfo {
			t.Fatalf("status %s: %s", f.Status, f.Message)
		}
		fp, count, ok := ToolFingerprint(f)
		if !ok {
			t.Fatalf("tools.fingerprint data %v", f.Data)
		}
		return fp.String(), count
	}
	base, n := fingerprint(toolsPage(echoTool, addTool))
	if n != 2 || !strings.HasPrefix(base, "sha256:") || len(base) != len("sha256:")+64 {
		t.Fatalf("fingerprint %q count %d", base, n)
	}
	reordered := `{"tools":[
		{"inputSchema":{"properties":{"b":{"type":"number"},"a":{"type":"number"}},"type":"object"},"description":"Adds two numbers","name":"add"},
		{"description":"Echoes back the input","name":"echo","inputSchema":{"required":["message"],"type":"object","properties":{"message":{"type":"string"}}}}
	]}`
	tests := []struct {
		name  string
		pages []string
		same  bool
		count int
	}{
		{"same tools again", []string{toolsPage(echoTool, addTool)}, true, 2},
		{"tool order, member order and whitespace do not matter", []string{reordered}, true, 2},
		{"how the tools are paged does not matter", []string{toolsPageWith(`"nextCursor":"x"`, addTool), toolsPage(echoTool)}, true, 2},
		{"fields outside the surface do not matter", []string{toolsPage(strings.Replace(echoTool, `"name"`, `"annotations":{"readOnlyHint":true},"name"`, 1), addTool)}, true, 2},
		{"a changed description matters", []string{toolsPage(tool("echo", "Echoes", objectSchema), addTool)}, false, 2},
		{"a changed schema matters", []string{toolsPage(tool("echo", "Echoes back the input", `{"type":"object"}`), addTool)}, false, 2},
		{"an added outputSchema matters", []string{toolsPage(strings.Replace(echoTool, `"name"`, `"outputSchema":{"type":"object"},"name"`, 1), addTool)}, false, 2},
		{"a renamed tool matters", []string{toolsPage(tool("echo2", "Echoes back the input", objectSchema), addTool)}, false, 2},
		{"a removed tool matters", []string{toolsPage(echoTool)}, false, 1},
		{"a listed twice tool matters", []string{toolsPage(echoTool, addTool, addTool)}, false, 3},
		{"array order inside a schema matters", []string{toolsPage(tool("echo", "Echoes back the input", `{"type":"object","properties":{"message":{"type":"string"}},"required":["message","x"]}`), addTool)}, false, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, count := fingerprint(tt.pages...)
			if (got == base) != tt.same || count != tt.count {
				t.Fatalf("hash %s (base %s), count %d: want same=%v count %d", got, base, count, tt.same, tt.count)
			}
		})
	}
}

func TestToolChecksGiveTheSameVerdictFromTheirCache(t *testing.T) {
	v := newTestValidator(t)
	reg, err := NewRegistry(toolChecks(v)...)
	if err != nil {
		t.Fatal(err)
	}
	res := newToolProbe("2025-11-25", toolsCaps).page(toolsPage(tool("bad name", "", `{"type":"string"}`))).result()
	first := reg.Evaluate(res)
	second := reg.Evaluate(res)
	a, _ := json.Marshal(first)
	b, _ := json.Marshal(second)
	if string(a) != string(b) {
		t.Fatalf("first evaluation\n%s\nsecond\n%s", a, b)
	}
}

// everythingTools is a 13-tool list shaped like the reference "everything" server's: zod
// generated draft-07 input schemas, one outputSchema. variant changes every schema's bytes.
func everythingTools(variant int) string {
	prop := func(name, typ, desc string) string {
		return fmt.Sprintf(`%q:{"type":%q,"description":%q}`, name, typ, desc)
	}
	schema := func(props ...string) string {
		return fmt.Sprintf(`{"type":"object","properties":{%s,"v%d":{"type":"integer"}},"additionalProperties":false,"$schema":"http://json-schema.org/draft-07/schema#"}`, strings.Join(props, ","), variant)
	}
	tools := []string{
		tool("echo", "Echoes back the input", schema(prop("message", "string", "Message to echo"))),
		tool("add", "Adds two numbers", schema(prop("a", "number", "First number"), prop("b", "number", "Second number"))),
		tool("longRunningOperation", "Demonstrates a long running operation with progress updates", schema(prop("duration", "number", "Duration of the operation in seconds"), prop("steps", "number", "Number of steps in the operation"))),
		tool("printEnv", "Prints all environment variables, helpful for debugging MCP server configuration", schema()[0:0]+`{"type":"object","properties":{},"additionalProperties":false,"$schema":"http://json-schema.org/draft-07/schema#"}`),
		tool("sampleLLM", "Samples from an LLM using MCP's sampling feature", schema(prop("prompt", "string", "The prompt to send to the LLM"), prop("maxTokens", "number", "Maximum number of tokens to generate"))),
		tool("getTinyImage", "Returns the MCP_TINY_IMAGE", schema(prop("size", "string", "Image size"))),
		tool("annotatedMessage", "Demonstrates how annotations can be used to provide metadata about content", fmt.Sprintf(`{"type":"object","properties":{"messageType":{"type":"string","enum":["error","success","debug"],"description":"Type of message to demonstrate different annotation patterns"},"includeImage":{"type":"boolean","default":false,"description":"Whether to include an example image"},"v%d":{"type":"integer"}},"required":["messageType"],"additionalProperties":false,"$schema":"http://json-schema.org/draft-07/schema#"}`, variant)),
		tool("getResourceReference", "Returns a resource reference that can be used by MCP clients", fmt.Sprintf(`{"type":"object","properties":{"resourceId":{"type":"number","minimum":1,"maximum":100,"description":"ID of the resource to reference (1-100)"},"v%d":{"type":"integer"}},"required":["resourceId"],"additionalProperties":false,"$schema":"http://json-schema.org/draft-07/schema#"}`, variant)),
		tool("startElicitation", "Demonstrates the Elicitation feature by asking the user to provide information about their favorite color, number, and pets.", schema(prop("color", "string", "Favorite color"))),
		fmt.Sprintf(`{"name":"structuredContent","description":"Returns structured content along with an output schema for client data validation","inputSchema":%s,"outputSchema":{"type":"object","properties":{"temperature":{"type":"number","description":"Temperature in celsius"},"conditions":{"type":"string"},"humidity":{"type":"number"},"v%d":{"type":"integer"}},"required":["temperature","conditions","humidity"],"additionalProperties":false,"$schema":"http://json-schema.org/draft-07/schema#"}}`, schema(prop("location", "string", "City name or zip code")), variant),
		tool("listRoots", "Lists the current MCP roots provided by the client", schema(prop("verbose", "boolean", "Show details"))),
		tool("getResourceLinks", "Returns multiple resource links that reference different types of resources", fmt.Sprintf(`{"type":"object","properties":{"count":{"type":"number","minimum":1,"maximum":10,"default":3,"description":"Number of resource links to return (1-10)"},"v%d":{"type":"integer"}},"additionalProperties":false,"$schema":"http://json-schema.org/draft-07/schema#"}`, variant)),
		tool("zip", "Compresses the provided resource files (mapping of name to URI, which can be a data URI) to a zip file", fmt.Sprintf(`{"type":"object","properties":{"files":{"type":"object","additionalProperties":{"type":"string","format":"uri"},"description":"Mapping of file names to URIs of file contents"},"v%d":{"type":"integer"}},"required":["files"],"additionalProperties":false,"$schema":"http://json-schema.org/draft-07/schema#"}`, variant)),
	}
	return toolsPage(tools...)
}

func everythingResult(variant int) *probe.Result {
	return newToolProbe("2025-06-18", toolsCaps).page(everythingTools(variant)).result()
}

// BenchmarkToolChecks evaluates every tools check on a 13-tool result. "checks" times the
// checks alone on a decoded Run, "registry" adds Registry.Evaluate's decoding of every frame.
// warm is the same result again (a monitor re-probing an unchanged server); cold has new
// bytes in every page and schema, so that no cache helps.
func BenchmarkToolChecks(b *testing.B) {
	v := newTestValidator(b)
	cs := toolChecks(v)
	reg, err := NewRegistry(cs...)
	if err != nil {
		b.Fatal(err)
	}
	evaluate := func(run *Capture) {
		for _, c := range cs {
			if f := evaluateOne(c, run); f.Status == StatusFail {
				b.Fatalf("%s: %s", f.ID, f.Message)
			}
		}
	}
	b.Run("checks/warm", func(b *testing.B) {
		run := NewCapture(everythingResult(0))
		evaluate(run)
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			evaluate(run)
		}
	})
	b.Run("checks/cold", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			run := NewCapture(everythingResult(i + 1))
			b.StartTimer()
			evaluate(run)
		}
	})
	b.Run("registry/warm", func(b *testing.B) {
		res := everythingResult(0)
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			reg.Evaluate(res)
		}
	})
}

// FuzzToolListing: whatever a tools/list result holds, the tools checks reach a verdict
// without panicking, and every schema they judge is passed on as JSON.
func FuzzToolListing(f *testing.F) {
	f.Add(toolsPage(echoTool, addTool))
	f.Add(toolsPageWith(`"nextCursor":7`, `"x"`, `{"name":1}`))
	f.Add(`{"tools":[{"name":"a","inputSchema":{"type":"object","properties":{"\u0000":{}}},"outputSchema":[1,{"b":null}]}]}`)
	f.Add(`[]`)
	v := newTestValidator(f)
	reg, err := NewRegistry(toolChecks(v)...)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, result string) {
		if !json.Valid([]byte(result)) {
			return
		}
		res := newToolProbe("2025-11-25", toolsCaps).page(result).result()
		for _, fd := range reg.Evaluate(res) {
			if fd.Status == "" || fd.Message == "" {
				t.Fatalf("%s: no verdict", fd.ID)
			}
		}
		p := newToolLister(v).decodePage("2025-11-25", result, &schemaBudget{})
		for _, tl := range p.tools {
			for _, s := range []string{tl.input, tl.output} {
				if s != "" && !json.Valid([]byte(s)) {
					t.Fatalf("canonical schema %q is not JSON", s)
				}
			}
		}
	})
}

// A tool without a description is advice in every revision, never a warning: no sentence of
// the specification requires one, and each revision's schema leaves it optional. The
// 2025-11-25 schema's Tool, for one, has "required": ["inputSchema", "name"], and describes
// description only as "A human-readable description of the tool. This can be used by clients
// to improve the LLM's understanding of available tools. It can be thought of like a "hint"
// to the model." The same list holds from 2024-11-05 to 2026-07-28, so the listing itself
// must pass where the description is missing.
func TestToolWithoutDescriptionIsAdviceInEveryRevision(t *testing.T) {
	v := newTestValidator(t)
	bare := `{"name":"bare","inputSchema":{"type":"object"}}`
	for _, rev := range []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"} {
		t.Run(rev, func(t *testing.T) {
			page := toolsPage(bare)
			if protocol.Stateless(rev) {
				page = toolsPageWith(`"resultType":"complete","ttlMs":5,"cacheScope":"public"`, bare)
			}
			got := evaluateTools(t, v, newToolProbe(rev, toolsCaps).page(page).result())
			if l := got["tools.list"]; l.Status != StatusPass {
				t.Errorf("tools.list %s %q: the description is optional in the %s schema", l.Status, l.Message, rev)
			}
			d := got["tools.description"]
			if d.Status != StatusWarn || d.Severity != SeverityAdvice || len(d.Evidence) != 1 ||
				d.Evidence[0].Severity != SeverityAdvice || d.Evidence[0].Tool != "bare" {
				t.Errorf("tools.description = %s/%s %+v, want advice about tool bare", d.Status, d.Severity, d.Evidence)
			}
		})
	}
}

// pinnedToolsPage is a tool list whose strings need every kind of escape (newline, tab, a
// control character, quotes, backslash, U+2028, non-ASCII) and whose schemas have unsorted
// members and a number written with a trailing zero.
const pinnedToolsPage = `{"tools":[` +
	`{"name":"fetch","description":"Fetch a URL.\nReturns:\t\"text\" \\ \u2028 é \u0001 <b>&amp;</b>",` +
	`"inputSchema":{"type":"object","properties":{"url":{"type":"string","description":"the URL\nto fetch"},"max":{"type":"number","default":1.50}},"required":["url"]},` +
	`"outputSchema":{"type":"object","properties":{"text":{"type":"string"}}}},` +
	`{"name":"add","inputSchema":{"type":"object"}}]}`

// TestToolFingerprintOfAFixedListIsPinned: monitors store fingerprints and compare them from
// run to run, so the hash of a given tool list must never change with the code that computes
// it. The value was computed by the prober before the tool surface had a package of its own.
func TestToolFingerprintOfAFixedListIsPinned(t *testing.T) {
	res := newToolProbe("2025-11-25", toolsCaps).page(pinnedToolsPage).result()
	f := evaluateTools(t, newTestValidator(t), res)["tools.fingerprint"]
	const want = "sha256:3b7404fefcac5b34e1d7ba98cb1e289eb4228e5861c98cb3960713db5cfe5ee9"
	if f.Data["hash"] != want || f.Data["count"] != 2 {
		t.Fatalf("fingerprint %v of %v tools, want %s of 2", f.Data["hash"], f.Data["count"], want)
	}
	wire, err := json.Marshal(f.Data)
	if err != nil {
		t.Fatal(err)
	}
	if got := `{"count":2,"hash":"` + want + `"}`; string(wire) != got {
		t.Fatalf("finding data on the wire %s, want %s", wire, got)
	}
	// A stored run gives the finding back from JSON: the typed reading is the same.
	var stored Finding
	if b, err := json.Marshal(f); err != nil || json.Unmarshal(b, &stored) != nil {
		t.Fatalf("finding %+v does not survive JSON", f)
	}
	if fp, n, ok := ToolFingerprint(stored); !ok || fp.String() != want || n != 2 {
		t.Fatalf("stored finding reads as %s of %d tools (ok %v), want %s of 2", fp, n, ok, want)
	}
}
