package checks

import (
	"fmt"
	"strings"

	"github.com/mcpwatch/mcpwatch/jsondoc"
	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/protocol"
)

// Revisions in which the metadata quality.metadata asks for exists.
const (
	annotationsSince  = protocol.Revision20250326 // ToolAnnotations; InitializeResult.instructions
	titlesSince       = protocol.Revision20250618 // BaseMetadata.title
	maxMissingListed  = 5                         // names listed per kind of gap
	qualityCheckTitle = "tools have titles, annotations and argument descriptions; resources, prompts and their arguments have descriptions; the server has a title and instructions (advice)"
)

func qualityChecks() []Check {
	return []Check{
		{ID: "quality.metadata", Area: "quality", Spec: specTools + "#tool", Title: qualityCheckTitle,
			Evaluate: checkQualityMetadata},
	}
}

// metadataGap is one kind of missing metadata and the items that lack it.
type metadataGap struct {
	what  string // "tools without a title"
	names []string
	count int
}

func (g *metadataGap) add(name string) {
	g.count++
	if len(g.names) < maxMissingListed {
		g.names = append(g.names, name)
	}
}

func (g *metadataGap) String() string {
	s := fmt.Sprintf("%d %s (%s", g.count, g.what, strings.Join(g.names, ", "))
	if g.count > len(g.names) {
		s += ", …"
	}
	return s + ")"
}

// checkQualityMetadata reports, in one advice, the metadata a client shows users and models
// that the server leaves out. Every field it asks for is optional in every revision's schema
// and no sentence requires one, so it is advice only. A tool without a description is
// tools.description's, not this check's.
func checkQualityMetadata(r *Capture, f *Finding) {
	raw, kind := r.Handshake()
	if kind == probe.HandshakeNone {
		f.Untested("no initialize or discover result, so no server metadata to judge")
		return
	}
	rev := r.Revision()
	var gaps []*metadataGap
	gap := func(what string) *metadataGap {
		g := &metadataGap{what: what}
		gaps = append(gaps, g)
		return g
	}
	frames := handshakeFrames(r)
	if r.Declares("tools") {
		l := r.surfaceList(probe.StepToolsList, probe.ConnMain)
		frames = append(frames, l.responses()...)
		noTitle, noAnnotations, noArgDesc := gap("tools without a title"), gap("tools without annotations"), gap("tool arguments without a description")
		l.items("tools", func(_ probe.Step, _ int, t jsondoc.Value) {
			name := itemName(t, "name")
			if rev >= annotationsSince && !nonEmpty(t.Get("title")) && !nonEmpty(t.Get("annotations").Get("title")) {
				noTitle.add(name)
			}
			if rev >= annotationsSince && t.Get("annotations").Kind() != jsondoc.Object {
				noAnnotations.add(name)
			}
			for arg, schema := range t.Get("inputSchema").Get("properties").Members() {
				if !nonEmpty(schema.Get("description")) {
					noArgDesc.add(name + "." + arg)
				}
			}
		})
	}
	if r.Declares("resources") {
		for _, k := range []struct{ step, member, what string }{
			{probe.StepResourcesList, "resources", "resources without a description"},
			{probe.StepTemplatesList, "resourceTemplates", "resource templates without a description"},
		} {
			l := r.surfaceList(k.step, probe.ConnMain)
			frames = append(frames, l.responses()...)
			g := gap(k.what)
			l.items(k.member, func(_ probe.Step, _ int, item jsondoc.Value) {
				if !nonEmpty(item.Get("description")) {
					g.add(itemName(item, "name"))
				}
			})
		}
	}
	if r.Declares("prompts") {
		l := r.surfaceList(probe.StepPromptsList, probe.ConnMain)
		frames = append(frames, l.responses()...)
		noDesc, noArgDesc := gap("prompts without a description"), gap("prompt arguments without a description")
		l.items("prompts", func(_ probe.Step, _ int, p jsondoc.Value) {
			name := itemName(p, "name")
			if !nonEmpty(p.Get("description")) {
				noDesc.add(name)
			}
			if args := p.Get("arguments"); args.Kind() == jsondoc.Array {
				for _, a := range args.Elements() {
					if !nonEmpty(a.Get("description")) {
						noArgDesc.add(name + "." + itemName(a, "name"))
					}
				}
			}
		})
	}
	server := gap("server fields missing")
	if doc, err := jsondoc.Parse(raw); err == nil {
		if rev >= titlesSince && !nonEmpty(serverInfo(r).Get("title")) {
			server.add("serverInfo.title")
		}
		if rev >= annotationsSince && !nonEmpty(doc.Root().Get("instructions")) {
			server.add("instructions")
		}
	}
	var missing []string
	for _, g := range gaps {
		if g.count > 0 {
			missing = append(missing, g.String())
		}
	}
	if len(missing) > 0 {
		f.Advise(frames, "metadata missing: %s", strings.Join(missing, "; "))
		return
	}
	f.Pass("tools, resources, prompts and the server carry the titles, annotations, descriptions and instructions of %s", rev)
}

func nonEmpty(v jsondoc.Value) bool {
	return v.Kind() == jsondoc.String && strings.TrimSpace(v.Str()) != ""
}

// itemName is an item's member as a short quoted name, or "?" when it has none.
func itemName(v jsondoc.Value, member string) string {
	if n := v.Get(member); n.Kind() == jsondoc.String {
		return textclipName(n.Str())
	}
	return "?"
}

// textclipName bounds a name listed in the quality message.
func textclipName(s string) string {
	const max = 60
	if len(s) > max {
		return strings.ToValidUTF8(s[:max], "") + "…"
	}
	return s
}
