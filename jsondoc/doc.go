// Package jsondoc is the project's one JSON layer: the grammar of JSON written once, and
// three ways to read a document with it, each for a job.
//
//   - Valid and ScanObject validate text without building anything: ScanObject hands out an
//     object's members as sub-slices of the text in the same pass. Every message a probe
//     routes or a check judges goes through them once.
//   - EachMember, EachElement and Skip walk text already validated, without validating it
//     again; Str, Unquote, Int64, KindOf and IsNull read one raw value they handed out. The
//     probe's hot path reads envelopes and list pages this way without allocating.
//   - Parse builds a flat, read-only tree: one slice of nodes over one copy of the text,
//     whatever the document holds. Reading a tools/list page or a tool schema this way costs
//     a few allocations where a map[string]any tree costs one per object, array, string and
//     number, and decoding was most of what judging a probe cost. CompareNumbers, IsInteger
//     and NormalNumber compare its numbers exactly, whatever their size.
//
// Semantics are encoding/json's, and the fuzz tests hold every reader to it: what json.Valid
// accepts (nesting deeper than 10000 levels is an error, invalid UTF-8 in a string is not),
// a member name given twice keeps its last value (the earlier one is skipped by every
// accessor of the tree), strings with invalid UTF-8 or unpaired surrogates read with U+FFFD,
// and Value.Any gives exactly what json.Decoder with UseNumber would.
package jsondoc

import (
	"errors"
	"fmt"
	"iter"
)

// ErrSyntax: the text is not exactly one JSON value.
var ErrSyntax = errors.New("jsondoc: not one JSON value")

// Kind is the JSON type of a value.
type Kind uint8

// Kinds of values. The zero Value (a missing member) has kind Missing.
const (
	Missing Kind = iota
	Null
	False
	True
	Number
	String
	Array
	Object
)

func (k Kind) String() string {
	return [...]string{"missing", "null", "false", "true", "number", "string", "array", "object"}[k]
}

// node flags.
const (
	// escaped: a string token whose value differs from the text between its quotes
	// (escapes, or invalid UTF-8 to replace).
	escaped uint8 = 1 << iota
	// shadowed: an object member whose name a later member of the same object repeats.
	shadowed
)

// node is one value, or one member name (a String node right before its value). Containers
// are followed by their contents, so the nodes of a document are its values in order.
type node struct {
	kind  Kind
	flags uint8
	// start and end delimit the value's text (a string's with its quotes).
	start, end int32
	// next is the index of the node after this one's contents.
	next int32
	// count is the number of elements, or of members not shadowed.
	count int32
}

// Doc is a parsed document.
type Doc struct {
	text  string
	nodes []node
}

// Value is one value of a document; the zero Value is a missing one.
type Value struct {
	doc *Doc
	i   int32
}

// Root is the document's value.
func (d *Doc) Root() Value { return Value{doc: d, i: 0} }

// Text is the document as parsed.
func (d *Doc) Text() string { return d.text }

// Nodes is the number of values and member names in the document: a measure of the work
// reading all of it costs.
func (d *Doc) Nodes() int { return len(d.nodes) }

// Names yields every member name of every object of the document, shadowed ones included,
// object by object in the order the objects begin.
func (d *Doc) Names() iter.Seq[string] { return d.Root().Names() }

// Names yields every member name of every object within the value (itself included),
// shadowed ones too, object by object in the order the objects begin.
func (v Value) Names() iter.Seq[string] {
	return func(yield func(string) bool) {
		if v.doc == nil {
			return
		}
		d := v.doc
		for i := v.i; i < d.nodes[v.i].next; i++ {
			if d.nodes[i].kind != Object {
				continue
			}
			for j := i + 1; j < d.nodes[i].next; j = d.nodes[j+1].next {
				if !yield(d.str(j)) {
					return
				}
			}
		}
	}
}

func (v Value) n() *node { return &v.doc.nodes[v.i] }

// Kind is the value's JSON type (Missing for the zero Value).
func (v Value) Kind() Kind {
	if v.doc == nil {
		return Missing
	}
	return v.n().kind
}

// Exists reports whether the value is present.
func (v Value) Exists() bool { return v.doc != nil }

