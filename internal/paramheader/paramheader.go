// Package paramheader is the x-mcp-header extension of 2026-07-28 in one place: finding the
// annotations of a tool's inputSchema and saying what makes them invalid (the check
// tools.x-mcp-header), building the Mcp-Param-{Name} headers of a tools/call from its
// arguments and encoding header values (the probe), and decoding and comparing them with the
// body (the fixture server, which validates them as a server must).
//
// 2026-07-28 basic/transports/streamable-http, "Custom Headers from Tool Parameters" and
// "Value Encoding"; server/tools, "x-mcp-header".
package paramheader

import (
	"encoding/base64"
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/mcpwatch/mcpwatch/internal/httptoken"
	"github.com/mcpwatch/mcpwatch/internal/textclip"
	"github.com/mcpwatch/mcpwatch/jsondoc"
)

// Prefix starts the name of every header mirrored from a tool parameter.
const Prefix = "Mcp-Param-"

// The markers of a Base64-encoded header value; "These markers are case-sensitive and MUST
// appear exactly as shown (lowercase)".
const (
	sentinelStart = "=?base64?"
	sentinelEnd   = "?="
)

// Annotation is one x-mcp-header annotation found in an inputSchema.
type Annotation struct {
	// At is where the annotated schema sits, as a path of schema keywords from the start
	// given to Find (inputSchema/properties/region, for instance).
	At string
	// Value is the annotation's value: the name part of the header when it is valid.
	Value jsondoc.Value
	// Schema is the annotated schema.
	Schema jsondoc.Value
	// Path is the chain of property names from the root that leads to the annotated
	// property; nil unless it is reachable through properties alone.
	Path []string
	// Reachable: reached from the root through properties alone; Root: the annotation is on
	// the root schema itself (no parameter).
	Reachable, Root bool
}

// Keywords whose values are schemas (or maps or arrays of schemas); data keywords (const,
// enum, default, examples) are never walked, so a default value holding an "x-mcp-header"
// member is not mistaken for an annotation.
var (
	schemaMapKeywords   = [...]string{"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"}
	schemaArrayKeywords = [...]string{"allOf", "anyOf", "oneOf", "prefixItems"}
	schemaKeywords      = [...]string{"additionalProperties", "items", "contains", "not", "if", "then", "else",
		"propertyNames", "unevaluatedProperties", "unevaluatedItems", "additionalItems"}
)

// maxDepth bounds the walk of a hostile schema.
const maxDepth = 64

// Find collects the x-mcp-header annotations of an inputSchema, wherever they sit (an
// annotation that is not statically reachable is found too: it makes the tool invalid).
// at names the schema in Annotation.At.
func Find(schema jsondoc.Value, at string) []Annotation {
	var out []Annotation
	walk(schema, at, []string{}, true, &out, 0)
	return out
}

func walk(s jsondoc.Value, at string, path []string, root bool, out *[]Annotation, depth int) {
	if s.Kind() != jsondoc.Object || depth > maxDepth {
		return
	}
	if v := s.Get("x-mcp-header"); v.Exists() {
		a := Annotation{At: at, Value: v, Schema: s, Reachable: path != nil, Root: root}
		if path != nil && !root {
			a.Path = append([]string(nil), path...)
		}
		*out = append(*out, a)
	}
	for _, kw := range schemaMapKeywords {
		m := s.Get(kw)
		if m.Kind() != jsondoc.Object {
			continue
		}
		for name, child := range m.Members() {
			var next []string
			if path != nil && kw == "properties" {
				next = append(path[:len(path):len(path)], name)
			}
			walk(child, at+"/"+kw+"/"+name, next, false, out, depth+1)
		}
	}
	for _, kw := range schemaArrayKeywords {
		a := s.Get(kw)
		if a.Kind() != jsondoc.Array {
			continue
		}
		for i, child := range a.Elements() {
			walk(child, fmt.Sprintf("%s/%s/%d", at, kw, i), nil, false, out, depth+1)
		}
	}
	for _, kw := range schemaKeywords {
		c := s.Get(kw)
		if c.Kind() == jsondoc.Array { // items as an array (draft-07 tuples)
			for i, child := range c.Elements() {
				walk(child, fmt.Sprintf("%s/%s/%d", at, kw, i), nil, false, out, depth+1)
			}
			continue
		}
		walk(c, at+"/"+kw, nil, false, out, depth+1)
	}
}

