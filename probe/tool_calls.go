package probe

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"time"
)

// CallStepPrefix starts the step name of an opt-in tool call: call:<tool>, with #2, #3...
// for a tool called again, and CallInvalidSuffix for the call with arguments that break the
// tool's inputSchema.
const (
	CallStepPrefix    = "call:"
	CallInvalidSuffix = ":invalid-arguments"
)

// ToolCall is one opt-in tools/call of a calls file (prober check --calls): the probe sends
// it only when asked, and only for a tool the server lists.
type ToolCall struct {
	Tool string
	// Arguments is a JSON object, secrets from the environment already in it (the caller
	// redacts them from what it shows).
	Arguments json.RawMessage
	// Timeout bounds the call; 0 takes Options.RequestTimeout.
	Timeout time.Duration
	// InvalidArguments allows one more call whose arguments break the tool's inputSchema.
	InvalidArguments bool
	// Expect is what the file expects of the result; the probe carries it to the checks
	// without judging it.
	Expect *CallExpect
	// NotSent, when set, says why the caller could not make the call (an argument's
	// environment variable is not set): the probe records it not sent, with that reason.
	NotSent string
}

// CallExpect is what a calls file expects of a tool's result (tools.call-expectations).
type CallExpect struct {
	IsError      *bool
	TextContains string
	// Pointer is a JSON Pointer into structuredContent, with Equals (JSON) or Matches (a
	// regular expression) for the value there.
	Pointer string
	Equals  json.RawMessage
	Matches string
}

// CallRecord is what became of one ToolCall: the steps that sent it, or why it was not sent.
type CallRecord struct {
	Tool string `json:"tool"`
	// Step is the name of the step of the call; "" when it was not sent (NotSent says why).
	Step    string `json:"step,omitempty"`
	NotSent string `json:"notSent,omitempty"`
	// InvalidStep is the step of the call with invalid arguments ("" when none was sent:
	// InvalidNotSent says why when the file asked for one); InvalidHow says how the
	// arguments break the schema.
	InvalidStep    string `json:"invalidStep,omitempty"`
	InvalidNotSent string `json:"invalidNotSent,omitempty"`
	InvalidHow     string `json:"invalidHow,omitempty"`
	// Call is the call as the file gave it (its arguments may hold secrets: never recorded).
	Call ToolCall `json:"-"`
}

// listedTool is a tool of the session's tools/list pages, with the schemas the calls need.
type listedTool struct {
	Name         string          `json:"name"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema"`
}

// probeCalls sends the calls of Options.Calls, after the tool probes, in the connection's
// era (s.call adds the _meta of a stateless revision, and the HTTP transport its headers).
// Without calls it sends nothing.
func (s *session) probeCalls(ctx context.Context, handshake json.RawMessage, res *Result) {
	if len(s.o.Calls) == 0 {
		return
	}
	tools, complete := s.listedToolSchemas()
	used := map[string]int{}
	for _, c := range s.o.Calls {
		rec := CallRecord{Tool: c.Tool, Call: c}
		t, listed := tools[c.Tool]
		switch {
		case c.NotSent != "":
			rec.NotSent = c.NotSent
		case !declaresCapability(handshake, "tools"):
			rec.NotSent = "the server declares no tools capability"
		case !listed && !complete:
			rec.NotSent = "tools/list did not list it (the listing failed or did not end), so it was not called"
		case !listed:
			rec.NotSent = "the server does not list the tool " + strconv.Quote(c.Tool)
		}
		if rec.NotSent != "" {
			res.Calls = append(res.Calls, rec)
			continue
		}
		used[c.Tool]++
		name := CallStepPrefix + c.Tool
		if n := used[c.Tool]; n > 1 {
			name += "#" + strconv.Itoa(n)
		}
		timeout := c.Timeout
		if timeout <= 0 {
			timeout = s.o.RequestTimeout
		}
		args := c.Arguments
		if len(args) == 0 {
			args = json.RawMessage(`{}`)
		}
		params, _ := json.Marshal(map[string]any{"name": c.Tool, "arguments": args})
		s.call(ctx, name, "tools/call", params, timeout, 0)
		rec.Step = name
		if c.InvalidArguments {
			bad, how, ok := invalidArguments(args, t.InputSchema)
			if !ok {
				rec.InvalidNotSent = how
			} else {
				params, _ := json.Marshal(map[string]any{"name": c.Tool, "arguments": bad})
				rec.InvalidStep, rec.InvalidHow = name+CallInvalidSuffix, how
				s.call(ctx, rec.InvalidStep, "tools/call", params, timeout, 0)
			}
		}
		res.Calls = append(res.Calls, rec)
	}
}

// listedToolSchemas are the tools of the session's tools/list pages by name.
func (s *session) listedToolSchemas() (map[string]listedTool, bool) {
	out := map[string]listedTool{}
	pages, complete := s.listPages(StepToolsList)
	for _, page := range pages {
		var p struct {
			Tools []listedTool `json:"tools"`
		}
		if json.Unmarshal(page, &p) != nil {
			return out, false
		}
		for _, t := range p.Tools {
			if _, dup := out[t.Name]; !dup {
				out[t.Name] = t
			}
		}
	}
	return out, complete
}

// invalidArguments breaks args against the tool's inputSchema: it leaves out the first
// required property or, when none is required, gives the first typed property (by name) a
// value of another type. ok is false, how saying why, when the schema gives nothing to break.
func invalidArguments(args, schema json.RawMessage) (bad json.RawMessage, how string, ok bool) {
	var sc struct {
		Properties map[string]struct {
			Type any `json:"type"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if json.Unmarshal(schema, &sc) != nil {
		return nil, "the tool's inputSchema is not an object the probe can read", false
	}
	members := map[string]json.RawMessage{}
	if json.Unmarshal(args, &members) != nil {
		members = map[string]json.RawMessage{}
	}
	if len(sc.Required) > 0 {
		delete(members, sc.Required[0])
		bad, _ = json.Marshal(members)
		return bad, fmt.Sprintf("the required property %s left out", strconv.Quote(sc.Required[0])), true
	}
	names := make([]string, 0, len(sc.Properties))
	for n := range sc.Properties {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		typ, isString := sc.Properties[n].Type.(string)
		if !isString {
			continue
		}
		wrong := json.RawMessage(`"mcpwatch-invalid"`)
		if typ == "string" {
			wrong = json.RawMessage(`12345`)
		}
		members[n] = wrong
		bad, _ = json.Marshal(members)
		return bad, fmt.Sprintf("the property %s given a value that is not of type %s", strconv.Quote(n), typ), true
	}
	return nil, "the tool's inputSchema requires nothing and types no property, so no arguments break it", false
}
