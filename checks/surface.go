package checks

import (
	"bytes"

	"github.com/mcpwatch/mcpwatch/jsondoc"
	"github.com/mcpwatch/mcpwatch/probe"
)

// surfaceList is the pages one list step returned on one connection, each parsed once for
// the checks that read items rather than judge pages (lists.item-hygiene, lists.stable,
// tools.x-mcp-header, tools.execution, quality.metadata).
type surfaceList struct {
	steps []probe.Step
	docs  []*jsondoc.Doc // docs[i] is the result of steps[i]; nil when it failed or is no JSON
}

// surfaceKey names a list by its step and connection.
type surfaceKey struct {
	step string
	conn int
}

// surfaceList returns the pages of a list step on a connection (an empty list when the step
// was never sent). The lists of a capture are parsed on first use.
func (r *Capture) surfaceList(step string, conn int) *surfaceList {
	r.surfaceOnce.Do(func() {
		r.surface = map[surfaceKey]*surfaceList{}
		// A server answers the same list with the same bytes on every connection and when
		// asked again (tools/list, its repeat and the other connection's are three copies of
		// some kilobytes): each distinct answer is parsed once and its tree shared, as the
		// checks only read it.
		var parsed []parsedResult
		for _, st := range r.Steps {
			if !surfaceStep(st.Name) {
				continue
			}
			k := surfaceKey{st.Name, st.Conn}
			l := r.surface[k]
			if l == nil {
				l = &surfaceList{}
				r.surface[k] = l
			}
			var doc *jsondoc.Doc
			if st.Outcome == probe.OutcomeOK {
				doc, parsed = parseObjectOnce(parsed, st.Result)
			}
			l.steps = append(l.steps, st)
			l.docs = append(l.docs, doc)
		}
	})
	if l := r.surface[surfaceKey{step, conn}]; l != nil {
		return l
	}
	return &surfaceList{}
}

// parsedResult is a result's bytes and their document (nil when they are not a JSON object).
type parsedResult struct {
	raw []byte
	doc *jsondoc.Doc
}

// parseObjectOnce parses raw as a JSON object, or finds it among the results parsed before.
func parseObjectOnce(parsed []parsedResult, raw []byte) (*jsondoc.Doc, []parsedResult) {
	for _, p := range parsed {
		if bytes.Equal(p.raw, raw) {
			return p.doc, parsed
		}
	}
	var doc *jsondoc.Doc
	if d, err := jsondoc.Parse(raw); err == nil && d.Root().Kind() == jsondoc.Object {
		doc = d
	}
	return doc, append(parsed, parsedResult{raw, doc})
}

// surfaceStep reports whether a step is a list whose items the surface checks read.
func surfaceStep(name string) bool {
	switch name {
	case probe.StepToolsList, probe.StepResourcesList, probe.StepTemplatesList, probe.StepPromptsList,
		probe.StepToolsListRepeat, probe.StepToolsListOther, probe.StepResourcesListOther, probe.StepPromptsListOther:
		return true
	}
	return false
}

// sent reports whether the list was asked for at all.
func (l *surfaceList) sent() bool { return len(l.steps) > 0 }

// complete reports whether every page was answered with a result and the last one points
// to no further page: the listing is the whole list.
func (l *surfaceList) complete() bool {
	if len(l.docs) == 0 {
		return false
	}
	for _, d := range l.docs {
		if d == nil {
			return false
		}
	}
	last := l.docs[len(l.docs)-1].Root().Get("nextCursor")
	return !last.Exists() || last.Kind() == jsondoc.Null
}

// firstFailed is the first step that was not answered with a result (ok false when none).
func (l *surfaceList) firstFailed() (probe.Step, bool) {
	for i, d := range l.docs {
		if d == nil {
			return l.steps[i], true
		}
	}
	return probe.Step{}, false
}

// items calls fn with every element of the member array of each answered page, with the
// step and the 1-based number of its page.
func (l *surfaceList) items(member string, fn func(st probe.Step, page int, item jsondoc.Value)) {
	for i, d := range l.docs {
		if d == nil {
			continue
		}
		arr := d.Root().Get(member)
		if arr.Kind() != jsondoc.Array {
			continue
		}
		for _, e := range arr.Elements() {
			fn(l.steps[i], i+1, e)
		}
	}
}

// keys lists the string values of key of the member array's object items, in order.
func (l *surfaceList) keys(member, key string) []string {
	var out []string
	l.items(member, func(_ probe.Step, _ int, item jsondoc.Value) {
		if k := item.Get(key); k.Kind() == jsondoc.String {
			out = append(out, k.Str())
		}
	})
	return out
}

// responses are the Seqs of the answers of the list's steps.
func (l *surfaceList) responses() []int {
	var out []int
	for _, st := range l.steps {
		out = appendUnique(out, st.Response)
	}
	return out
}

// surfaceChecks are the checks that read what the server lists and says about itself
// beyond the schemas (issue 19): item hygiene, list stability, tool extensions, _meta keys,
// metadata quality and the server card.
func surfaceChecks() []Check {
	var all []Check
	all = append(all, hygieneChecks()...)
	all = append(all, stableChecks()...)
	all = append(all, toolExtensionChecks()...)
	all = append(all, metaChecks()...)
	all = append(all, qualityChecks()...)
	all = append(all, serverCardChecks()...)
	return all
}
