package checks

import (
	"fmt"
	"strings"

	"github.com/mcpwatch/mcpwatch/internal/lru"
	"github.com/mcpwatch/mcpwatch/internal/poison"
	"github.com/mcpwatch/mcpwatch/jsondoc"
	"github.com/mcpwatch/mcpwatch/probe"
)

// What security.tool-poisoning reads. A client gives all of it to the model: the server's
// instructions, and the descriptions (and titles) of every tool, argument, prompt, prompt
// argument, resource and resource template the lists name.

// poisonSource is one list whose pages the check reads.
type poisonSource struct {
	step       string // probe step of its pages
	capability string // the capability that declares it
	member     string // the array of items in the result
	item       string // what an item is called in messages
	key        string // the member that names an item
}

var poisonSources = []poisonSource{
	{probe.StepToolsList, "tools", "tools", "tool", "name"},
	{probe.StepPromptsList, "prompts", "prompts", "prompt", "name"},
	{probe.StepResourcesList, "resources", "resources", "resource", "uri"},
	{probe.StepTemplatesList, "resources", "resourceTemplates", "resource template", "uriTemplate"},
}

// Bounds of one page's reading: a hostile server may list a million tools with deep schemas.
const (
	poisonMaxItems   = 2000 // items read per page
	poisonMaxStrings = 200  // description and title strings read per schema
	poisonMaxDepth   = 32   // schema nesting followed
)

// poisonHit is one match in one field of one listed item.
type poisonHit struct {
	item, name, field string
	match             poison.Match
}

// poisonPage is what one page said: how many texts were read and what matched.
type poisonPage struct {
	items, texts int
	hits         []poisonHit
}

// poisonReader reads pages, keeping the verdicts of recent pages: a monitor probes the same
// servers over and over and their lists rarely change.
type poisonReader struct {
	cache *lru.Cache[string, *poisonPage] // by list and the page's exact bytes
	// texts holds the matches of recent texts: a page whose bytes changed (a new version of
	// one tool, a cursor) still repeats most of its descriptions.
	texts *lru.Cache[struct{}, []poison.Match]
}

// Bounds of the text cache.
const (
	poisonTextEntries = 8192
	poisonTextBytes   = 4 << 20
	poisonTextMaxKey  = 64 << 10
)

func newPoisonReader() *poisonReader {
	return &poisonReader{
		cache: lru.NewText[string, *poisonPage](lru.Limits{
			Entries: pageCacheEntries, Bytes: pageCacheBytes, MaxKey: pageCacheMaxKey}),
		texts: lru.NewText[struct{}, []poison.Match](lru.Limits{
			Entries: poisonTextEntries, Bytes: poisonTextBytes, MaxKey: poisonTextMaxKey}),
	}
}

// scan is poison.Scan through the text cache.
func (p *poisonReader) scan(text string) []poison.Match {
	if ms, ok := p.texts.GetText(struct{}{}, text); ok {
		return ms
	}
	ms := poison.Scan(text)
	p.texts.PutText(struct{}{}, strings.Clone(text), ms)
	return ms
}

func (p *poisonReader) page(src poisonSource, raw []byte) *poisonPage {
	if pg, ok := p.cache.GetBytes(src.step, raw); ok {
		return pg
	}
	text := string(raw)
	pg := p.readPage(src, text)
	p.cache.PutText(src.step, text, pg)
	return pg
}

// handshake reads the instructions and serverInfo texts of an initialize or server/discover
// result (items counts the instructions: 1 when there are some).
func (p *poisonReader) handshake(raw []byte) *poisonPage {
	const key = "handshake"
	if pg, ok := p.cache.GetBytes(key, raw); ok {
		return pg
	}
	text := string(raw)
	doc, err := jsondoc.ParseString(text)
	if err != nil {
		return nil
	}
	pg := &poisonPage{}
	root, info := doc.Root(), doc.Root().Get("serverInfo")
	for _, fd := range []namedText{
		{"instructions", root.Get("instructions")},
		{"serverInfo.description", info.Get("description")},
		{"serverInfo.title", info.Get("title")},
	} {
		if fd.v.Kind() != jsondoc.String {
			continue
		}
		pg.texts++
		if fd.name == "instructions" {
			pg.items++
		}
		for _, m := range p.scan(fd.v.Str()) {
			pg.hits = append(pg.hits, poisonHit{field: fd.name, match: m})
		}
	}
	p.cache.PutText(key, text, pg)
	return pg
}

