package checks

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/mcpwatch/mcpwatch/checks/mcpschema"
	"github.com/mcpwatch/mcpwatch/internal/textclip"
	"github.com/mcpwatch/mcpwatch/internal/toolsurface"
	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/protocol"
)

const (
	specTools      = "https://modelcontextprotocol.io/specification/2025-11-25/server/tools"
	specPagination = "https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/pagination"
	specSchemaUse  = "https://modelcontextprotocol.io/specification/2025-11-25/basic#json-schema-usage"

	// Revisions in which tool rules begin.
	outputSchemaSince = protocol.Revision20250618 // server/tools, Output Schema
	toolNamesSince    = protocol.Revision20251125 // server/tools, Tool Names
	// toolNameMax is the longest name the 2025-11-25 naming rule allows.
	toolNameMax = 128
)

// toolChecks judge the tools/list pages of the main connection. They share one lister, so a
// page is decoded once however many checks read it.
func toolChecks(schemas *mcpschema.Validator) []Check {
	l := newToolLister(schemas)
	return []Check{
		{ID: "tools.list", Area: "tools", Rule: "E1", Spec: specTools + "#listing-tools",
			Title:    "tools/list returns a ListToolsResult of the negotiated revision",
			Evaluate: l.judge(checkToolsList)},
		{ID: "tools.pagination", Area: "tools", Rule: "D", Spec: specPagination,
			Title:    "tools/list pages end: no repeated cursor, no duplicate tool across pages, string cursors",
			Evaluate: l.judge(checkToolsPagination)},
		{ID: "tools.input-schema", Area: "tools", Rule: "E1, E3", Spec: specSchemaUse,
			Title:    "every inputSchema is a valid JSON Schema for its dialect with root type object",
			Evaluate: l.judge(checkInputSchemas)},
		{ID: "tools.output-schema", Area: "tools", Rule: "E2", Spec: specTools + "#output-schema",
			Title:    "every outputSchema is a valid JSON Schema (root type object before 2026-07-28)",
			Evaluate: l.judge(checkOutputSchemas)},
		{ID: "tools.name-format", Area: "tools", Rule: "E4", Spec: specTools + "#tool-names",
			Title:    "tool names match ^[A-Za-z0-9_.-]{1,128}$ and are unique (2025-11-25 and later)",
			Evaluate: l.judge(checkToolNames)},
		{ID: "tools.description", Area: "tools", Rule: "E", Spec: specTools + "#tool",
			Title:    "every tool has a description (advice: the field is optional in every revision)",
			Evaluate: l.judge(checkToolDescriptions)},
		{ID: "tools.fingerprint", Area: "tools", Spec: specTools,
			Title:    "a stable hash of the tool surface (names, descriptions, schemas) and the tool count",
			Evaluate: l.judge(fingerprintTools)},
	}
}

// toolJudge is a tools check proper, called once the common preconditions hold.
type toolJudge func(r *Capture, f *Finding, l *toolListing, schemas *mcpschema.Validator)

// judge wraps a tools check with what all of them need first: a declared tools capability
// (a server without tools is never failed for them) and a tools/list that was sent.
func (l *toolLister) judge(fn toolJudge) func(r *Capture, f *Finding) {
	return func(r *Capture, f *Finding) {
		listing := l.listing(r)
		if listing.skip != "" {
			f.notJudged(listing.untested, "%s", listing.skip)
			return
		}
		fn(r, f, listing, l.schemas)
	}
}

// needsPages skips a check that reads tools when tools/list failed on its first page.
func needsPages(f *Finding, l *toolListing) bool {
	if l.pages[0] == nil {
		f.Untested("tools/list failed (%s), so there are no tools to judge", describeStep(l.steps[0]))
		return false
	}
	return true
}

func checkToolsList(r *Capture, f *Finding, l *toolListing, _ *mcpschema.Validator) {
	rev := r.Revision()
	if l.failed == 0 {
		st := l.steps[0]
		f.Fail(Seqs(st.Request, st.Response), "tools/list failed although the server declares tools: %s", describeStep(st))
		return
	}
	n := 0
	for i, p := range l.pages {
		if p == nil {
			continue
		}
		if unknownRevision(p.verdict) {
			f.Skip("no ListToolsResult schema for revision %s", rev)
			return
		}
		if p.verdict != nil {
			f.Fail(Seqs(l.steps[i].Response), "page %d does not match ListToolsResult of %s: %v", i+1, rev, p.verdict)
		}
		n += len(p.tools)
	}
	f.Pass("%d tools on %d page(s) match ListToolsResult of %s", n, l.okPages(), rev)
}

