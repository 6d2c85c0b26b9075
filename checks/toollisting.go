package checks

import (
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"weak"

	"github.com/mcpwatch/mcpwatch/checks/mcpschema"
	"github.com/mcpwatch/mcpwatch/internal/lru"
	"github.com/mcpwatch/mcpwatch/internal/textclip"
	"github.com/mcpwatch/mcpwatch/internal/toolsurface"
	"github.com/mcpwatch/mcpwatch/jsondoc"
	"github.com/mcpwatch/mcpwatch/probe"
)

// toolListing is what the main connection's tools/list pages said, decoded once for all the
// tools checks.
type toolListing struct {
	// skip says why the tools checks do not apply to the run ("" when they do); untested,
	// that they apply but the run left nothing to judge them by.
	skip     string
	untested bool
	steps    []probe.Step // the tools/list steps, in order
	pages    []*toolPage  // pages[i] is the content of steps[i] (nil when the step failed)
	// failed is the index of the first step that did not succeed (-1 when none did not).
	failed int
}

// cursorKind is what a page said about the next page.
type cursorKind uint8

const (
	cursorAbsent cursorKind = iota
	cursorString
	cursorOther // present but not a string (null included: the schemas type it as string)
)

// toolPage is the content of one successful tools/list answer. It depends only on the
// revision and the result's bytes, so it is shared by every run that saw the same bytes.
type toolPage struct {
	verdict    error // against ListToolsResult of the revision; nil when it matches
	cursor     cursorKind
	nextCursor string // when cursor is cursorString
	cursorJSON string // when cursor is cursorOther: what it is, for a message
	tools      []listedTool
}

// listedTool is one entry of a page's tools array.
type listedTool struct {
	index     int  // position in the page's tools array
	object    bool // the entry is a JSON object (the fields below are empty otherwise)
	named     bool // name is a string
	name      string
	described bool // description is a string
	desc      string
	// input and output are the schemas as canonical JSON ("" when absent). Strings, so that
	// the schema verdict cache holds them without a copy.
	input, output string
	// inputVerdict and outputVerdict are ToolSchema's verdicts on them, judged while the
	// page was parsed (when inputJudged and outputJudged say so; see judgeSchemas).
	inputVerdict, outputVerdict error
	inputJudged, outputJudged   bool
	digest                      toolsurface.ToolDigest
}

// tools yields every listed tool with the step of the page it came from.
func (l *toolListing) tools(fn func(st probe.Step, page int, t *listedTool)) {
	for i, p := range l.pages {
		if p == nil {
			continue
		}
		for j := range p.tools {
			fn(l.steps[i], i+1, &p.tools[j])
		}
	}
}

// okPages counts the pages that were answered with a result.
func (l *toolListing) okPages() int {
	n := 0
	for _, p := range l.pages {
		if p != nil {
			n++
		}
	}
	return n
}

// toolLister builds listings, keeping the decoded pages of recent runs: a monitor probes the
// same servers over and over and their tool lists rarely change, so most pages are found.
type toolLister struct {
	schemas *mcpschema.Validator
	cache   *lru.Cache[string, *toolPage] // by revision and the page's exact bytes

	// The registry runs the tools checks one after another on one Capture; the listing of the
	// last run is kept so that only the first check builds it. The pointer is weak so that a
	// finished run's transcript is never kept alive by this.
	mu       sync.Mutex
	lastRun  weak.Pointer[Capture]
	lastList *toolListing
}

func newToolLister(schemas *mcpschema.Validator) *toolLister {
	return &toolLister{schemas: schemas, cache: lru.NewText[string, *toolPage](lru.Limits{
		Entries: pageCacheEntries, Bytes: pageCacheBytes, MaxKey: pageCacheMaxKey})}
}

func (l *toolLister) listing(r *Capture) *toolListing {
	key := weak.Make(r)
	l.mu.Lock()
	if l.lastRun == key && l.lastList != nil {
		defer l.mu.Unlock()
		return l.lastList
	}
	l.mu.Unlock()
	out := l.build(r)
	l.mu.Lock()
	l.lastRun, l.lastList = key, out
	l.mu.Unlock()
	return out
}

func (l *toolLister) build(r *Capture) *toolListing {
	out := &toolListing{failed: -1}
	switch _, handshake := r.Handshake(); {
	case handshake == probe.HandshakeNone:
		out.skip, out.untested = "no initialize result (nor a server/discover result), so no declared capabilities to judge tools by", true
		return out
	case !r.Declares("tools"):
		out.skip = "server declares no tools capability"
		return out
	}
	var judged schemaBudget
	for _, st := range r.Steps {
		if st.Name != probe.StepToolsList || st.Conn != probe.ConnMain {
			continue
		}
		if st.Outcome == probe.OutcomeOK && interimResult(st.Result) {
			out.skip = "tools/list answered resultType input_required, which results.input-required judges"
			return out
		}
		var page *toolPage
		if st.Outcome == probe.OutcomeOK {
			page = l.page(r.Revision(), st.Result, &judged)
		} else if out.failed < 0 {
			out.failed = len(out.steps)
		}
		// The page holds what the result said; the kept listing need not hold its bytes.
		st.Result = nil
		out.steps = append(out.steps, st)
		out.pages = append(out.pages, page)
	}
	if len(out.steps) == 0 {
		out.skip, out.untested = "tools/list was never sent", true
		if r.Err != "" {
			out.skip += ": " + r.Err
		}
	}
	return out
}

