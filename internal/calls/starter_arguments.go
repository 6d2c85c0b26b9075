package calls

import (
	"net/url"
	"strconv"
	"strings"
	"unicode"

	"go.yaml.in/yaml/v3"

	"github.com/mcpwatch/mcpwatch/internal/textclip"
	"github.com/mcpwatch/mcpwatch/jsondoc"
)

// Bounds of the arguments built from a tool's inputSchema: a server's schema is untrusted
// input, and a starter file is for a person to read.
const (
	// maxArgumentDepth is how many levels of objects are built from their properties; an
	// object deeper down is given as {}.
	maxArgumentDepth = 4
	// maxStarterProperties is how many properties of one object are written.
	maxStarterProperties = 64
	// maxSchemaLayers bounds the schemas ($ref targets, allOf branches) read for one value,
	// so that a reference cycle or an allOf that fans out costs a fixed amount.
	maxSchemaLayers = 32
	// maxValueBytes: an example or default longer than this (as JSON) is not copied.
	maxValueBytes = 1000
	// maxKeyBytes: YAML bounds an implicit key to 1024 characters; a longer property name
	// is left out with a note rather than written as a key the parser refuses.
	maxKeyBytes = 1000
	// noteRunes bounds a comment built from the server's text.
	noteRunes = 100
)

// argument is one property of the arguments of a starter call.
type argument struct {
	name     string
	required bool
	// value is the property's value; for an object built from its properties it is nil
	// and fields holds them.
	value  *yaml.Node
	fields []argument
	// notes are comment lines written above the fields (properties left out).
	notes []string
	// comment describes the property: its type, where the value came from, its description.
	comment string
}

// schemaView is a schema with what it refers to: the keyword of a view is that of the
// first layer that has it, so a keyword beside a $ref (a description, a default) wins over
// the referenced schema's, and allOf branches add their properties.
type schemaView struct {
	root   jsondoc.Value
	layers []jsondoc.Value
}

// viewOf reads schema v of the document whose root is root.
func viewOf(root, v jsondoc.Value) *schemaView {
	s := &schemaView{root: root}
	s.add(v)
	if s.typ() == "" && !s.get("properties").Exists() {
		// anyOf/oneOf: the first branch that is not only null (a nullable property is
		// usually written anyOf [T, null]).
		for _, key := range []string{"anyOf", "oneOf"} {
			for _, branch := range s.get(key).Elements() {
				b := viewOf(root, branch)
				if t := b.typ(); t != "null" && (t != "" || b.get("properties").Exists()) {
					s.add(branch)
					return s
				}
			}
		}
	}
	return s
}

// add appends schema v, then what its $ref points to, then its allOf branches.
func (s *schemaView) add(v jsondoc.Value) {
	if v.Kind() != jsondoc.Object || len(s.layers) >= maxSchemaLayers {
		return
	}
	s.layers = append(s.layers, v)
	if ref := v.Get("$ref"); ref.Kind() == jsondoc.String {
		if target, ok := localRef(s.root, ref.Str()); ok {
			s.add(target)
		}
	}
	for _, branch := range v.Get("allOf").Elements() {
		s.add(branch)
	}
}

// get is the keyword of the first layer that has it.
func (s *schemaView) get(keyword string) jsondoc.Value {
	for _, l := range s.layers {
		if v := l.Get(keyword); v.Exists() {
			return v
		}
	}
	return jsondoc.Value{}
}

// typ is the JSON type the schema asks for: its type (the first that is not null, when it
// lists several), else what its keywords imply; "" when nothing says.
func (s *schemaView) typ() string {
	t := s.get("type")
	switch t.Kind() {
	case jsondoc.String:
		return t.Str()
	case jsondoc.Array:
		only := ""
		for _, e := range t.Elements() {
			if e.Kind() != jsondoc.String {
				continue
			}
			if e.Str() != "null" {
				return e.Str()
			}
			only = "null"
		}
		return only
	}
	switch {
	case s.get("properties").Kind() == jsondoc.Object:
		return "object"
	case s.get("items").Exists() || s.get("prefixItems").Exists():
		return "array"
	}
	return ""
}

