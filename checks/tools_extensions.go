package checks

import (
	"fmt"

	"github.com/mcpwatch/mcpwatch/internal/paramheader"
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
		found := paramheader.Find(item.Get("inputSchema"), "inputSchema")
		annotated += len(found)
		for _, p := range paramheader.Problems(found) {
			f.FailTool(key, Seqs(st.Response), "tool %s: x-mcp-header %s", label, p.Text)
		}
	})
	if annotated == 0 {
		f.Skip("none of %d tools annotates a parameter with x-mcp-header", tools)
		return
	}
	f.Pass("%d x-mcp-header annotation(s) are tokens, unique per tool, on statically reachable integer, string or boolean parameters", annotated)
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