// Text is the value's JSON text as it appears in the document.
func (v Value) Text() string {
	if v.doc == nil {
		return ""
	}
	n := v.n()
	return v.doc.text[n.start:n.end]
}

// Str is a string value's content ("" for other kinds). A plain string's is part of the
// document's text: clone it to keep it without keeping the document.
func (v Value) Str() string {
	if v.Kind() != String {
		return ""
	}
	return v.doc.str(v.i)
}

// Plain reports whether a string value's content is the text between its quotes: no
// escapes and valid UTF-8. Its canonical JSON form (minimal escapes) is then its text.
func (v Value) Plain() bool { return v.Kind() == String && v.n().flags&escaped == 0 }

func (d *Doc) str(i int32) string {
	n := &d.nodes[i]
	if n.flags&escaped == 0 {
		return d.text[n.start+1 : n.end-1]
	}
	return unquote(d.text[n.start+1 : n.end-1])
}

// nameIs reports whether the member name node i is name, without decoding a plain one.
func (d *Doc) nameIs(i int32, name string) bool {
	n := &d.nodes[i]
	if n.flags&escaped == 0 {
		return d.text[n.start+1:n.end-1] == name
	}
	return unquote(d.text[n.start+1:n.end-1]) == name
}

// Len is the number of elements of an array, or of (distinct) members of an object.
func (v Value) Len() int {
	switch v.Kind() {
	case Array, Object:
		return int(v.n().count)
	}
	return 0
}

// Elements yields an array's elements with their indexes.
func (v Value) Elements() iter.Seq2[int, Value] {
	return func(yield func(int, Value) bool) {
		if v.Kind() != Array {
			return
		}
		nodes := v.doc.nodes
		k := 0
		for j := v.i + 1; j < nodes[v.i].next; j = nodes[j].next {
			if !yield(k, Value{doc: v.doc, i: j}) {
				return
			}
			k++
		}
	}
}

// Members yields an object's members in document order, each name once (with its last
// value).
func (v Value) Members() iter.Seq2[string, Value] {
	return func(yield func(string, Value) bool) {
		if v.Kind() != Object {
			return
		}
		d := v.doc
		for j := v.i + 1; j < d.nodes[v.i].next; j = d.nodes[j+1].next {
			if d.nodes[j].flags&shadowed != 0 {
				continue
			}
			if !yield(d.str(j), Value{doc: d, i: j + 1}) {
				return
			}
		}
	}
}

// MemberNames yields an object's member names like Members, as Values (string nodes), so
// that a caller can ask whether a name is Plain or take its Text.
func (v Value) MemberNames() iter.Seq2[Value, Value] {
	return func(yield func(Value, Value) bool) {
		if v.Kind() != Object {
			return
		}
		d := v.doc
		for j := v.i + 1; j < d.nodes[v.i].next; j = d.nodes[j+1].next {
			if d.nodes[j].flags&shadowed != 0 {
				continue
			}
			if !yield(Value{doc: d, i: j}, Value{doc: d, i: j + 1}) {
				return
			}
		}
	}
}

// Get is an object's member of that name (the zero Value when there is none, or when v is
// not an object).
func (v Value) Get(name string) Value {
	if v.Kind() != Object {
		return Value{}
	}
	d := v.doc
	for j := v.i + 1; j < d.nodes[v.i].next; j = d.nodes[j+1].next {
		if d.nodes[j].flags&shadowed == 0 && d.nameIs(j, name) {
			return Value{doc: d, i: j + 1}
		}
	}
	return Value{}
}

// Any is the value as encoding/json's Decoder with UseNumber gives it: map[string]any,
// []any, json.Number, string, bool or nil.
func (v Value) Any() any {
	switch v.Kind() {
	case Null, Missing:
		return nil
	case False:
		return false
	case True:
		return true
	case Number:
		return numberOf(v.Text())
	case String:
		return v.Str()
	case Array:
		out := make([]any, 0, v.Len())
		for _, e := range v.Elements() {
			out = append(out, e.Any())
		}
		return out
	}
	out := make(map[string]any, v.Len())
	for name, m := range v.Members() {
		out[name] = m.Any()
	}
	return out
}

func (v Value) String() string {
	if v.doc == nil {
		return "<missing>"
	}
	return fmt.Sprintf("%s %s", v.Kind(), v.Text())
}
