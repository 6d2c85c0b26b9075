package calls

import (
	"encoding/json"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/mcpwatch/mcpwatch/jsondoc"
)

func identity(s string) string { return s }

// renderArguments is the arguments block built from a schema, as the starter writes it.
func renderArguments(t *testing.T, schema string) string {
	t.Helper()
	doc, err := jsondoc.ParseString(schema)
	if err != nil {
		t.Fatal(err)
	}
	args, notes := starterArguments(doc.Root(), identity)
	lines, err := argumentLines(args, notes)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(lines, "\n")
}

// Each property's value is the first of examples[0], default, const and enum[0], else a
// placeholder of its type; required properties come first and are written as they are,
// optional ones commented out; objects are built from their properties, through $ref and
// allOf, down to a bounded depth.
func TestStarterArgumentsFromInputSchemas(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, schema, want string
	}{
		{"placeholders by type, required first in schema order",
			`{"type":"object","properties":{"opt":{"type":"string"},"s":{"type":"string"},"i":{"type":"integer"},"n":{"type":"number"},"b":{"type":"boolean"},"a":{"type":"array","items":{"type":"string"}},"o":{"type":"object"},"z":{"type":"null"},"x":{}},"required":["x","s","i","n","b","a","o","z"]}`,
			`s: ""  # string
i: 0  # integer
n: 0  # number
b: false  # boolean
a: []  # array
o: {}  # object
z: null  # null
x: null  # any type
# opt: ""  # string`},
		{"examples before default before const before enum",
			`{"type":"object","properties":{"e":{"type":"string","examples":["ex1","ex2"],"default":"d","enum":["a","b"]},"d":{"type":"string","default":"d","enum":["a","d"]},"c":{"const":"k","enum":["k"]},"en":{"type":"string","enum":["celsius","fahrenheit"]}},"required":["e","d","c","en"]}`,
			`e: ex1  # string, example, one of "a" "b"
d: d  # string, default, one of "a" "d"
c: k  # any type, const
en: celsius  # string, first of enum, one of "celsius" "fahrenheit"`},
		{"an empty examples array falls through to the default",
			`{"properties":{"p":{"type":"integer","examples":[],"default":7}}}`,
			`# p: 7  # integer, default`},
		{"a number keeps its minimum as the placeholder and its text as an example",
			`{"properties":{"id":{"type":"integer","minimum":1},"r":{"type":"number","examples":[2.50,1e3]}},"required":["id","r"]}`,
			`id: 1  # integer
r: 2.50  # number, example`},
		{"a nullable type is its other type",
			`{"properties":{"t":{"type":["null","string"]},"u":{"anyOf":[{"type":"null"},{"type":"boolean"}]}},"required":["t","u"]}`,
			`t: ""  # string
u: false  # boolean`},
		{"a nested object is built from its properties, its optional ones commented",
			`{"properties":{"where":{"type":"object","description":"Place.","properties":{"city":{"type":"string"},"zip":{"type":"string"}},"required":["city"]}},"required":["where"]}`,
			`where:  # object: Place.
  city: ""  # string
  # zip: ""  # string`},
		{"an optional nested object is commented whole",
			`{"properties":{"opts":{"properties":{"depth":{"type":"integer"},"verbose":{"type":"boolean"}},"required":["depth"]}}}`,
			`# opts:  # object
#   depth: 0  # integer
#   # verbose: false  # boolean`},
		{"a required object whose fields are all optional is {}, its fields notes",
			`{"properties":{"opts":{"type":"object","properties":{"depth":{"type":"integer"},"verbose":{"type":"boolean"}}}},"required":["opts"]}`,
			`opts: {}  # object; every field optional: to send some, write them in place of {}
  ## depth: 0  # integer
  ## verbose: false  # boolean`},
		{"an optional object whose fields are all optional is {} commented",
			`{"properties":{"opts":{"properties":{"deep":{"properties":{"x":{"type":"string"}},"required":["x"]}}}}}`,
			`# opts: {}  # object; every field optional: to send some, write them in place of {}
#   ## deep:  # object
#   ##   x: ""  # string`},
		{"$ref into $defs and definitions, keywords beside the $ref winning",
			`{"$defs":{"Unit":{"type":"string","enum":["c","f"],"description":"Unit."}},"definitions":{"Pos":{"type":"object","properties":{"lat":{"type":"number"}},"required":["lat"]}},"properties":{"u":{"$ref":"#/$defs/Unit","default":"f"},"p":{"$ref":"#/definitions/Pos"}},"required":["u","p"]}`,
			`u: f  # string, default, one of "c" "f": Unit.
p:  # object
  lat: 0  # number`},
		{"a recursive $ref stops at the depth bound",
			`{"$defs":{"Node":{"type":"object","properties":{"next":{"$ref":"#/$defs/Node"}},"required":["next"]}},"properties":{"n":{"$ref":"#/$defs/Node"}},"required":["n"]}`,
			`n:  # object
  next:  # object
    next:  # object
      next:  # object
        next: {}  # object`},
		{"a $ref to itself and a $ref elsewhere are not followed",
			`{"properties":{"self":{"$ref":"#/properties/self"},"far":{"$ref":"https://example.com/s.json"},"anchor":{"$ref":"#thing"}},"required":["self","far","anchor"]}`,
			`self: null  # any type
far: null  # any type
anchor: null  # any type`},
		{"allOf branches add properties and requirements",
			`{"allOf":[{"properties":{"a":{"type":"string"}}},{"properties":{"b":{"type":"integer"}},"required":["b"]}]}`,
			`b: 0  # integer
# a: ""  # string`},
		{"a required name without a property schema",
			`{"type":"object","required":["ghost"]}`,
			`ghost: null  # any type`},
		{"an example object is written in flow style with its member order",
			`{"properties":{"q":{"type":"object","examples":[{"z":1,"a":["x y",true,null],"<<":"m"}]}},"required":["q"]}`,
			`q: {z: 1, a: [x y, true, null], "<<": m}  # object, example`},
		{"names and values that need quoting are quoted by the encoder",
			`{"properties":{"a: b":{"type":"string","default":"#not a comment"},"yes":{"const":"123"},"multi\nline":{"default":"one\ntwo"},"<<":{"type":"boolean"},"-":{"type":"string","default":" lead"}},"required":["a: b","yes","multi\nline","<<","-"]}`,
			`'a: b': '#not a comment'  # string, default
yes: "123"  # any type, const
"multi\nline": "one\ntwo"  # any type, default
"<<": false  # boolean
'-': ' lead'  # string, default`},
		{"a description is one line, cut, without control characters",
			`{"properties":{"p":{"type":"string","description":"First line.\nSecond\u2028line\u0007 and a very long tail that goes on and on and on past the bound of a comment line in the file"}},"required":["p"]}`,
			`p: ""  # string: First line. Second line and a very long tail that goes on and on and on past the bound of a…`},
		{"no properties", `{"type":"object"}`, ``},
		{"a schema that is not an object", `{"type":"string"}`, ``},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := renderArguments(t, tc.schema); got != tc.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

// Every argument the builder writes, uncommented, parses back to the value it came from:
// the YAML is the encoder's, whatever the names and values hold.
func TestStarterArgumentsRoundTripHostileText(t *testing.T) {
	t.Parallel()
	hostile := []string{"", "plain", "a: b", "# c", "x #y", "'", `"`, "\\", "{[", "]}", ",", "- item", "? key", "!tag", "&a", "*a",
		"%x", "@x", "`x", "|", ">", "~", "null", "true", "0x1F", "1e3", "<<", " lead", "trail ", "tab\there", "line\nbreak",
		"cr\rreturn", "nel\u0085", "ls\u2028", "ps\u2029", "bom\ufeff", "nul\x00", "bell\x07", "é ü 日本", "😀", "\u00a0nbsp"}
	props := map[string]any{}
	want := map[string]any{}
	for i, h := range hostile {
		key := h + "#" + string(rune('a'+i%26))
		props[key] = map[string]any{"type": "string", "default": h}
		want[key] = h
	}
	names := make([]string, 0, len(props))
	for k := range props {
		names = append(names, k)
	}
	schema, _ := json.Marshal(map[string]any{"type": "object", "properties": props, "required": names})
	text := renderArguments(t, string(schema))
	var got map[string]any
	if err := yaml.Unmarshal([]byte(text), &got); err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	gotJSON, _ := json.Marshal(got)
	wantJSON, _ := json.Marshal(want)
	if string(gotJSON) != string(wantJSON) {
		t.Errorf("got  %s\nwant %s\n%s", gotJSON, wantJSON, text)
	}
}

// An object whose fields are all optional is sent as {} however often its lines are
// uncommented: the fields are notes, never a block mapping left without members (null).
func TestStarterArgumentsObjectWithOnlyOptionalFieldsStaysAnObject(t *testing.T) {
	t.Parallel()
	text := "arguments:\n" + indent(renderArguments(t,
		`{"properties":{"must":{"type":"object","properties":{"a":{"type":"integer"}}},"may":{"properties":{"b":{"type":"string"}}}},"required":["must"]}`))
	// As rendered is the entry uncommented once; the optional arguments need a second pass.
	for pass, want := range []string{`{"must":{}}`, `{"may":{},"must":{}}`} {
		if pass > 0 {
			text = uncomment("\ncalls:\n" + text)[len("\ncalls:\n"):]
		}
		var got struct{ Arguments map[string]any }
		if err := yaml.Unmarshal([]byte(text), &got); err != nil {
			t.Fatalf("uncommented %d times: %v\n%s", pass+1, err, text)
		}
		if j, _ := json.Marshal(got.Arguments); string(j) != want {
			t.Errorf("uncommented %d times: arguments %s, want %s\n%s", pass+1, j, want, text)
		}
	}
}

func indent(s string) string {
	return "  " + strings.ReplaceAll(s, "\n", "\n  ")
}
