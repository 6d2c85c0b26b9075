package mcpschema

import (
	"slices"
	"strconv"

	"github.com/mcpwatch/mcpwatch/jsondoc"
)

// walkVerdict is what the tool schema walker concluded.
type walkVerdict uint8

const (
	walkValid   walkVerdict = iota // valid against the dialect's metaschema; nothing to compile
	walkInvalid                    // breaks the metaschema
	walkUnsure                     // beyond the walker: references, identifiers, a nested $schema
)

// toolWalker judges a tool schema against the metaschema of draft-07 or 2020-12 by reading
// it once, keyword by keyword, the metaschemas' rules written out by hand. Validating with
// the library's compiled metaschema costs tens of microseconds and hundreds of allocations
// per schema; this costs a few microseconds and none. Its "valid" is final; "invalid" and
// "unsure" go to the library (judgeToolSchema), which says why or decides. Tests hold the
// walker to the library's verdicts on every schema they have.
type toolWalker struct {
	draft2020 bool
	patterns  *patternCache
}

// vocabulary is one of the 2020-12 metaschema's vocabularies that have subschemas.
//
// The library resolves the metaschema's "$dynamicRef": "#meta" to the outermost dynamic
// anchor in its scope, and the two keywords only the 2020-12 metaschema's root defines
// (definitions and dependencies) refer back to that root. Reached anywhere but at the root
// of a tool schema, their subschemas are therefore judged by the vocabulary through which the
// walk first left the root (applicator for properties, items and the like, core for $defs),
// not by the whole metaschema; below that, by the whole metaschema again. The walker does the
// same, so that its verdicts are the library's.
type vocabulary uint8

const (
	vocabNone vocabulary = iota // as a path's first vocabulary: the root; as a judge: all of them
	vocabCore
	vocabApplicator
	vocabUnevaluated
	vocabContent
	vocabOther // validation, meta-data, format-annotation: no subschemas
	vocabRoot  // the keywords of the metaschema's root only: definitions, dependencies
)

// position is where a subschema sits: the first vocabulary of its path from the root, and
// the vocabulary judging it (vocabNone: the whole metaschema).
type position struct {
	first, judge vocabulary
}

// vocabularyOf is the 2020-12 vocabulary a keyword belongs to.
func vocabularyOf(keyword string) vocabulary {
	switch keyword {
	case "$defs", "$comment", "$schema":
		return vocabCore
	case "prefixItems", "items", "contains", "additionalProperties", "properties", "patternProperties",
		"dependentSchemas", "propertyNames", "if", "then", "else", "allOf", "anyOf", "oneOf", "not":
		return vocabApplicator
	case "unevaluatedItems", "unevaluatedProperties":
		return vocabUnevaluated
	case "contentEncoding", "contentMediaType", "contentSchema":
		return vocabContent
	case "definitions", "dependencies":
		return vocabRoot
	}
	return vocabOther
}

// below is the position of the subschemas of keyword k of a schema at p.
func (w *toolWalker) below(p position, k string) position {
	if !w.draft2020 {
		return position{}
	}
	kv := vocabularyOf(k)
	if kv == vocabRoot {
		return position{first: p.first, judge: p.first}
	}
	if p.first == vocabNone {
		return position{first: kv}
	}
	return position{first: p.first}
}

// isRefKeyword: these make a schema depend on resolving references or identifiers. The
// library compiles such a schema (see needsCompile), and the walker leaves it to it.
func isRefKeyword(name string) bool {
	switch name {
	case "$ref", "$dynamicRef", "$recursiveRef", "$id", "$anchor", "$dynamicAnchor", "$recursiveAnchor", "$vocabulary":
		return true
	}
	return false
}

// walk judges a tool schema: a schema object at the root of its own document, or a member
// of a larger one (a tools/list page).
func (w *toolWalker) walk(root jsondoc.Value) walkVerdict {
	// As needsCompile does, look at every member name, not only those in schema positions.
	for name := range root.Names() {
		if isRefKeyword(name) {
			return walkUnsure
		}
	}
	return w.schema(root, position{}, true)
}

func (w *toolWalker) schema(v jsondoc.Value, at position, root bool) walkVerdict {
	switch v.Kind() {
	case jsondoc.True, jsondoc.False:
		return walkValid
	case jsondoc.Object:
	default:
		return walkInvalid
	}
	verdict := walkValid
	for name, val := range v.Members() {
		if w.draft2020 && at.judge != vocabNone && vocabularyOf(name) != at.judge {
			continue // not this vocabulary's to judge
		}
		switch w.keyword(name, val, w.below(at, name), root) {
		case walkInvalid:
			return walkInvalid
		case walkUnsure:
			verdict = walkUnsure
		}
	}
	return verdict
}

