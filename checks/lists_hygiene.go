package checks

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/mcpwatch/mcpwatch/internal/httptoken"
	"github.com/mcpwatch/mcpwatch/jsondoc"
	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/protocol"
)

// iconsSince is the first revision with icons (basic, "icons").
const iconsSince = protocol.Revision20251125

// hygieneList is one list whose items lists.item-hygiene reads.
type hygieneList struct {
	step, member, capability, item string
	// key identifies an item, for the duplicate rule ("" when the spec names none unique).
	key string
	// names: an empty name is judged here (tool names are tools.name-format's from 2025-11-25).
	names bool
	// resourceFields: size, mimeType and annotations.lastModified are read.
	resourceFields bool
}

func hygieneLists(rev string) []hygieneList {
	return []hygieneList{
		// Tool names (empty, repeated) are tools.name-format's rule from 2025-11-25 on, which
		// says "Tool names SHOULD be unique within a server"; before, no sentence asks for
		// unique tool names. Only their icons are read here.
		{step: probe.StepToolsList, member: "tools", capability: "tools", item: "tool", names: rev < toolNamesSince},
		{step: probe.StepResourcesList, member: "resources", capability: "resources", item: "resource", key: "uri", names: true, resourceFields: true},
		{step: probe.StepTemplatesList, member: "resourceTemplates", capability: "resources", item: "resource template", names: true, resourceFields: true},
		{step: probe.StepPromptsList, member: "prompts", capability: "prompts", item: "prompt", key: "name", names: true},
	}
}

func hygieneChecks() []Check {
	return []Check{
		{ID: "lists.item-hygiene", Area: "lists", Rule: "D", Spec: specResources + "#resource",
			Title:    "listed items are well formed beyond the schema: unique resource URIs and prompt names, non-empty names, no negative size, MIME types, ISO 8601 lastModified, icon mimeType and sizes (advice)",
			Evaluate: checkItemHygiene},
	}
}

// checkItemHygiene reads every item of the main connection's lists. Every rule it applies is
// stated without a normative keyword, so each is advice: resources/uri "Unique identifier
// for the resource" and prompts/name "Unique identifier for the prompt" (server/resources
// and server/prompts, data types); size "Optional size in bytes"; annotations.lastModified
// "An ISO 8601 formatted timestamp" (server/resources, "Annotations"); icons (basic,
// "icons", 2025-11-25 and later): mimeType a MIME type, sizes "WxH" or "any" (schema Icon).
// A URI or name repeated on another page is the list check's pagination fault, not this one.
func checkItemHygiene(r *Capture, f *Finding) {
	if _, handshake := r.Handshake(); handshake == probe.HandshakeNone {
		f.Untested("no initialize or discover result, so no declared capabilities to judge the lists by")
		return
	}
	rev := r.Revision()
	items, lists := 0, 0
	for _, k := range hygieneLists(rev) {
		if !r.Declares(k.capability) {
			continue
		}
		l := r.surfaceList(k.step, probe.ConnMain)
		if !l.sent() {
			continue
		}
		lists++
		seen := map[string]int{} // key -> page it was first seen on
		index := map[int]int{}
		l.items(k.member, func(st probe.Step, page int, item jsondoc.Value) {
			i := index[page]
			index[page]++
			if item.Kind() != jsondoc.Object {
				return
			}
			items++
			label, toolKey := hygieneLabel(k, item, page, i)
			frames := Seqs(st.Response)
			advise := func(format string, args ...any) {
				msg := k.item + " " + label + " " + fmt.Sprintf(format, args...)
				if k.member == "tools" {
					f.AdviseTool(toolKey, frames, "%s", msg)
					return
				}
				f.Advise(frames, "%s", msg)
			}
			if k.key != "" {
				if v := item.Get(k.key); v.Kind() == jsondoc.String {
					if first, dup := seen[v.Str()]; dup && first == page {
						advise("repeats the %s of an earlier %s on page %d (it is the %s's unique identifier)", k.key, k.item, page, k.item)
					} else if !dup {
						seen[strings.Clone(v.Str())] = page
					}
				}
			}
			if n := item.Get("name"); k.names && n.Kind() == jsondoc.String && strings.TrimSpace(n.Str()) == "" {
				advise("has an empty name")
			}
			if k.resourceFields {
				hygieneResourceFields(item, advise)
			}
			if rev >= iconsSince {
				hygieneIcons(item.Get("icons"), advise)
			}
		})
	}
	if rev >= iconsSince {
		if info := serverInfo(r); info.Kind() == jsondoc.Object {
			hygieneIcons(info.Get("icons"), func(format string, args ...any) {
				f.Advise(handshakeFrames(r), "serverInfo "+format, args...)
			})
		}
	}
	if lists == 0 {
		f.Skip("the server lists nothing the probe read (no tools, resources or prompts declared and listed)")
		return
	}
	f.Pass("%d listed item(s) on %d list(s): identifiers unique, names non-empty, sizes, MIME types, timestamps and icons well formed", items, lists)
}

