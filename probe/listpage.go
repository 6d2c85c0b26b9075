package probe

import (
	"bytes"
	"encoding/json"

	"github.com/mcpwatch/mcpwatch/jsondoc"
)

// The readers below take what the probe needs from a list result (its nextCursor, a
// tools/list page's tool names) the way json.Unmarshal into a struct would: member names
// matched without regard to case, the last of a repeated name winning. They run on results
// cut from a message peekEnvelope accepted, so on valid JSON. Decoding whole pages with
// encoding/json twice (to follow the cursor, then to name the tools) was the largest
// decoding the probe itself did.

// memberValue is the raw value of the object's member called name; nil when it has none or
// result is no object.
func memberValue(result []byte, name string) []byte {
	var v []byte
	jsondoc.EachMember(result, func(n, value []byte) {
		if bytes.EqualFold(jsondoc.Unquote(n), []byte(name)) {
			v = value
		}
	})
	return v
}

// pageCursor is the nextCursor of a list result; more is false when it has none, or it is
// null or not a string.
func pageCursor(result []byte) (cursor string, more bool) {
	raw := memberValue(result, "nextCursor")
	if len(raw) == 0 || raw[0] != '"' {
		return "", false
	}
	cursor, _ = jsondoc.Str(raw)
	return cursor, true
}

// pageToolNames adds the names of a tools/list result's tools to names. It reports false
// where decoding the page into a struct would fail: the result, its tools or one of them of
// the wrong JSON type, or a name that is not a string.
func pageToolNames(result []byte, names map[string]bool) bool {
	ok := true
	// As json.Unmarshal does with a repeated tools member: the later one decodes into the
	// elements the earlier left (a name it lacks stays), and null drops them.
	var decoded []string
	n := 0
	if !jsondoc.EachMember(result, func(member, tools []byte) {
		if !bytes.EqualFold(jsondoc.Unquote(member), []byte("tools")) {
			return
		}
		if jsondoc.IsNull(tools) {
			decoded, n = nil, 0
			return
		}
		n = 0
		ok = jsondoc.EachElement(tools, func(tool []byte) {
			if n == len(decoded) {
				decoded = append(decoded, "")
			}
			ok = jsondoc.EachMember(tool, func(field, v []byte) {
				switch {
				case !bytes.EqualFold(jsondoc.Unquote(field), []byte("name")) || jsondoc.IsNull(v):
				case v[0] == '"':
					decoded[n], _ = jsondoc.Str(v)
				default:
					ok = false
				}
			}) && ok
			n++
		}) && ok
	}) {
		return false
	}
	for _, name := range decoded[:n] {
		names[name] = true
	}
	return ok
}

// listPages are the results of the main session's pages of one list step, in order, up to
// the first that failed; complete is false when one failed, none came, or the last still
// points further (a loop, the page limit).
func (s *session) listPages(step string) (pages []json.RawMessage, complete bool) {
	for _, st := range s.steps {
		if st.Name != step {
			continue
		}
		if st.Outcome != OutcomeOK {
			return pages, false
		}
		pages = append(pages, st.Result)
	}
	if len(pages) == 0 {
		return nil, false
	}
	end := memberValue(pages[len(pages)-1], "nextCursor")
	return pages, end == nil || jsondoc.IsNull(end)
}