func (l *toolLister) page(rev string, raw []byte, judged *schemaBudget) *toolPage {
	if p, ok := l.cache.GetBytes(rev, raw); ok {
		return p
	}
	text := string(raw) // one copy, for the parsed page and the cache key both
	p := l.decodePage(rev, text, judged)
	l.cache.PutText(rev, text, p)
	return p
}

// decodePage reads a tools/list result, judging its tool schemas while judged allows.
func (l *toolLister) decodePage(rev, text string, judged *schemaBudget) *toolPage {
	p := &toolPage{}
	doc, err := jsondoc.ParseString(text)
	if err != nil {
		// Not one JSON value: let the schema package say why in its words.
		_, p.verdict = mcpschema.Decode([]byte(text))
		return p
	}
	root := doc.Root()
	// The page is parsed once: the schema judges the same tree the checks read.
	p.verdict = l.schemas.ValidateDoc(rev, "ListToolsResult", root)
	if root.Kind() != jsondoc.Object {
		return p
	}
	if nc := root.Get("nextCursor"); nc.Kind() == jsondoc.String {
		p.cursor, p.nextCursor = cursorString, strings.Clone(nc.Str())
	} else if nc.Exists() {
		p.cursor, p.cursorJSON = cursorOther, describeValue(nc.Any())
	}
	entries := root.Get("tools")
	if entries.Kind() != jsondoc.Array {
		return p
	}
	p.tools = make([]listedTool, entries.Len())
	var c toolsurface.Encoder
	var buf []byte
	for i, e := range entries.Elements() {
		t := &p.tools[i]
		t.index = i
		if e.Kind() != jsondoc.Object {
			t.digest, buf = c.DigestTool(buf, e, "", "")
			continue
		}
		t.object = true
		// Clones: the page outlives the parsed document and should not keep all of it.
		name, desc := e.Get("name"), e.Get("description")
		if t.named = name.Kind() == jsondoc.String; t.named {
			t.name = strings.Clone(name.Str())
		}
		if t.described = desc.Kind() == jsondoc.String; t.described {
			t.desc = strings.Clone(desc.Str())
		}
		input, output := e.Get("inputSchema"), e.Get("outputSchema")
		if input.Exists() {
			buf = c.Append(buf[:0], input)
			t.input = string(buf)
		}
		if output.Exists() {
			buf = c.Append(buf[:0], output)
			t.output = string(buf)
		}
		t.digest, buf = c.DigestTool(buf, e, t.input, t.output)
		l.judgeSchemas(rev, t, input, output, judged)
	}
	return p
}

// schemaBudget counts the schemas judged so far while building one listing, inputs and
// outputs apart.
type schemaBudget struct{ inputs, outputs int }

// judgeSchemas judges a tool's schemas while the page's parsed tree is at hand, so that they
// are not parsed again, as many per listing as the checks judge per evaluation
// (maxSchemasJudged): a hostile server's thousand pages cost no more. A tool whose schema
// was not judged here (its page was decoded for an earlier listing whose budget had run
// out) is judged by the check that reaches it. Verdicts depend only on the revision and
// the schema, as the page does, so a cached page's verdicts hold for every run.
func (l *toolLister) judgeSchemas(rev string, t *listedTool, input, output jsondoc.Value, judged *schemaBudget) {
	if judged.inputs < maxSchemasJudged && t.input != "" {
		judged.inputs++
		t.inputVerdict, t.inputJudged = l.schemas.ToolSchemaValue(rev, input, t.input, false), true
	}
	if judged.outputs < maxSchemasJudged && t.output != "" && rev >= outputSchemaSince {
		judged.outputs++
		t.outputVerdict, t.outputJudged = l.schemas.ToolSchemaValue(rev, output, t.output, true), true
	}
}

// inputSchemaVerdict is ToolSchema's verdict on the tool's inputSchema.
func (t *listedTool) inputSchemaVerdict(rev string, schemas *mcpschema.Validator) error {
	if t.inputJudged {
		return t.inputVerdict
	}
	return schemas.ToolSchema(rev, []byte(t.input), false)
}

// outputSchemaVerdict is ToolSchema's verdict on the tool's outputSchema.
func (t *listedTool) outputSchemaVerdict(rev string, schemas *mcpschema.Validator) error {
	if t.outputJudged {
		return t.outputVerdict
	}
	return schemas.ToolSchema(rev, []byte(t.output), true)
}

// describeValue names a decoded JSON value for a message: its kind and its text, cut short.
func describeValue(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return "an unprintable value"
	}
	kind := "an object"
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		kind = "a boolean"
	case json.Number:
		kind = "a number"
	case []any:
		kind = "an array"
	}
	return kind + " " + textclip.Bytes(string(b), 200)
}

// unknownRevision reports whether a verdict only says the revision has no schema.
func unknownRevision(err error) bool { return errors.Is(err, mcpschema.ErrUnknownRevision) }

// Bounds of the page cache: a page's content never goes stale; only memory matters.
const (
	pageCacheEntries = 512
	pageCacheBytes   = 8 << 20
	// pageCacheMaxKey: larger pages are decoded every time rather than held.
	pageCacheMaxKey = 1 << 20
)
