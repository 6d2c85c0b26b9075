// Package yamlstrict decodes a YAML configuration into typed Go structs strictly, naming
// every problem by line, column and field path, and remembering where each field was.
//
// It is the one reader of the monitor's configuration file and of its alerts section, so that
// both follow one set of rules:
//
//   - A struct field is read from the key of its `yaml` tag; an `alias` tag (comma-separated)
//     names other spellings that are read too, such as the camelCase of a kebab-case key.
//     A mapping that gives a key twice, in one spelling or in two, is refused.
//   - An unknown key is refused, with the known ones and, when one is close, a "did you
//     mean". A misspelt key silently ignored would be a setting silently not applied.
//   - A value of the wrong shape is refused with what the field wants and what it got;
//     every problem is reported, not only the first. A null (a key with no value) leaves the
//     field as it was, for the caller's defaults.
//   - Strings take any scalar; whole numbers need an integer (not 3.0); booleans need true or
//     false (not yes, which is a string in YAML 1.2); a time.Duration field is read as a
//     units.Duration. A type with an UnmarshalYAML method reads itself: its error says what
//     it wants ("want a duration such as 30s"), and the decoder adds what the file gave.
//
// Decode returns the Places of every field it read, by path, for the caller's validation to
// name the place of a value that is well-formed but wrong.
package yamlstrict

import (
	"fmt"
	"reflect"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/mcpwatch/mcpwatch/internal/units"
)

// Problem is one problem of a document.
type Problem struct {
	Line, Column int
	// Field is the path of the field as the file spells it, such as
	// servers[2].headers.Authorization.fromEnv; "" for the document as a whole.
	Field   string
	Message string
}

func (p *Problem) Error() string {
	return fmt.Sprintf("line %d, column %d: %s: %s", p.Line, p.Column, p.Field, p.Message)
}

// ScalarSetter is a struct or slice type that may also be written as one scalar, such as an
// environment entry that is a value or {from-env: NAME}, or a command that is a program name
// or a list.
type ScalarSetter interface {
	SetScalar(value string)
}

// Mismatcher is a struct type that words the problem of a value of another shape itself: a
// header value written where the name of its variable belongs must not be echoed back.
type Mismatcher interface {
	// MismatchYAML is the whole message; got describes the value ("the string \"x\"").
	MismatchYAML(got string) string
}

var (
	durationType     = reflect.TypeFor[time.Duration]()
	nodeType         = reflect.TypeFor[yaml.Node]()
	unmarshalerType  = reflect.TypeFor[yaml.Unmarshaler]()
	scalarSetterType = reflect.TypeFor[ScalarSetter]()
)

// Decode reads n (a document or the node of a section) into v, a pointer to a struct. at is
// the path of n in the file ("" for a whole document, "alerts" for a section), which every
// path of the result starts with.
func Decode(n *yaml.Node, v any, at string) (Places, []*Problem) {
	d := &decoder{places: Places{}, maxSteps: max(minSteps, stepsPerNode*countNodes(n)), fields: map[reflect.Type]structFields{}}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		panic("yamlstrict: Decode needs a non-nil pointer")
	}
	n = resolve(n)
	if n.Kind == yaml.DocumentNode && len(n.Content) == 1 {
		n = resolve(n.Content[0])
	}
	d.places[at] = Place{Key: pos(n), Value: pos(n), Written: at}
	d.decode(n, rv.Elem(), at, at)
	return d.places, d.problems
}

// Aliases let a small document name a large value many times over: the values the decoder
// reads are bounded by minSteps, or by stepsPerNode times the nodes of the document when
// that is more. A template of a server repeated by alias stays well inside; a billion laughs
// is refused at once.
const (
	minSteps     = 100_000
	stepsPerNode = 20
)

type decoder struct {
	places   Places
	problems []*Problem
	// steps counts the values read, up to maxSteps.
	steps, maxSteps int
	// fields are the keys of the struct types met so far: a file of servers reads one type
	// thousands of times.
	fields map[reflect.Type]structFields
}

func (d *decoder) fail(n *yaml.Node, field, format string, args ...any) {
	d.problems = append(d.problems, &Problem{Line: n.Line, Column: n.Column, Field: field, Message: fmt.Sprintf(format, args...)})
}