// localRef follows a reference within the document: "#" or a JSON Pointer fragment such as
// "#/$defs/Unit" (RFC 6901 escapes, percent-decoded as a URI fragment is). Other
// references (another document, an anchor) are not followed.
func localRef(root jsondoc.Value, ref string) (jsondoc.Value, bool) {
	if ref == "#" {
		return root, true
	}
	if !strings.HasPrefix(ref, "#/") {
		return jsondoc.Value{}, false
	}
	frag, err := url.PathUnescape(ref[1:])
	if err != nil {
		return jsondoc.Value{}, false
	}
	v := root
	tokens, _ := jsondoc.PointerTokens(frag)
	for _, tok := range tokens {
		switch v.Kind() {
		case jsondoc.Object:
			v = v.Get(tok)
		case jsondoc.Array:
			i, err := strconv.Atoi(tok)
			if err != nil {
				return jsondoc.Value{}, false
			}
			found := jsondoc.Value{}
			for j, e := range v.Elements() {
				if j == i {
					found = e
					break
				}
			}
			v = found
		default:
			return jsondoc.Value{}, false
		}
		if !v.Exists() {
			return jsondoc.Value{}, false
		}
	}
	return v, true
}

// starterArguments are the arguments of a starter call built from a tool's inputSchema:
// its properties, required ones first and in the schema's order. clean is applied to every
// text of the schema written into the file.
func starterArguments(schema jsondoc.Value, clean func(string) string) (args []argument, notes []string) {
	return objectFields(schema, viewOf(schema, schema), 0, clean)
}

// objectFields are the properties of an object schema, required ones first, then notes on
// what was left out.
func objectFields(root jsondoc.Value, s *schemaView, depth int, clean func(string) string) ([]argument, []string) {
	required := map[string]bool{}
	var order []string
	seen := map[string]bool{}
	props := map[string]jsondoc.Value{}
	for _, l := range s.layers {
		for name, p := range l.Get("properties").Members() {
			if !seen[name] {
				seen[name], props[name] = true, p
				order = append(order, name)
			}
		}
	}
	for _, l := range s.layers {
		for _, r := range l.Get("required").Elements() {
			if r.Kind() != jsondoc.String {
				continue
			}
			required[r.Str()] = true
			if !seen[r.Str()] {
				seen[r.Str()] = true
				order = append(order, r.Str()) // required with no schema of its own
			}
		}
	}
	var first, rest []string
	for _, name := range order {
		if required[name] {
			first = append(first, name)
		} else {
			rest = append(rest, name)
		}
	}
	var out []argument
	var notes []string
	long, left := 0, 0
	for _, name := range append(first, rest...) {
		if len(name) > maxKeyBytes {
			long++
			continue
		}
		if len(out) == maxStarterProperties {
			left++
			continue
		}
		a := property(root, props[name], depth+1, clean)
		a.name, a.required = clean(name), required[name]
		out = append(out, a)
	}
	if long > 0 {
		notes = append(notes, plural(long, "property", "properties")+" with a name longer than "+strconv.Itoa(maxKeyBytes)+" bytes left out")
	}
	if left > 0 {
		notes = append(notes, plural(left, "more property", "more properties")+" not shown (see the tool's inputSchema)")
	}
	return out, notes
}

// property builds the value of one property: the first of examples[0], default, const and
// enum[0], else a placeholder of its type (an object built from its own properties).
func property(root, p jsondoc.Value, depth int, clean func(string) string) argument {
	s := viewOf(root, p)
	typ := s.typ()
	var a argument
	source := ""
	var picked jsondoc.Value
	for _, c := range []struct {
		keyword, source string
		first           bool
	}{{"examples", "example", true}, {"default", "default", false}, {"const", "const", false}, {"enum", "first of enum", true}} {
		v := s.get(c.keyword)
		if c.first {
			if v.Kind() != jsondoc.Array || v.Len() == 0 {
				continue
			}
			for _, e := range v.Elements() {
				v = e
				break
			}
		}
		if v.Exists() && len(v.Text()) <= maxValueBytes {
			picked, source = v, c.source
			break
		}
	}
	switch {
	case picked.Exists():
		a.value = yamlValue(picked, clean)
	case typ == "object" && depth <= maxArgumentDepth:
		a.fields, a.notes = objectFields(root, s, depth, clean)
		if len(a.fields) == 0 {
			a.value = &yaml.Node{Kind: yaml.MappingNode, Style: yaml.FlowStyle, Tag: "!!map"}
		}
	default:
		a.value = placeholder(typ, s)
	}
	a.comment = propertyComment(s, typ, source, clean)
	return a
}