func checkToolsPagination(_ *Capture, f *Finding, l *toolListing, _ *mcpschema.Validator) {
	if !needsPages(f, l) {
		return
	}
	judgePages(f, l, pagedItems{item: "tool", tools: true})
	tools := 0
	for _, p := range l.pages {
		if p == nil {
			break
		}
		tools += len(p.tools)
	}
	f.Pass("%d tools on %d page(s): cursors are strings, none repeats, no tool is listed twice across pages", tools, l.okPages())
}

func checkInputSchemas(r *Capture, f *Finding, l *toolListing, schemas *mcpschema.Validator) {
	if !needsPages(f, l) {
		return
	}
	rev, n := r.Revision(), 0
	l.tools(func(st probe.Step, page int, t *listedTool) {
		if !t.object {
			return
		}
		n++
		if n > maxSchemasJudged {
			return
		}
		if t.input == "" {
			f.FailTool(toolKey(t), Seqs(st.Response), "tool %s has no inputSchema", toolLabel(t, page))
			return
		}
		judgeToolSchema(f, st, page, t, t.inputSchemaVerdict(rev, schemas), "inputSchema")
	})
	if n == 0 {
		f.Skip("tools/list lists no tools")
		return
	}
	noteUnjudged(f, n)
	f.Pass("the inputSchema of each of %d tools is a valid JSON Schema with root type object", min(n, maxSchemasJudged))
}

func checkOutputSchemas(r *Capture, f *Finding, l *toolListing, schemas *mcpschema.Validator) {
	rev := r.Revision()
	if rev < outputSchemaSince {
		f.Skip("outputSchema exists from %s on; the server speaks %s", outputSchemaSince, rev)
		return
	}
	if !needsPages(f, l) {
		return
	}
	n := 0
	l.tools(func(st probe.Step, page int, t *listedTool) {
		if t.output == "" {
			return
		}
		n++
		if n > maxSchemasJudged {
			return
		}
		judgeToolSchema(f, st, page, t, t.outputSchemaVerdict(rev, schemas), "outputSchema")
	})
	if n == 0 {
		f.Skip("no tool declares an outputSchema")
		return
	}
	noteUnjudged(f, n)
	f.Pass("each of %d outputSchemas is a valid JSON Schema", min(n, maxSchemasJudged))
}

// maxSchemasJudged bounds the schema work of one evaluation: judging a schema the validator
// has not seen costs a walk of it (a compile, when it has references), and a hostile server
// may list a million tools.
const maxSchemasJudged = 1000

// noteUnjudged records how many schemas were left unjudged (a fact, not a fault).
func noteUnjudged(f *Finding, n int) {
	if n > maxSchemasJudged {
		if f.Data == nil {
			f.Data = map[string]any{}
		}
		f.Data["notChecked"] = n - maxSchemasJudged
	}
}

// judgeToolSchema records a ToolSchema verdict: a broken rule fails, a schema the validator
// cannot judge (an external $ref, an unknown dialect, an ECMA-only pattern) warns.
func judgeToolSchema(f *Finding, st probe.Step, page int, t *listedTool, err error, member string) {
	switch {
	case err == nil:
	case errors.Is(err, mcpschema.ErrUncheckable):
		f.WarnTool(toolKey(t), Seqs(st.Response), "%s of tool %s cannot be checked: %v", member, toolLabel(t, page), err)
	default:
		f.FailTool(toolKey(t), Seqs(st.Response), "%s of tool %s: %v", member, toolLabel(t, page), err)
	}
}

func checkToolNames(r *Capture, f *Finding, l *toolListing, _ *mcpschema.Validator) {
	rev := r.Revision()
	if rev < toolNamesSince {
		f.Skip("the tool name rule exists from %s on; the server speaks %s", toolNamesSince, rev)
		return
	}
	if !needsPages(f, l) {
		return
	}
	count := map[string]int{}
	var order []string
	frames := map[string][]int{}
	l.tools(func(st probe.Step, page int, t *listedTool) {
		if !t.named {
			return
		}
		if count[t.name] == 0 {
			order = append(order, t.name)
			if !validToolName(t.name) {
				f.WarnTool(clipName(t.name), Seqs(st.Response), "tool name %s is outside ^[A-Za-z0-9_.-]{1,128}$", quoteName(t.name))
			}
		}
		count[t.name]++
		frames[t.name] = appendUnique(frames[t.name], st.Response)
	})
	for _, name := range order {
		if count[name] > 1 {
			f.WarnTool(clipName(name), frames[name], "tool name %s is listed %d times", quoteName(name), count[name])
		}
	}
	if len(order) == 0 {
		f.Skip("tools/list lists no named tools")
		return
	}
	f.Pass("%d tool names match ^[A-Za-z0-9_.-]{1,128}$ and are unique", len(order))
}

