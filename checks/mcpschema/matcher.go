package mcpschema

import (
	"fmt"
	"strings"

	"github.com/mcpwatch/mcpwatch/jsondoc"
)

// matcher is one of this project's message schemas compiled for a fast yes or no on a
// parsed document. It knows exactly the keywords our schemas use, and compiling a schema
// with any other keyword is an error, so that no constraint is ever skipped silently. A
// "no" is explained by the jsonschema library (see revision.explain), which stays the
// authority on messages; tests hold both to the same verdicts.
type matcher struct {
	types    typeSet
	constant *string  // const (our schemas only compare against strings)
	enum     []string // enum, likewise
	format   func(any) bool
	minimum  string // JSON number texts; "" when absent
	maximum  string
	required []string
	props    map[string]*matcher
	// additional judges the members props does not name (nil allows them all);
	// noAdditional forbids them.
	additional   *matcher
	noAdditional bool
	items        *matcher
	anyOf        []*matcher
	ref          *matcher
	// never is the schema false.
	never bool
}

// typeSet is a set of JSON Schema type names.
type typeSet uint8

const (
	typeNull typeSet = 1 << iota
	typeBoolean
	typeNumber
	typeInteger
	typeString
	typeArray
	typeObject
)

// typeNamed is the set of one type name (0 for a name that is none).
func typeNamed(name string) typeSet {
	switch name {
	case "null":
		return typeNull
	case "boolean":
		return typeBoolean
	case "number":
		return typeNumber
	case "integer":
		return typeInteger
	case "string":
		return typeString
	case "array":
		return typeArray
	case "object":
		return typeObject
	}
	return 0
}

func (t typeSet) admits(v jsondoc.Value) bool {
	switch v.Kind() {
	case jsondoc.Null:
		return t&typeNull != 0
	case jsondoc.True, jsondoc.False:
		return t&typeBoolean != 0
	case jsondoc.Number:
		return t&typeNumber != 0 || (t&typeInteger != 0 && jsondoc.IsInteger(v.Text()))
	case jsondoc.String:
		return t&typeString != 0
	case jsondoc.Array:
		return t&typeArray != 0
	case jsondoc.Object:
		return t&typeObject != 0
	}
	return false
}

// match reports whether v satisfies the schema.
func (m *matcher) match(v jsondoc.Value) bool {
	if m.never {
		return false
	}
	if m.ref != nil && !m.ref.match(v) {
		return false
	}
	if m.types != 0 && !m.types.admits(v) {
		return false
	}
	if m.constant != nil && (v.Kind() != jsondoc.String || v.Str() != *m.constant) {
		return false
	}
	if m.enum != nil && !m.inEnum(v) {
		return false
	}
	switch v.Kind() {
	case jsondoc.String:
		if m.format != nil && !m.format(v.Str()) {
			return false
		}
	case jsondoc.Number:
		if m.minimum != "" && jsondoc.CompareNumbers(v.Text(), m.minimum) < 0 {
			return false
		}
		if m.maximum != "" && jsondoc.CompareNumbers(v.Text(), m.maximum) > 0 {
			return false
		}
	case jsondoc.Object:
		if !m.matchObject(v) {
			return false
		}
	case jsondoc.Array:
		if m.items != nil {
			for _, e := range v.Elements() {
				if !m.items.match(e) {
					return false
				}
			}
		}
	}
	if m.anyOf != nil {
		for _, alt := range m.anyOf {
			if alt.match(v) {
				return true
			}
		}
		return false
	}
	return true
}

func (m *matcher) inEnum(v jsondoc.Value) bool {
	if v.Kind() != jsondoc.String {
		return false
	}
	s := v.Str()
	for _, e := range m.enum {
		if s == e {
			return true
		}
	}
	return false
}

func (m *matcher) matchObject(v jsondoc.Value) bool {
	for _, name := range m.required {
		if !v.Get(name).Exists() {
			return false
		}
	}
	if m.props == nil && m.additional == nil && !m.noAdditional {
		return true
	}
	for name, member := range v.Members() {
		if p, ok := m.props[name]; ok {
			if !p.match(member) {
				return false
			}
			continue
		}
		if m.noAdditional || (m.additional != nil && !m.additional.match(member)) {
			return false
		}
	}
	return true
}

// matcherCompiler compiles the definitions of one schema file's $defs into matchers, each
// the first time it is asked for: a probe of one revision validates a handful of messages,
// and compiling the rest would cost every `prober check` for nothing. References between
// definitions may be circular. It is not safe for concurrent use (revision guards it).
type matcherCompiler struct {
	defs jsondoc.Value
	done map[string]*matcher
}

// newMatcherCompiler checks the shape of a parsed schema file and compiles nothing.
func newMatcherCompiler(file jsondoc.Value) (*matcherCompiler, error) {
	if file.Kind() != jsondoc.Object {
		return nil, fmt.Errorf("the file is not an object")
	}
	for k := range file.Members() {
		switch k {
		case "$schema", "$comment", "$defs":
		default:
			return nil, fmt.Errorf("top-level keyword %q is not supported", k)
		}
	}
	defs := file.Get("$defs")
	if defs.Kind() != jsondoc.Object {
		return nil, fmt.Errorf("no $defs")
	}
	return &matcherCompiler{defs: defs, done: map[string]*matcher{}}, nil
}