// placeholder is the value of a type for the author to fill in: "", 0 (or the minimum),
// false, [], {}, or null when the schema gives no type.
func placeholder(typ string, s *schemaView) *yaml.Node {
	switch typ {
	case "string":
		return scalarNode("")
	case "integer", "number":
		if m := s.get("minimum"); m.Kind() == jsondoc.Number {
			return numberNode(m.Text())
		}
		return numberNode("0")
	case "boolean":
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: "false"}
	case "array":
		return &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle, Tag: "!!seq"}
	case "object":
		return &yaml.Node{Kind: yaml.MappingNode, Style: yaml.FlowStyle, Tag: "!!map"}
	}
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}
}

// propertyComment is the comment of a property: its type, where its value came from, the
// values its enum allows and its description, cut to noteRunes characters.
func propertyComment(s *schemaView, typ, source string, clean func(string) string) string {
	if typ == "" {
		typ = "any type"
	}
	if f := s.get("format"); f.Kind() == jsondoc.String {
		typ += " (" + f.Str() + ")"
	}
	text := typ
	if source != "" {
		text += ", " + source
	}
	if e := s.get("enum"); e.Kind() == jsondoc.Array && e.Len() > 1 {
		var vals []string
		for _, v := range e.Elements() {
			vals = append(vals, v.Text())
		}
		text += ", one of " + strings.Join(vals, " ")
	}
	if d := s.get("description"); d.Kind() == jsondoc.String && strings.TrimSpace(d.Str()) != "" {
		text += ": " + d.Str()
	}
	return commentText(clean(text), noteRunes)
}

// commentText is text made fit for one comment line: every control character and line
// break a YAML parser knows (U+0085, U+2028, U+2029 among them) a space, runs of spaces one,
// cut to n characters.
func commentText(s string, n int) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' || r == '\uFEFF' {
			return ' '
		}
		return r
	}, s)
	return textclip.Runes(strings.Join(strings.Fields(s), " "), n)
}

// yamlValue is a JSON value as a YAML node written in flow style (one line), member order
// kept, every string through clean.
func yamlValue(v jsondoc.Value, clean func(string) string) *yaml.Node {
	switch v.Kind() {
	case jsondoc.Object:
		n := &yaml.Node{Kind: yaml.MappingNode, Style: yaml.FlowStyle, Tag: "!!map"}
		for name, m := range v.Members() {
			n.Content = append(n.Content, scalarNode(clean(name)), yamlValue(m, clean))
		}
		return n
	case jsondoc.Array:
		n := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle, Tag: "!!seq"}
		for _, e := range v.Elements() {
			n.Content = append(n.Content, yamlValue(e, clean))
		}
		return n
	case jsondoc.String:
		return scalarNode(clean(v.Str()))
	case jsondoc.Number:
		return numberNode(v.Text())
	case jsondoc.True, jsondoc.False:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: v.Text()}
	}
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}
}

// numberNode is a JSON number as a YAML scalar: JSON's number syntax is YAML's too.
func numberNode(text string) *yaml.Node {
	tag := "!!float"
	if jsondoc.IsInteger(text) && !strings.ContainsAny(text, ".eE") {
		tag = "!!int"
	}
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: text}
}

// scalarNode is a string as a YAML scalar the encoder quotes as it must; a string with a
// line break or any other character a plain or single-quoted scalar cannot hold on one line
// is double-quoted, where the encoder escapes them.
func scalarNode(s string) *yaml.Node {
	n := &yaml.Node{}
	n.SetString(s)
	if strings.ContainsFunc(s, func(r rune) bool {
		return !unicode.IsPrint(r) && r != ' '
	}) {
		n.Style = yaml.DoubleQuotedStyle
	}
	return n
}

// inline is a node as YAML text on one line.
func inline(n *yaml.Node) (string, error) {
	b, err := yaml.Marshal(n)
	if err != nil {
		return "", err
	}
	text := strings.TrimSuffix(string(b), "\n")
	if strings.ContainsAny(text, "\n\r") {
		// Not expected of a flow node whose strings are quoted as scalarNode quotes them;
		// refused rather than written as lines that break the file's comment structure.
		return "", errMultiline
	}
	return text, nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