// decode reads n into v: path is the field's canonical path, written its path as spelt.
func (d *decoder) decode(n *yaml.Node, v reflect.Value, path, written string) {
	n = resolve(n)
	if isNull(n) || !d.step(n, written) {
		return
	}
	switch {
	case v.Type() == nodeType:
		v.Set(reflect.ValueOf(*n))
	case v.Kind() == reflect.Pointer:
		d.pointer(n, v, path, written)
	case v.Addr().Type().Implements(unmarshalerType):
		if err := v.Addr().Interface().(yaml.Unmarshaler).UnmarshalYAML(n); err != nil {
			d.fail(n, written, "%v, got %s", err, Describe(n))
		}
	case n.Kind == yaml.ScalarNode && v.Addr().Type().Implements(scalarSetterType):
		v.Addr().Interface().(ScalarSetter).SetScalar(n.Value)
	case v.Type().Implements(orderedType):
		d.ordered(n, v, path, written)
	case v.Kind() == reflect.Struct:
		d.structure(n, v, path, written)
	case v.Kind() == reflect.Slice:
		d.list(n, v, path, written)
	case v.Kind() == reflect.Map:
		d.mapping(n, v, path, written)
	default:
		if want := setScalar(n, v); want != "" {
			d.fail(n, written, "%s, got %s", want, Describe(n))
		}
	}
}

// step counts one more value read, and reports whether the decoder may go on.
func (d *decoder) step(n *yaml.Node, written string) bool {
	if d.steps++; d.steps == d.maxSteps {
		d.fail(n, written, "the document repeats values too often (aliases): more than %d values to read", d.maxSteps)
	}
	return !d.exhausted()
}

// pointer reads a pointer's value. The pointer is set only when its value could be read:
// left nil, it says "not given" to the validation, and the decoder has reported why.
func (d *decoder) pointer(n *yaml.Node, v reflect.Value, path, written string) {
	elem := reflect.New(v.Type().Elem())
	if !v.IsNil() {
		elem.Elem().Set(v.Elem())
	}
	if d.decodes(n, elem.Elem(), path, written) {
		v.Set(elem)
	}
}

// setScalar reads a string, a boolean, a number or a time.Duration into v; when n is not one,
// it says what v wants instead.
func setScalar(n *yaml.Node, v reflect.Value) (want string) {
	tag := n.ShortTag()
	if n.Kind != yaml.ScalarNode {
		tag = ""
	}
	switch {
	case v.Type() == durationType:
		var u units.Duration
		if err := u.UnmarshalYAML(n); err != nil {
			return err.Error()
		}
		v.SetInt(int64(u))
	case v.Kind() == reflect.String:
		if tag == "" {
			return "want a string"
		}
		v.SetString(n.Value)
	case v.Kind() == reflect.Bool:
		var b bool
		if tag != "!!bool" || n.Decode(&b) != nil {
			return "want true or false"
		}
		v.SetBool(b)
	case v.CanInt():
		return setInt(n, tag, v)
	case v.CanFloat():
		var f float64
		if (tag != "!!int" && tag != "!!float") || n.Decode(&f) != nil {
			return "want a number"
		}
		v.SetFloat(f)
	default:
		panic(fmt.Sprintf("yamlstrict: no rule for a field of type %v", v.Type()))
	}
	return ""
}

func setInt(n *yaml.Node, tag string, v reflect.Value) (want string) {
	var i int64
	if tag != "!!int" || n.Decode(&i) != nil || v.OverflowInt(i) {
		return "want a whole number"
	}
	v.SetInt(i)
	return ""
}

// structure reads a mapping into a struct, key by key.
func (d *decoder) structure(n *yaml.Node, v reflect.Value, path, written string) {
	if n.Kind != yaml.MappingNode {
		if m, ok := v.Addr().Interface().(Mismatcher); ok {
			d.fail(n, written, "%s", m.MismatchYAML(Describe(n)))
			return
		}
		d.fail(n, written, "want a mapping (key: value lines), got %s", Describe(n))
		return
	}
	fields, ok := d.fields[v.Type()]
	if !ok {
		fields = fieldsOf(v.Type())
		d.fields[v.Type()] = fields
	}
	given := map[string]*yaml.Node{} // canonical key -> the key node that gave it
	for i := 0; i+1 < len(n.Content) && !d.exhausted(); i += 2 {
		k, value := resolve(n.Content[i]), n.Content[i+1]
		if !d.isName(k, written) {
			continue
		}
		f, ok := fields.byKey[k.Value]
		if !ok {
			d.fail(k, join(written, k.Value), "unknown key (known: %s)%s", fields.known, didYouMean(k.Value, fields))
			continue
		}
		if first := given[f.key]; first != nil {
			d.fail(k, join(written, k.Value), "%s", twice(first, k, f.key))
			continue
		}
		given[f.key] = k
		d.enter(k, value, v.Field(f.index), join(path, f.key), join(written, k.Value))
	}
}

