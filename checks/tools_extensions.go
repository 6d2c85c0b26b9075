package checks

import (
	"fmt"
	"strings"

	"github.com/mcpwatch/mcpwatch/jsondoc"
	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/protocol"
)

// toolExtensionChecks judge members of listed tools that qualify how a client may call
// them: the x-mcp-header annotations of 2026-07-28 and the execution.taskSupport of
// 2025-11-25.
func toolExtensionChecks() []Check {
	return []Check{
		{ID: "tools.x-mcp-header", Area: "tools", Rule: "E", Spec: specTools,
			Title:    "x-mcp-header values are non-empty tokens, unique per tool (case-insensitively), on statically reachable integer, string or boolean parameters (2026-07-28)",
			Evaluate: checkXMCPHeaders},
		{ID: "tools.execution", Area: "tools", Rule: "E, C5", Spec: specTools + "#tool",
			Title:    "a tool that supports task-augmented calls (execution.taskSupport optional or required) comes from a server that declares tasks.requests.tools.call (2025-11-25)",
			Evaluate: checkToolExecution},
	}
}

// listedToolsFor is the main connection's tools/list for a tools check that reads items: nil
// (with f settled) when the server declares no tools or the listing never came.
func listedToolsFor(r *Capture, f *Finding) *surfaceList {
	switch _, handshake := r.Handshake(); {
	case handshake == probe.HandshakeNone:
		f.Untested("no initialize or discover result, so no declared capabilities to judge tools by")
		return nil
	case !r.Declares("tools"):
		f.Skip("server declares no tools capability")
		return nil
	}
	l := r.surfaceList(probe.StepToolsList, probe.ConnMain)
	if !l.sent() {
		f.notJudged(stoppedHere(r), "tools/list was never sent: %s", probeStopped(r))
		return nil
	}
	if l.docs[0] == nil {
		f.Untested("tools/list failed (%s), so there are no tools to judge", describeStep(l.steps[0]))
		return nil
	}
	return l
}

// toolName names a listed tool in a message and in evidence.
func toolName(item jsondoc.Value, page int, index int) (label, key string) {
	if n := item.Get("name"); n.Kind() == jsondoc.String {
		return quoteName(n.Str()), clipName(n.Str())
	}
	return fmt.Sprintf("tools[%d] of page %d", index, page), ""
}

// x-mcp-header (2026-07-28 server/tools, "x-mcp-header"; basic/transports/streamable-http,
// "Custom Headers from Tool Parameters"): its value "MUST NOT be empty", "MUST match HTTP
// field-name token syntax (1*tchar, RFC 9110 Section 5.1)", "MUST be case-insensitively unique
// among all x-mcp-header values in the inputSchema", "MUST only be applied to parameters with
// primitive types (integer, string, boolean). Parameters with type number are not
// permitted", and "MUST only be applied to properties that are statically reachable from the
// schema root: reachable via a chain consisting solely of properties keys".
func checkXMCPHeaders(r *Capture, f *Finding) {
	if rev := r.Revision(); !protocol.Stateless(rev) {
		f.Skip("x-mcp-header exists from %s on; the server speaks %s", protocol.Revision20260728, rev)
		return
	}
	l := listedToolsFor(r, f)
	if l == nil {
		return
	}
	annotated, tools := 0, 0
	index := map[int]int{} // page -> items seen, for labels
	l.items("tools", func(st probe.Step, page int, item jsondoc.Value) {
		i := index[page]
		index[page]++
		if item.Kind() != jsondoc.Object {
			return
		}
		tools++
		label, key := toolName(item, page, i)
		var found []headerUse
		walkHeaders(item.Get("inputSchema"), "inputSchema", true, true, &found)
		seen := map[string]string{} // lower-cased value -> where first
		for _, h := range found {
			annotated++
			for _, why := range h.faults() {
				f.FailTool(key, Seqs(st.Response), "tool %s: x-mcp-header at %s %s", label, h.at, why)
			}
			if h.value.Kind() != jsondoc.String || h.value.Str() == "" {
				continue
			}
			lower := strings.ToLower(h.value.Str())
			if first, dup := seen[lower]; dup {
				f.FailTool(key, Seqs(st.Response), "tool %s: x-mcp-header %s at %s repeats the one at %s (values must be unique, case-insensitively)", label, clipQuote(h.value.Str()), h.at, first)
				continue
			}
			seen[lower] = h.at
		}
	})
	if annotated == 0 {
		f.Skip("none of %d tools annotates a parameter with x-mcp-header", tools)
		return
	}
	f.Pass("%d x-mcp-header annotation(s) are tokens, unique per tool, on statically reachable integer, string or boolean parameters", annotated)
}

// headerUse is one x-mcp-header annotation found in an inputSchema.
type headerUse struct {
	at        string // JSON-pointer-like path of the annotated schema
	value     jsondoc.Value
	schema    jsondoc.Value // the annotated schema
	reachable bool          // reached from the root through properties only
	root      bool          // the annotation is on the root schema itself
}