// keyword judges one member of a schema object by the metaschema's rule for it. Members the
// metaschema does not name may hold anything.
func (w *toolWalker) keyword(name string, v jsondoc.Value, sub position, root bool) walkVerdict {
	switch name {
	case "$schema":
		if root {
			return walkValid // judgeToolSchema has read it: a known dialect's URL
		}
		return walkUnsure
	case "$comment", "title", "description", "format", "contentMediaType", "contentEncoding":
		return is(v.Kind() == jsondoc.String)
	case "default", "const":
		return walkValid
	case "examples":
		return is(v.Kind() == jsondoc.Array)
	case "readOnly", "writeOnly", "uniqueItems":
		return is(isBool(v))
	case "multipleOf":
		return is(v.Kind() == jsondoc.Number && jsondoc.Sign(v.Text()) > 0)
	case "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum":
		return is(v.Kind() == jsondoc.Number)
	case "maxLength", "minLength", "maxItems", "minItems", "maxProperties", "minProperties":
		return is(nonNegativeInteger(v))
	case "pattern":
		return is(v.Kind() == jsondoc.String && w.patterns.compiles(v.Str()))
	case "contains", "additionalProperties", "propertyNames", "if", "then", "else", "not":
		return w.schema(v, sub, false)
	case "required":
		return is(stringArray(v))
	case "properties", "definitions":
		return w.schemaMap(v, sub, false)
	case "patternProperties":
		return w.schemaMap(v, sub, true)
	case "dependencies":
		return w.dependencies(v, sub)
	case "type":
		return is(typeKeyword(v))
	case "allOf", "anyOf", "oneOf":
		return w.schemaArray(v, sub)
	case "enum":
		if w.draft2020 {
			return is(v.Kind() == jsondoc.Array)
		}
		return is(v.Kind() == jsondoc.Array && v.Len() > 0 && uniqueValues(v))
	}
	if w.draft2020 {
		return w.keyword2020(name, v, sub)
	}
	return w.keyword07(name, v)
}

// keyword07 covers what only draft-07 names.
func (w *toolWalker) keyword07(name string, v jsondoc.Value) walkVerdict {
	switch name {
	case "additionalItems":
		return w.schema(v, position{}, false)
	case "items":
		if v.Kind() == jsondoc.Array {
			return w.schemaArray(v, position{})
		}
		return w.schema(v, position{}, false)
	}
	return walkValid
}

// keyword2020 covers what only 2020-12 names.
func (w *toolWalker) keyword2020(name string, v jsondoc.Value, sub position) walkVerdict {
	switch name {
	case "$defs", "dependentSchemas":
		return w.schemaMap(v, sub, false)
	case "prefixItems":
		return w.schemaArray(v, sub)
	case "items", "unevaluatedItems", "unevaluatedProperties", "contentSchema":
		return w.schema(v, sub, false)
	case "maxContains", "minContains":
		return is(nonNegativeInteger(v))
	case "dependentRequired":
		if v.Kind() != jsondoc.Object {
			return walkInvalid
		}
		for _, list := range v.Members() {
			if !stringArray(list) {
				return walkInvalid
			}
		}
		return walkValid
	case "deprecated":
		return is(isBool(v))
	}
	return walkValid
}

// schemaMap judges an object whose member values are schemas; with patternNames its member
// names must be regular expressions too.
func (w *toolWalker) schemaMap(v jsondoc.Value, at position, patternNames bool) walkVerdict {
	if v.Kind() != jsondoc.Object {
		return walkInvalid
	}
	verdict := walkValid
	for name, s := range v.Members() {
		if patternNames && !w.patterns.compiles(name) {
			return walkInvalid
		}
		switch w.schema(s, at, false) {
		case walkInvalid:
			return walkInvalid
		case walkUnsure:
			verdict = walkUnsure
		}
	}
	return verdict
}

// schemaArray judges a non-empty array of schemas.
func (w *toolWalker) schemaArray(v jsondoc.Value, at position) walkVerdict {
	if v.Kind() != jsondoc.Array || v.Len() == 0 {
		return walkInvalid
	}
	verdict := walkValid
	for _, s := range v.Elements() {
		switch w.schema(s, at, false) {
		case walkInvalid:
			return walkInvalid
		case walkUnsure:
			verdict = walkUnsure
		}
	}
	return verdict
}