// names lists the file's definitions, in file order.
func (c *matcherCompiler) names() []string {
	out := make([]string, 0, c.defs.Len())
	for name := range c.defs.Members() {
		out = append(out, name)
	}
	return out
}

func (c *matcherCompiler) definition(name string) (*matcher, error) {
	if m, ok := c.done[name]; ok {
		return m, nil
	}
	s := c.defs.Get(name)
	if !s.Exists() {
		return nil, fmt.Errorf("$ref to missing definition %q", name)
	}
	m := &matcher{}
	c.done[name] = m // before its body, so that a reference back to it finds it
	if err := c.fill(m, s, "#/$defs/"+name); err != nil {
		return nil, err
	}
	return m, nil
}

func (c *matcherCompiler) schema(s jsondoc.Value, at string) (*matcher, error) {
	m := &matcher{}
	if err := c.fill(m, s, at); err != nil {
		return nil, err
	}
	return m, nil
}

// fill compiles schema s (at location at, for errors) into m.
func (c *matcherCompiler) fill(m *matcher, s jsondoc.Value, at string) error {
	switch s.Kind() {
	case jsondoc.True, jsondoc.False:
		m.never = s.Kind() == jsondoc.False
		return nil
	case jsondoc.Object:
		for k, val := range s.Members() {
			if err := c.keyword(m, k, val, at+"/"+k); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("%s: a schema must be an object or a boolean", at)
}

// stringList returns the elements of a non-empty array of strings.
func stringList(val jsondoc.Value) ([]string, bool) {
	if val.Kind() != jsondoc.Array || val.Len() == 0 {
		return nil, false
	}
	out := make([]string, 0, val.Len())
	for _, e := range val.Elements() {
		if e.Kind() != jsondoc.String {
			return nil, false
		}
		out = append(out, e.Str())
	}
	return out, true
}

func (c *matcherCompiler) keyword(m *matcher, k string, val jsondoc.Value, at string) error {
	var err error
	switch k {
	case "$comment", "description", "title":
		// Annotations only.
	case "$ref":
		name, ok := strings.CutPrefix(val.Str(), "#/$defs/")
		if val.Kind() != jsondoc.String || !ok || strings.ContainsAny(name, "/~%") {
			return fmt.Errorf("%s: only references to #/$defs/<name> are supported, not %s", at, val.Text())
		}
		m.ref, err = c.definition(name)
	case "type":
		m.types, err = compileTypes(val, at)
	case "const":
		if val.Kind() != jsondoc.String {
			return fmt.Errorf("%s: only string constants are supported", at)
		}
		s := val.Str()
		m.constant = &s
	case "enum":
		if val.Kind() != jsondoc.Array || val.Len() == 0 {
			return fmt.Errorf("%s: enum must be a non-empty array", at)
		}
		list, ok := stringList(val)
		if !ok {
			return fmt.Errorf("%s: only string enums are supported", at)
		}
		m.enum = list
	case "format":
		f, ok := format(val.Str())
		if val.Kind() != jsondoc.String || !ok {
			return fmt.Errorf("%s: unknown format %s", at, val.Text())
		}
		m.format = f
	case "minimum", "maximum":
		if val.Kind() != jsondoc.Number {
			return fmt.Errorf("%s: not a number", at)
		}
		if k == "minimum" {
			m.minimum = val.Text()
		} else {
			m.maximum = val.Text()
		}
	case "required":
		if val.Kind() != jsondoc.Array {
			return fmt.Errorf("%s: required must be an array", at)
		}
		if val.Len() == 0 {
			return nil
		}
		list, ok := stringList(val)
		if !ok {
			return fmt.Errorf("%s: required names must be strings", at)
		}
		m.required = list
	case "properties":
		if val.Kind() != jsondoc.Object {
			return fmt.Errorf("%s: properties must be an object", at)
		}
		m.props = make(map[string]*matcher, val.Len())
		for name, s := range val.Members() {
			if m.props[name], err = c.schema(s, at+"/"+name); err != nil {
				return err
			}
		}
	case "additionalProperties":
		if k := val.Kind(); k == jsondoc.True || k == jsondoc.False {
			m.noAdditional = k == jsondoc.False
			return nil
		}
		m.additional, err = c.schema(val, at)
	case "items":
		if val.Kind() == jsondoc.Array {
			return fmt.Errorf("%s: tuple items are not supported", at)
		}
		m.items, err = c.schema(val, at)
	case "anyOf":
		if val.Kind() != jsondoc.Array || val.Len() == 0 {
			return fmt.Errorf("%s: anyOf must be a non-empty array", at)
		}
		for i, s := range val.Elements() {
			alt, err := c.schema(s, fmt.Sprintf("%s/%d", at, i))
			if err != nil {
				return err
			}
			m.anyOf = append(m.anyOf, alt)
		}
	default:
		return fmt.Errorf("%s: keyword %q is not supported by the matcher", at, k)
	}
	return err
}

func compileTypes(val jsondoc.Value, at string) (typeSet, error) {
	names := []string{val.Str()}
	ok := val.Kind() == jsondoc.String
	if val.Kind() == jsondoc.Array {
		names, ok = stringList(val)
	}
	if !ok {
		return 0, fmt.Errorf("%s: type must be a name or a non-empty list of names", at)
	}
	var t typeSet
	for _, n := range names {
		bit := typeNamed(n)
		if bit == 0 {
			return 0, fmt.Errorf("%s: unknown type %q", at, n)
		}
		t |= bit
	}
	return t, nil
}