// list reads a sequence into a slice, item by item.
func (d *decoder) list(n *yaml.Node, v reflect.Value, path, written string) {
	if n.Kind != yaml.SequenceNode {
		d.fail(n, written, "want a list, got %s", Describe(n))
		return
	}
	out := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
	for i, item := range n.Content {
		if d.exhausted() {
			break
		}
		item = resolve(item)
		at := fmt.Sprintf("[%d]", i)
		d.enter(item, item, out.Index(i), path+at, written+at)
	}
	v.Set(out)
}

// mapping reads a mapping into a map of names, such as labels.
func (d *decoder) mapping(n *yaml.Node, v reflect.Value, path, written string) {
	if v.Type().Key().Kind() != reflect.String {
		panic(fmt.Sprintf("yamlstrict: no rule for a map of type %v", v.Type()))
	}
	out := reflect.MakeMapWithSize(v.Type(), len(n.Content)/2)
	if d.names(n, written, func(k, value *yaml.Node) {
		elem := reflect.New(v.Type().Elem()).Elem()
		if d.enter(k, value, elem, join(path, k.Value), join(written, k.Value)) {
			out.SetMapIndex(reflect.ValueOf(k.Value).Convert(v.Type().Key()), elem)
		}
	}) {
		v.Set(out)
	}
}

// names calls fn for each key of a mapping of names and its value, refusing keys that are
// not names or come twice; false when n is not a mapping.
func (d *decoder) names(n *yaml.Node, written string, fn func(k, value *yaml.Node)) bool {
	if n.Kind != yaml.MappingNode {
		d.fail(n, written, "want a mapping (key: value lines), got %s", Describe(n))
		return false
	}
	given := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content) && !d.exhausted(); i += 2 {
		k, value := resolve(n.Content[i]), n.Content[i+1]
		if !d.isName(k, written) {
			continue
		}
		if first := given[k.Value]; first != nil {
			d.fail(k, join(written, k.Value), "%s", twice(first, k, k.Value))
			continue
		}
		given[k.Value] = k
		fn(k, value)
	}
	return true
}

// exhausted reports whether the document made the decoder read too much to go on.
func (d *decoder) exhausted() bool { return d.steps >= d.maxSteps }

// countNodes counts the nodes of a document as written, not following aliases.
func countNodes(n *yaml.Node) int {
	count := 1
	for _, c := range n.Content {
		count += countNodes(c)
	}
	return count
}

// decodes reads n into v and reports whether it could, without a problem.
func (d *decoder) decodes(n *yaml.Node, v reflect.Value, path, written string) bool {
	before := len(d.problems)
	d.decode(n, v, path, written)
	return len(d.problems) == before
}

// enter records the place of a field and reads its value.
// It reports whether the value could be read.
func (d *decoder) enter(key, value *yaml.Node, v reflect.Value, path, written string) bool {
	value = resolve(value)
	d.places[path] = Place{Key: pos(key), Value: pos(value), Written: written}
	return d.decodes(value, v, path, written)
}

// isName reports whether a key is a name (a scalar), reporting it when it is not.
func (d *decoder) isName(k *yaml.Node, written string) bool {
	if k.Kind != yaml.ScalarNode || isNull(k) {
		d.fail(k, written, "keys must be names")
		return false
	}
	return true
}

// twice says that a key is given twice, in one spelling or in two.
func twice(first, again *yaml.Node, key string) string {
	if first.Value == again.Value {
		return fmt.Sprintf("given twice (first at line %d)", first.Line)
	}
	return fmt.Sprintf("given twice: %s (line %d) and %s are two spellings of %s; keep one", first.Value, first.Line, again.Value, key)
}

// resolve follows an alias (*name) to the node it names.
func resolve(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

func isNull(n *yaml.Node) bool {
	return n == nil || (n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null")
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// Describe says what a node is, for "want X, got Y" messages: "the string \"x\"", "int 5",
// "a list", "nothing".
func Describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.DocumentNode:
		return "a document"
	}
	switch n.ShortTag() {
	case "!!null":
		return "nothing"
	case "!!str":
		return fmt.Sprintf("the string %q", n.Value)
	}
	return fmt.Sprintf("%s %s", n.ShortTag()[2:], n.Value)
}