// hygieneLabel names an item in a message: by name (or its key), by position otherwise.
func hygieneLabel(k hygieneList, item jsondoc.Value, page, i int) (label, tool string) {
	for _, m := range []string{k.key, "name", "uriTemplate"} {
		if m == "" {
			continue
		}
		if v := item.Get(m); v.Kind() == jsondoc.String && v.Str() != "" {
			if m == "name" && k.member == "tools" {
				tool = clipName(v.Str())
			}
			return clipQuote(v.Str()), tool
		}
	}
	return fmt.Sprintf("%s[%d] of page %d", k.member, i, page), ""
}

func hygieneResourceFields(item jsondoc.Value, advise func(string, ...any)) {
	if size := item.Get("size"); size.Kind() == jsondoc.Number && jsondoc.Sign(size.Text()) < 0 {
		advise("has a negative size %s", size.Text())
	}
	if mt := item.Get("mimeType"); mt.Kind() == jsondoc.String && !validMediaType(mt.Str()) {
		advise("has mimeType %s, which is not a MIME type (type/subtype)", clipQuote(mt.Str()))
	}
	if lm := item.Get("annotations").Get("lastModified"); lm.Kind() == jsondoc.String && !iso8601.MatchString(lm.Str()) {
		advise("has annotations.lastModified %s, which is not an ISO 8601 timestamp", clipQuote(lm.Str()))
	}
}

func hygieneIcons(icons jsondoc.Value, advise func(string, ...any)) {
	if icons.Kind() != jsondoc.Array {
		return
	}
	for i, icon := range icons.Elements() {
		if mt := icon.Get("mimeType"); mt.Kind() == jsondoc.String && !validMediaType(mt.Str()) {
			advise("has icons[%d].mimeType %s, which is not a MIME type", i, clipQuote(mt.Str()))
		}
		sizes := icon.Get("sizes")
		if sizes.Kind() != jsondoc.Array {
			continue
		}
		for j, s := range sizes.Elements() {
			if s.Kind() != jsondoc.String || !iconSize(s.Str()) {
				advise("has icons[%d].sizes[%d] %s, neither WxH nor \"any\"", i, j, describeValue(s.Any()))
			}
		}
	}
}

// validMediaType is type "/" subtype, each an RFC 9110 token, with optional parameters.
func validMediaType(s string) bool {
	base, _, _ := strings.Cut(s, ";")
	typ, sub, ok := strings.Cut(strings.TrimSpace(base), "/")
	return ok && httptoken.Valid(typ) && httptoken.Valid(sub)
}

// iconSize is "any" or WxH with positive decimal W and H (schema Icon.sizes).
func iconSize(s string) bool {
	if s == "any" {
		return true
	}
	w, h, ok := strings.Cut(s, "x")
	if !ok {
		return false
	}
	for _, n := range []string{w, h} {
		if v, err := strconv.Atoi(n); err != nil || v <= 0 || n[0] == '+' {
			return false
		}
	}
	return true
}

// iso8601 is the calendar date, optionally with a time and an offset, in the extended
// format RFC 3339 profiles (the spec's example: "2025-01-12T15:00:58Z").
var iso8601 = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}(:?\d{2})?)?)?$`)

// serverInfo is the Implementation the server described itself with: serverInfo of the
// initialize result, or the serverInfo _meta key of a DiscoverResult (the zero Value when
// there is none).
func serverInfo(r *Capture) jsondoc.Value {
	raw, kind := r.Handshake()
	if kind == probe.HandshakeNone {
		return jsondoc.Value{}
	}
	doc, err := jsondoc.Parse(raw)
	if err != nil {
		return jsondoc.Value{}
	}
	if kind == probe.HandshakeDiscover {
		return doc.Root().Get("_meta").Get(protocol.MetaServerInfo)
	}
	return doc.Root().Get("serverInfo")
}