// Faults says what is wrong with one annotation on its own (uniqueness is Problems'): its
// value "MUST NOT be empty", "MUST match HTTP field-name token syntax", and it "MUST only be
// applied to parameters with primitive types (integer, string, boolean)" that are
// "statically reachable from the schema root".
func (a Annotation) Faults() []string {
	var out []string
	switch {
	case a.Value.Kind() != jsondoc.String:
		out = append(out, "is "+describe(a.Value)+", not a string")
	case a.Value.Str() == "":
		out = append(out, "is empty")
	case !httptoken.Valid(a.Value.Str()):
		out = append(out, fmt.Sprintf("is %s, not an RFC 9110 token (1*tchar)", clipQuote(a.Value.Str())))
	}
	if a.Root || !a.Reachable {
		out = append(out, "is not on a property statically reachable from the root through properties alone")
	}
	switch t := a.Schema.Get("type"); {
	case t.Kind() == jsondoc.String && (t.Str() == "string" || t.Str() == "integer" || t.Str() == "boolean"):
	case t.Kind() == jsondoc.String:
		out = append(out, fmt.Sprintf("is on a parameter of type %s (only integer, string and boolean are allowed)", clipQuote(t.Str())))
	default:
		out = append(out, "is on a parameter without a single primitive type (integer, string or boolean)")
	}
	return out
}

// Problem is one reason a tool's annotations are invalid.
type Problem struct {
	Annotation Annotation
	// Text says what is wrong, to follow "x-mcp-header " in a message.
	Text string
}

// Problems are every reason the annotations of one inputSchema make the tool invalid, in the
// order found: each annotation's Faults, and a value that repeats an earlier one ("MUST be
// case-insensitively unique among all x-mcp-header values in the inputSchema").
func Problems(anns []Annotation) []Problem {
	var out []Problem
	seen := map[string]string{} // lower-cased value -> where first
	for _, a := range anns {
		for _, why := range a.Faults() {
			out = append(out, Problem{a, "at " + a.At + " " + why})
		}
		if a.Value.Kind() != jsondoc.String || a.Value.Str() == "" {
			continue
		}
		lower := strings.ToLower(a.Value.Str())
		if first, dup := seen[lower]; dup {
			out = append(out, Problem{a, fmt.Sprintf("%s at %s repeats the one at %s (values must be unique, case-insensitively)", clipQuote(a.Value.Str()), a.At, first)})
			continue
		}
		seen[lower] = a.At
	}
	return out
}

// Header is one Mcp-Param header of a request.
type Header struct {
	Name  string // Prefix + the annotation's value
	Value string // encoded (see Encode)
	// Path is the property path the value was read from, as /a/b.
	Path string
}

// Headers are the Mcp-Param headers a tools/call of the tool whose inputSchema is given
// carries for args: one per annotated property with a primitive value at its exact path
// ("If no value is present at that path in the call arguments, the header is omitted").
// It fails, naming the first problem, when the annotations are invalid: a client "MUST
// exclude the invalid tool" rather than call it.
func Headers(schema, args jsondoc.Value) ([]Header, error) {
	anns := Find(schema, "inputSchema")
	if ps := Problems(anns); len(ps) > 0 {
		return nil, fmt.Errorf("x-mcp-header %s", ps[0].Text)
	}
	var out []Header
	for _, a := range anns {
		v, ok := valueAt(args, a.Path)
		if !ok {
			continue
		}
		text, ok := Text(v)
		if !ok {
			continue
		}
		out = append(out, Header{Name: Prefix + a.Value.Str(), Value: Encode(text), Path: "/" + strings.Join(a.Path, "/")})
	}
	return out, nil
}

