package checks

import (
	"errors"
	"strings"

	"github.com/mcpwatch/mcpwatch/checks/mcpschema"
	"github.com/mcpwatch/mcpwatch/jsondoc"
	"github.com/mcpwatch/mcpwatch/probe"
)

const (
	specResources = "https://modelcontextprotocol.io/specification/2025-11-25/server/resources"
	specPrompts   = "https://modelcontextprotocol.io/specification/2025-11-25/server/prompts"
)

// listKind is one of the lists besides tools that the main session reads page by page.
type listKind struct {
	step       string // probe step name of its pages
	method     string
	capability string // the capability that declares it
	definition string // the result's schema definition
	member     string // the array of items in the result
	key        string // the member that identifies an item
	item       string // what an item is called in messages
	// mustServe: a server that declares the capability must answer the method. The spec ties
	// templates to the resources capability without saying that a server with none must
	// serve them, so lifecycle.capabilities warns about that one and this check skips.
	mustServe bool
}

// listChecks judge resources/list, resources/templates/list and prompts/list of the main
// connection when the server declares them: each page against the result schema of the
// negotiated revision, the pages together by the pagination rules tools/list follows.
func listChecks(schemas *mcpschema.Validator) []Check {
	resources := listKind{step: probe.StepResourcesList, method: "resources/list", capability: "resources",
		definition: "ListResourcesResult", member: "resources", key: "uri", item: "resource", mustServe: true}
	templates := listKind{step: probe.StepTemplatesList, method: "resources/templates/list", capability: "resources",
		definition: "ListResourceTemplatesResult", member: "resourceTemplates", key: "uriTemplate", item: "resource template"}
	prompts := listKind{step: probe.StepPromptsList, method: "prompts/list", capability: "prompts",
		definition: "ListPromptsResult", member: "prompts", key: "name", item: "prompt", mustServe: true}
	judge := func(k listKind) func(r *Capture, f *Finding) {
		return func(r *Capture, f *Finding) { checkList(r, f, k, schemas) }
	}
	return []Check{
		{ID: "resources.list", Area: "resources", Rule: "D", Spec: specResources + "#listing-resources",
			Title:    "resources/list returns a ListResourcesResult of the negotiated revision, paginated as tools/list",
			Evaluate: judge(resources)},
		{ID: "resources.templates-list", Area: "resources", Rule: "D", Spec: specResources + "#resource-templates",
			Title:    "resources/templates/list returns a ListResourceTemplatesResult of the negotiated revision, paginated as tools/list",
			Evaluate: judge(templates)},
		{ID: "prompts.list", Area: "prompts", Rule: "D", Spec: specPrompts + "#listing-prompts",
			Title:    "prompts/list returns a ListPromptsResult of the negotiated revision, paginated as tools/list",
			Evaluate: judge(prompts)},
	}
}

// listPage is one answered page of a list.
type listPage struct {
	verdict error // against the result schema; nil when it matches
	cursor  pageCursor
	keys    []string
	items   int
}

// itemListing is the pages of one list of the main connection.
type itemListing struct {
	steps []probe.Step
	pages []*listPage // nil where the step failed
}

var _ pagedList = (*itemListing)(nil)

func (l *itemListing) pageCount() int { return len(l.pages) }

func (l *itemListing) pageAt(i int) (probe.Step, bool, pageCursor) {
	if l.pages[i] == nil {
		return l.steps[i], false, pageCursor{}
	}
	return l.steps[i], true, l.pages[i].cursor
}

func (l *itemListing) keys(i int, fn func(string)) {
	for _, k := range l.pages[i].keys {
		fn(k)
	}
}

func checkList(r *Capture, f *Finding, k listKind, schemas *mcpschema.Validator) {
	switch _, handshake := r.Handshake(); {
	case handshake == probe.HandshakeNone:
		f.Untested("no initialize or discover result, so no declared capabilities to judge %s by", k.method)
		return
	case !r.Declares(k.capability):
		f.Skip("server declares no %s capability", k.capability)
		return
	}
	rev := r.Revision()
	l := &itemListing{}
	for _, st := range r.Steps {
		if st.Name != k.step || st.Conn != probe.ConnMain {
			continue
		}
		if st.Outcome == probe.OutcomeOK && interimResult(st.Result) {
			f.Skip("%s answered resultType input_required, which results.input-required judges", k.method)
			return
		}
		l.steps = append(l.steps, st)
		var p *listPage
		if st.Outcome == probe.OutcomeOK {
			p = decodeListPage(rev, st, k, schemas)
		}
		l.pages = append(l.pages, p)
	}
	if len(l.steps) == 0 {
		f.notJudged(stoppedHere(r), "%s was never sent: %s", k.method, probeStopped(r))
		return
	}
	if first := l.steps[0]; l.pages[0] == nil {
		if !k.mustServe {
			f.Skip("%s failed (%s); lifecycle.capabilities judges whether a server that declares %s must serve it", k.method, describeStep(first), k.capability)
			return
		}
		f.Fail(Seqs(first.Request, first.Response), "%s failed although the server declares %s: %s", k.method, k.capability, describeStep(first))
		return
	}
	items, pages := 0, 0
	for i, p := range l.pages {
		if p == nil {
			continue
		}
		pages++
		items += p.items
		if errors.Is(p.verdict, mcpschema.ErrUnknownRevision) || errors.Is(p.verdict, mcpschema.ErrUnknownDefinition) {
			f.Skip("no %s schema for revision %s", k.definition, rev)
			return
		}
		if p.verdict != nil {
			f.Fail(Seqs(l.steps[i].Response), "page %d does not match %s of %s: %v", i+1, k.definition, rev, p.verdict)
		}
	}
	judgePages(f, l, pagedItems{item: k.item})
	f.Pass("%d %s on %d page(s) match %s of %s; cursors are strings, none repeats, none is listed twice", items, plural(k.item, items), pages, k.definition, rev)
}

// decodeListPage judges one answered page against its schema and reads its cursor and the
// keys of its items.
func decodeListPage(rev string, st probe.Step, k listKind, schemas *mcpschema.Validator) *listPage {
	p := &listPage{}
	doc, err := jsondoc.Parse(st.Result)
	if err != nil {
		p.verdict = schemas.Validate(rev, k.definition, st.Result)
		return p
	}
	root := doc.Root()
	p.verdict = schemas.ValidateDoc(rev, k.definition, root)
	if root.Kind() != jsondoc.Object {
		return p
	}
	if nc := root.Get("nextCursor"); nc.Kind() == jsondoc.String {
		p.cursor = pageCursor{kind: cursorString, next: strings.Clone(nc.Str())}
	} else if nc.Exists() {
		p.cursor = pageCursor{kind: cursorOther, json: describeValue(nc.Any())}
	}
	entries := root.Get(k.member)
	if entries.Kind() != jsondoc.Array {
		return p
	}
	for _, e := range entries.Elements() {
		p.items++
		if key := e.Get(k.key); key.Kind() == jsondoc.String {
			p.keys = append(p.keys, strings.Clone(key.Str()))
		}
	}
	return p
}

// plural is an item's name for n of them ("resources", "resource templates", "prompts").
func plural(item string, n int) string {
	if n == 1 {
		return item
	}
	return item + "s"
}