// validToolName is ^[A-Za-z0-9_.-]{1,128}$ without a regexp.
func validToolName(s string) bool {
	if s == "" || len(s) > toolNameMax {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '.' || c == '-') {
			return false
		}
	}
	return true
}

func checkToolDescriptions(_ *Capture, f *Finding, l *toolListing, _ *mcpschema.Validator) {
	if !needsPages(f, l) {
		return
	}
	n := 0
	l.tools(func(st probe.Step, page int, t *listedTool) {
		if !t.object {
			return
		}
		n++
		if !t.described || strings.TrimSpace(t.desc) == "" {
			// Advice, not a warning: Tool.description is optional in every revision's schema
			// ("required": name and inputSchema only) and no sentence asks for one.
			f.AdviseTool(toolKey(t), Seqs(st.Response), "tool %s has no description", toolLabel(t, page))
		}
	})
	if n == 0 {
		f.Skip("tools/list lists no tools")
		return
	}
	f.Pass("all %d tools have a description", n)
}

// fingerprintTools publishes the Fingerprint of the tool surface and the tool count.
func fingerprintTools(_ *Capture, f *Finding, l *toolListing, _ *mcpschema.Validator) {
	if l.failed >= 0 {
		f.Untested("tools/list did not complete (page %d: %s), so the tool surface is unknown", l.failed+1, describeStep(l.steps[l.failed]))
		return
	}
	var digests []toolsurface.ToolDigest
	l.tools(func(_ probe.Step, _ int, t *listedTool) { digests = append(digests, t.digest) })
	fp := toolsurface.FingerprintOf(digests)
	f.Data = fp.Data(len(digests))
	f.Info("%d tools, %s", len(digests), fp)
}

// ToolFingerprint reads the tool fingerprint and count a tools.fingerprint finding
// published, also from a stored run; ok is false for any other finding.
func ToolFingerprint(f Finding) (fp toolsurface.Fingerprint, count int, ok bool) {
	if f.ID != "tools.fingerprint" {
		return fp, 0, false
	}
	fp, count, err := toolsurface.FromData(f.Data)
	return fp, count, err == nil
}

// describeStep says how a request failed: the exact error code, HTTP status or transport
// error.
func describeStep(st probe.Step) string {
	switch {
	case st.Outcome == probe.OutcomeError && st.ErrorCode != nil:
		return fmt.Sprintf("JSON-RPC error %d", *st.ErrorCode)
	case st.Outcome == probe.OutcomeError:
		return "JSON-RPC error with code " + Clip(st.ErrorCodeRaw)
	case st.HTTPStatus != 0 && st.HTTPStatus != 200:
		return fmt.Sprintf("HTTP status %d", st.HTTPStatus)
	case st.Outcome == probe.OutcomeNoAnswer && st.Err != "":
		return "no answer: " + st.Err
	case st.Outcome == probe.OutcomeNoAnswer:
		return "no answer"
	case st.Err != "":
		return st.Err
	}
	return string(st.Outcome)
}

// toolKey is what evidence names a tool by (baselines match on it).
func toolKey(t *listedTool) string {
	if t.named {
		return clipName(t.name)
	}
	return ""
}

// toolLabel names a tool in a message, by name when it has one, by position otherwise.
func toolLabel(t *listedTool, page int) string {
	if t.named {
		return quoteName(t.name)
	}
	return fmt.Sprintf("tools[%d] of page %d", t.index, page)
}

const maxNameShown = 200

// clipName bounds a tool name that evidence names.
func clipName(s string) string { return textclip.Prefix(s, maxNameShown) }

func quoteName(s string) string { return clipQuote(s) }

func clipQuote(s string) string {
	if len(s) <= maxNameShown {
		return strconv.Quote(s)
	}
	return Clip([]byte(s))
}

func appendUnique(seqs []int, seq int) []int {
	if seq < 0 {
		return seqs
	}
	for _, s := range seqs {
		if s == seq {
			return seqs
		}
	}
	return append(seqs, seq)
}