// faults says what is wrong with an annotation, apart from uniqueness.
func (h headerUse) faults() []string {
	var out []string
	switch {
	case h.value.Kind() != jsondoc.String:
		out = append(out, fmt.Sprintf("is %s, not a string", describeValue(h.value.Any())))
	case h.value.Str() == "":
		out = append(out, "is empty")
	case !httpToken(h.value.Str()):
		out = append(out, fmt.Sprintf("is %s, not an RFC 9110 token (1*tchar)", clipQuote(h.value.Str())))
	}
	if h.root || !h.reachable {
		out = append(out, "is not on a property statically reachable from the root through properties alone")
	}
	switch t := h.schema.Get("type"); {
	case t.Kind() == jsondoc.String && (t.Str() == "string" || t.Str() == "integer" || t.Str() == "boolean"):
	case t.Kind() == jsondoc.String:
		out = append(out, fmt.Sprintf("is on a parameter of type %s (only integer, string and boolean are allowed)", clipQuote(t.Str())))
	default:
		out = append(out, "is on a parameter without a single primitive type (integer, string or boolean)")
	}
	return out
}

// Keywords whose values are schemas (or maps or arrays of schemas); data keywords (const,
// enum, default, examples) are never walked, so a default value holding an "x-mcp-header"
// member is not mistaken for an annotation.
var (
	schemaMapKeywords   = []string{"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"}
	schemaArrayKeywords = []string{"allOf", "anyOf", "oneOf", "prefixItems"}
	schemaKeywords      = []string{"additionalProperties", "items", "contains", "not", "if", "then", "else",
		"propertyNames", "unevaluatedProperties", "unevaluatedItems", "additionalItems"}
)

// maxHeaderWalkDepth bounds the walk of a hostile schema.
const maxHeaderWalkDepth = 64

// walkHeaders collects the x-mcp-header annotations of a schema. reachable says whether the
// schema is reached from the root through properties alone.
func walkHeaders(s jsondoc.Value, at string, reachable, root bool, out *[]headerUse) {
	walkHeadersDepth(s, at, reachable, root, out, 0)
}

func walkHeadersDepth(s jsondoc.Value, at string, reachable, root bool, out *[]headerUse, depth int) {
	if s.Kind() != jsondoc.Object || depth > maxHeaderWalkDepth {
		return
	}
	if v := s.Get("x-mcp-header"); v.Exists() {
		*out = append(*out, headerUse{at: at, value: v, schema: s, reachable: reachable, root: root})
	}
	for _, kw := range schemaMapKeywords {
		m := s.Get(kw)
		if m.Kind() != jsondoc.Object {
			continue
		}
		for name, child := range m.Members() {
			walkHeadersDepth(child, at+"/"+kw+"/"+name, reachable && kw == "properties", false, out, depth+1)
		}
	}
	for _, kw := range schemaArrayKeywords {
		a := s.Get(kw)
		if a.Kind() != jsondoc.Array {
			continue
		}
		for i, child := range a.Elements() {
			walkHeadersDepth(child, fmt.Sprintf("%s/%s/%d", at, kw, i), false, false, out, depth+1)
		}
	}
	for _, kw := range schemaKeywords {
		c := s.Get(kw)
		if c.Kind() == jsondoc.Array { // items as an array (draft-07 tuples)
			for i, child := range c.Elements() {
				walkHeadersDepth(child, fmt.Sprintf("%s/%s/%d", at, kw, i), false, false, out, depth+1)
			}
			continue
		}
		walkHeadersDepth(c, at+"/"+kw, false, false, out, depth+1)
	}
}

// httpToken reports whether s is 1*tchar (RFC 9110 §5.6.2): the characters a field name
// may hold, which excludes control characters, spaces and separators.
func httpToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// tools.execution (2025-11-25 basic/utilities/tasks, "Capabilities"): "Servers and clients
// that support task-augmented requests MUST declare a tasks capability during
// initialization", and "The set of capabilities in capabilities.tasks.requests is
// exhaustive. If a request type is not present, it does not support task-augmentation." A
// tool whose execution.taskSupport is "optional" or "required" says the server supports
// task-augmented tools/call. 2026-07-28 moved tasks into an extension and Tool has no
// execution member there.
func checkToolExecution(r *Capture, f *Finding) {
	if rev := r.Revision(); rev != protocol.Revision20251125 {
		f.Skip("Tool.execution exists in %s only (2026-07-28 moved tasks into an extension); the server speaks %s", protocol.Revision20251125, rev)
		return
	}
	l := listedToolsFor(r, f)
	if l == nil {
		return
	}
	declared := declaresToolCallTasks(r)
	supporting := 0
	index := map[int]int{}
	l.items("tools", func(st probe.Step, page int, item jsondoc.Value) {
		i := index[page]
		index[page]++
		ts := item.Get("execution").Get("taskSupport")
		if ts.Kind() != jsondoc.String || ts.Str() == "forbidden" {
			return
		}
		supporting++
		if !declared {
			label, key := toolName(item, page, i)
			f.FailTool(key, Seqs(st.Response), "tool %s has execution.taskSupport %s, but the server declares no tasks.requests.tools.call capability", label, clipQuote(ts.Str()))
		}
	})
	if supporting == 0 {
		f.Skip("no tool declares execution.taskSupport optional or required")
		return
	}
	f.Pass("%d tool(s) support task-augmented calls and the server declares tasks.requests.tools.call", supporting)
}

// declaresToolCallTasks reports whether the handshake declares tasks.requests.tools.call.
func declaresToolCallTasks(r *Capture) bool {
	raw, ok := r.Capability("tasks")
	if !ok {
		return false
	}
	doc, err := jsondoc.Parse(raw)
	if err != nil {
		return false
	}
	call := doc.Root().Get("requests").Get("tools").Get("call")
	return call.Exists() && call.Kind() != jsondoc.Null
}