// valueAt is the instance value at a chain of property names.
func valueAt(doc jsondoc.Value, path []string) (jsondoc.Value, bool) {
	cur := doc
	for _, name := range path {
		if cur.Kind() != jsondoc.Object {
			return jsondoc.Value{}, false
		}
		cur = cur.Get(name)
		if !cur.Exists() {
			return jsondoc.Value{}, false
		}
	}
	return cur, cur.Exists()
}

// Text is the string form of a parameter value ("Type conversion"): a string as it is, an
// integer in decimal, a boolean as lowercase true or false. A number with a fraction (which
// the schema should have refused), null, an object or an array has none.
func Text(v jsondoc.Value) (string, bool) {
	switch v.Kind() {
	case jsondoc.String:
		return v.Str(), true
	case jsondoc.True:
		return "true", true
	case jsondoc.False:
		return "false", true
	case jsondoc.Number:
		n := v.Text()
		if i, err := strconv.ParseInt(n, 10, 64); err == nil {
			return strconv.FormatInt(i, 10), true
		}
		if !jsondoc.IsInteger(n) {
			return "", false
		}
		f, _, err := big.ParseFloat(n, 10, 256, big.ToNearestEven)
		if err != nil {
			return "", false
		}
		i, _ := f.Int(nil)
		return i.String(), true
	}
	return "", false
}

// Encode is a header value as a client sends it: as it is when it is plain (visible ASCII,
// space and tab, no leading or trailing whitespace, not looking like an encoded value),
// else "=?base64?{Base64 of the UTF-8}?=" ("Value Encoding": "clients MUST use Base64
// encoding", and "MUST also Base64-encode any plain-ASCII value that matches the sentinel
// pattern"). Mcp-Name is encoded the same way.
func Encode(s string) string {
	if plain(s) {
		return s
	}
	return sentinelStart + base64.StdEncoding.EncodeToString([]byte(s)) + sentinelEnd
}

// plain reports whether s may travel as a header value as it is.
func plain(s string) bool {
	if s == "" {
		return true
	}
	if s[0] == ' ' || s[0] == '\t' || s[len(s)-1] == ' ' || s[len(s)-1] == '\t' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= 0x21 && c <= 0x7e || c == ' ' || c == '\t') {
			return false
		}
	}
	return !Encoded(s)
}

// Encoded reports whether a header value has the form of a Base64-encoded one.
func Encoded(s string) bool {
	return len(s) >= len(sentinelStart)+len(sentinelEnd) && strings.HasPrefix(s, sentinelStart) && strings.HasSuffix(s, sentinelEnd)
}

// Decode is the value a header carries: decoded when it is Base64-encoded ("servers MUST
// decode an encoded Mcp-Name or Mcp-Param-{Name} value before comparing it"), as it is
// otherwise. It fails on a value that is no valid header value, or whose Base64 is broken.
func Decode(s string) (string, error) {
	if !Encoded(s) {
		for i := 0; i < len(s); i++ {
			if c := s[i]; !(c >= 0x21 && c <= 0x7e || c == ' ' || c == '\t') {
				return "", fmt.Errorf("the header value holds the byte %#x, which a plain value may not", c)
			}
		}
		return s, nil
	}
	raw, err := base64.StdEncoding.DecodeString(s[len(sentinelStart) : len(s)-len(sentinelEnd)])
	if err != nil {
		return "", fmt.Errorf("the Base64 of the header value is broken: %w", err)
	}
	return string(raw), nil
}

// describe names a JSON value for a message: its kind and its text, cut short.
func describe(v jsondoc.Value) string {
	kind := "an object"
	switch v.Kind() {
	case jsondoc.Null:
		return "null"
	case jsondoc.True, jsondoc.False:
		kind = "a boolean"
	case jsondoc.Number:
		kind = "a number"
	case jsondoc.Array:
		kind = "an array"
	}
	return kind + " " + textclip.Bytes(v.Text(), maxShown)
}

// maxShown bounds the bytes of a server's value a message quotes.
const maxShown = 200

// clipQuote quotes s for a message, cut short so that a hostile value cannot flood it.
func clipQuote(s string) string {
	return strconv.Quote(textclip.Bytes(s, maxShown))
}