// dependencies: each member is a schema or an array of unique strings.
func (w *toolWalker) dependencies(v jsondoc.Value, at position) walkVerdict {
	if v.Kind() != jsondoc.Object {
		return walkInvalid
	}
	verdict := walkValid
	for _, d := range v.Members() {
		if d.Kind() == jsondoc.Array {
			if !stringArray(d) {
				return walkInvalid
			}
			continue
		}
		switch w.schema(d, at, false) {
		case walkInvalid:
			return walkInvalid
		case walkUnsure:
			verdict = walkUnsure
		}
	}
	return verdict
}

func is(ok bool) walkVerdict {
	if ok {
		return walkValid
	}
	return walkInvalid
}

func isBool(v jsondoc.Value) bool { return v.Kind() == jsondoc.True || v.Kind() == jsondoc.False }

// nonNegativeInteger: an integral number (2.0 counts) not below zero.
func nonNegativeInteger(v jsondoc.Value) bool {
	return v.Kind() == jsondoc.Number && jsondoc.IsInteger(v.Text()) && jsondoc.Sign(v.Text()) >= 0
}

// stringArray: an array of strings, none repeated.
func stringArray(v jsondoc.Value) bool {
	if v.Kind() != jsondoc.Array {
		return false
	}
	for _, e := range v.Elements() {
		if e.Kind() != jsondoc.String {
			return false
		}
	}
	return uniqueValues(v)
}

// isSimpleType: the type names of JSON Schema.
func isSimpleType(name string) bool {
	switch name {
	case "array", "boolean", "integer", "null", "number", "object", "string":
		return true
	}
	return false
}

// typeKeyword: a simple type name, or a non-empty array of distinct ones.
func typeKeyword(v jsondoc.Value) bool {
	switch v.Kind() {
	case jsondoc.String:
		return isSimpleType(v.Str())
	case jsondoc.Array:
		if v.Len() == 0 {
			return false
		}
		for _, e := range v.Elements() {
			if e.Kind() != jsondoc.String || !isSimpleType(e.Str()) {
				return false
			}
		}
		return uniqueValues(v)
	}
	return false
}

// uniqueValues reports whether no two elements of an array are equal as JSON Schema compares
// values (numbers by value, objects whatever their member order).
func uniqueValues(v jsondoc.Value) bool {
	n := v.Len()
	if n < 2 {
		return true
	}
	if n <= 8 {
		// Few elements: compare their keys pair by pair, without a map.
		keys := make([]string, 0, n)
		for _, e := range v.Elements() {
			k := string(valueKey(nil, e))
			if slices.Contains(keys, k) {
				return false
			}
			keys = append(keys, k)
		}
		return true
	}
	seen := make(map[string]struct{}, n)
	var buf []byte
	for _, e := range v.Elements() {
		buf = valueKey(buf[:0], e)
		if _, dup := seen[string(buf)]; dup {
			return false
		}
		seen[string(buf)] = struct{}{}
	}
	return true
}

// valueKey appends a text that two values share exactly when they are equal: numbers in a
// normal form, strings decoded and quoted, members sorted by name.
func valueKey(b []byte, v jsondoc.Value) []byte {
	switch v.Kind() {
	case jsondoc.Null:
		return append(b, 'n')
	case jsondoc.True:
		return append(b, 't')
	case jsondoc.False:
		return append(b, 'f')
	case jsondoc.Number:
		return append(append(b, '#'), jsondoc.NormalNumber(v.Text())...)
	case jsondoc.String:
		return strconv.AppendQuote(b, v.Str())
	case jsondoc.Array:
		b = append(b, '[')
		for _, e := range v.Elements() {
			b = append(valueKey(b, e), ',')
		}
		return append(b, ']')
	}
	type member struct {
		name string
		v    jsondoc.Value
	}
	ms := make([]member, 0, v.Len())
	for name, m := range v.Members() {
		ms = append(ms, member{name, m})
	}
	slices.SortFunc(ms, func(a, b member) int {
		switch {
		case a.name < b.name:
			return -1
		case a.name > b.name:
			return 1
		}
		return 0
	})
	b = append(b, '{')
	for _, m := range ms {
		b = strconv.AppendQuote(b, m.name)
		b = append(valueKey(append(b, ':'), m.v), ',')
	}
	return append(b, '}')
}