func (p *poisonReader) readPage(src poisonSource, text string) *poisonPage {
	pg := &poisonPage{}
	doc, err := jsondoc.ParseString(text)
	if err != nil {
		return pg
	}
	items := doc.Root().Get(src.member)
	if items.Kind() != jsondoc.Array {
		return pg
	}
	for i, it := range items.Elements() {
		if i >= poisonMaxItems {
			break
		}
		if it.Kind() != jsondoc.Object {
			continue
		}
		pg.items++
		name := fmt.Sprintf("#%d", i+1)
		if k := it.Get(src.key); k.Kind() == jsondoc.String {
			name = k.Str()
		}
		scan := func(field string, v jsondoc.Value) {
			if v.Kind() != jsondoc.String {
				return
			}
			pg.texts++
			for _, m := range p.scan(v.Str()) {
				pg.hits = append(pg.hits, poisonHit{item: src.item, name: name, field: field, match: m})
			}
		}
		scan("description", it.Get("description"))
		scan("title", it.Get("title"))
		if a := it.Get("annotations"); a.Kind() == jsondoc.Object {
			scan("annotations.title", a.Get("title"))
		}
		switch src.item {
		case "tool":
			for _, member := range []string{"inputSchema", "outputSchema"} {
				budget := poisonMaxStrings
				walkSchemaTexts(it.Get(member), member, 0, &budget, scan)
			}
		case "prompt":
			if args := it.Get("arguments"); args.Kind() == jsondoc.Array {
				for j, a := range args.Elements() {
					if a.Kind() != jsondoc.Object {
						continue
					}
					label := fmt.Sprintf("arguments[%d]", j)
					if n := a.Get("name"); n.Kind() == jsondoc.String {
						label = "argument " + clipQuote(n.Str())
					}
					scan(label+" description", a.Get("description"))
					scan(label+" title", a.Get("title"))
				}
			}
		}
	}
	return pg
}

// walkSchemaTexts scans the description and title strings of a JSON Schema, at any depth
// (properties, items, definitions), naming each by its path ("inputSchema.properties.path").
func walkSchemaTexts(v jsondoc.Value, path string, depth int, budget *int, scan func(string, jsondoc.Value)) {
	if depth > poisonMaxDepth || *budget <= 0 {
		return
	}
	switch v.Kind() {
	case jsondoc.Object:
		for name, child := range v.Members() {
			if *budget <= 0 {
				return
			}
			if (name == "description" || name == "title") && child.Kind() == jsondoc.String {
				*budget--
				scan(path+"."+name, child)
				continue
			}
			walkSchemaTexts(child, path+"."+name, depth+1, budget, scan)
		}
	case jsondoc.Array:
		for i, child := range v.Elements() {
			if *budget <= 0 {
				return
			}
			walkSchemaTexts(child, fmt.Sprintf("%s[%d]", path, i), depth+1, budget, scan)
		}
	}
}

// check warns of every field that matches a tool-poisoning pattern.
func (p *poisonReader) check(r *Capture, f *Finding) {
	handshake, kind := r.Handshake()
	if kind == probe.HandshakeNone {
		f.Untested("no initialize or discover result, so nothing the server gives the model to read")
		return
	}
	texts, warned := 0, false
	var read []string
	var frames []int // the handshake's answer
	if st, ok := handshakeStep(r); ok {
		frames = Seqs(st.Response)
	}
	if hs := p.handshake(handshake); hs != nil {
		texts += hs.texts
		if hs.items > 0 {
			read = append(read, "the instructions")
		}
		for _, h := range hs.hits {
			warned = true
			f.Warn(frames, "the server's %s: %s (%s): %s", h.field, h.match.Family, h.match.Pattern, h.match.Excerpt)
		}
	}
	unread := ""
	for _, src := range poisonSources {
		items, pages := 0, 0
		for _, st := range stepsOn(r, probe.ConnMain, src.step) {
			if st.Outcome != probe.OutcomeOK {
				if pages == 0 && unread == "" && r.Declares(src.capability) {
					unread = fmt.Sprintf("%s failed (%s)", st.Name, describeStep(st))
				}
				continue
			}
			pages++
			pg := p.page(src, st.Result)
			items += pg.items
			texts += pg.texts
			for _, h := range pg.hits {
				warned = true
				msg := fmt.Sprintf("%s %s, %s: %s (%s): %s", h.item, quoteName(h.name), h.field, h.match.Family, h.match.Pattern, h.match.Excerpt)
				if h.item == "tool" {
					f.WarnTool(clipName(h.name), Seqs(st.Response), "%s", msg)
				} else {
					f.Warn(Seqs(st.Response), "%s", msg)
				}
			}
		}
		if items > 0 {
			read = append(read, fmt.Sprintf("%d %s", items, plural(src.item, items)))
		}
	}
	if warned {
		return
	}
	if texts == 0 {
		if unread != "" {
			f.Untested("nothing was read: %s", unread)
			return
		}
		f.Skip("the server gives no instructions and lists no tools, prompts or resources with descriptions")
		return
	}
	f.Pass("%d %s read (%s) match no tool-poisoning pattern", texts, plural("text", texts), strings.Join(read, ", "))
}

// namedText is a field of the handshake result.
type namedText struct {
	name string
	v    jsondoc.Value
}
