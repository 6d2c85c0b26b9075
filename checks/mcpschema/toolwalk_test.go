package mcpschema

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpwatch/mcpwatch/jsondoc"
	"github.com/santhosh-tekuri/jsonschema/v5"
)

// libraryVerdict is the jsonschema library's judgement of a tool schema, as ToolSchema made
// it before the walker: the metaschema, then the compiler where references may point
// nowhere. decided is false when the library itself failed (it panics on numbers beyond
// what big.Rat reads).
func libraryVerdict(t testing.TB, v *Validator, draft *jsonschema.Draft, raw []byte) (valid, decided bool) {
	t.Helper()
	doc, err := Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	metas, err := v.metaschemas()
	if err != nil {
		t.Fatal(err)
	}
	panicked := false
	err = func() error {
		defer func() {
			if recover() != nil {
				panicked = true
			}
		}()
		return metas[draft].Validate(doc)
	}()
	switch {
	case panicked:
		return false, false
	case err != nil:
		return false, true
	case needsCompile(doc):
		return compileToolSchema(draft, string(raw)) == nil, true
	}
	return true, true
}

func walkerVerdict(t testing.TB, v *Validator, draft *jsonschema.Draft, raw []byte) walkVerdict {
	t.Helper()
	doc, err := jsondoc.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	w := toolWalker{draft2020: draft == jsonschema.Draft2020, patterns: v.patterns}
	return w.walk(doc.Root())
}

// assertWalkerAgrees fails unless the walker's verdict on a schema is the library's (or
// the walker left it to the library). It returns the walker's verdict.
func assertWalkerAgrees(t testing.TB, v *Validator, draft *jsonschema.Draft, raw []byte) walkVerdict {
	t.Helper()
	got := walkerVerdict(t, v, draft, raw)
	if got == walkUnsure {
		return got
	}
	valid, decided := libraryVerdict(t, v, draft, raw)
	if decided && valid != (got == walkValid) {
		t.Fatalf("%s %s: walker says valid=%v, the library valid=%v", dialectName(draft), raw, got == walkValid, valid)
	}
	return got
}

// dialectsFor are the dialects a corpus schema is judged in: its own when it names one,
// both the walker knows otherwise.
func dialectsFor(t testing.TB, schema []byte) []*jsonschema.Draft {
	var head struct {
		Schema *string `json:"$schema"`
	}
	if err := json.Unmarshal(schema, &head); err != nil {
		t.Fatal(err)
	}
	if head.Schema != nil {
		return []*jsonschema.Draft{dialectOf(*head.Schema)}
	}
	return []*jsonschema.Draft{jsonschema.Draft7, jsonschema.Draft2020}
}

type toolSchemaCase struct {
	Name   string          `json:"name"`
	Schema json.RawMessage `json:"schema"`
}

// loadToolSchemas is testdata/toolschemas.json: the tool schemas of real servers (the npm
// and Go reference servers, mcp-go's examples, the conformance servers) and hand-written
// ones, valid and invalid, for every keyword's shape.
func loadToolSchemas(t testing.TB) []toolSchemaCase {
	raw, err := os.ReadFile(filepath.Join("testdata", "toolschemas.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cs []toolSchemaCase
	if err := json.Unmarshal(raw, &cs); err != nil {
		t.Fatal(err)
	}
	return cs
}

func TestWalkerAgreesWithTheLibraryOnTheToolSchemaCorpus(t *testing.T) {
	v := newValidator(t)
	verdicts := map[walkVerdict]int{}
	for _, c := range loadToolSchemas(t) {
		for _, draft := range dialectsFor(t, c.Schema) {
			got := assertWalkerAgrees(t, v, draft, c.Schema)
			verdicts[got]++
			doc, _ := Decode(c.Schema)
			if got == walkUnsure && !needsCompile(doc) {
				t.Errorf("%s (%s): the walker left a schema without references to the library", c.Name, dialectName(draft))
			}
		}
	}
	if verdicts[walkValid] < 40 || verdicts[walkInvalid] < 20 {
		t.Errorf("verdicts %v: the corpus should hold both valid and invalid schemas", verdicts)
	}
}

// keywordShapes are values of every JSON type and the shapes keywords ask for: each is tried
// as the value of each keyword.
var keywordShapes = []string{
	`null`, `true`, `0`, `1`, `-1`, `1.5`, `2.0`, `1e2`,
	`"x"`, `"^a+$"`, `"(["`, `"(?!x)"`, `"string"`, `"strin"`,
	`[]`, `[1]`, `["x"]`, `["x","x"]`, `["string","number"]`, `["string","string"]`,
	`[1,1.0]`, `[{"a":1},{"a":1.0}]`, `[{}]`, `[{"type":"strin"}]`,
	`{}`, `{"a":{}}`, `{"a":1}`, `{"a":["x","x"]}`, `{"([":{}}`, `{"type":5}`, `{"a":{"type":"strin"}}`,
}

// metaKeywords are every keyword the draft-07 and 2020-12 metaschemas name, and two they do
// not.
var metaKeywords = []string{
	"$comment", "title", "description", "default", "readOnly", "writeOnly", "deprecated", "examples",
	"multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum", "maxLength", "minLength",
	"pattern", "additionalItems", "items", "prefixItems", "maxItems", "minItems", "uniqueItems", "contains",
	"maxContains", "minContains", "maxProperties", "minProperties", "required", "additionalProperties",
	"definitions", "$defs", "properties", "patternProperties", "dependencies", "dependentSchemas",
	"dependentRequired", "propertyNames", "const", "enum", "type", "format", "contentMediaType",
	"contentEncoding", "contentSchema", "if", "then", "else", "allOf", "anyOf", "oneOf", "not",
	"unevaluatedItems", "unevaluatedProperties", "nullable", "x-extension",
}

// shapeTemplates place a keyword (with its value) in a tool schema: at the root, in a
// property's schema, and where the 2020-12 metaschema judges by one vocabulary only (see
// vocabulary).
var shapeTemplates = []string{
	`{"$schema":%q,"type":"object",%q:%s}`,
	`{"$schema":%q,"type":"object","properties":{"p":{%q:%s}}}`,
	`{"$schema":%q,"type":"object","properties":{"p":{"definitions":{"d":{%q:%s}}}}}`,
	`{"$schema":%q,"type":"object","definitions":{"d":{"items":{"dependencies":{"e":{%q:%s}}}}}}`,
	`{"$schema":%q,"type":"object","$defs":{"d":{"definitions":{"e":{%q:%s}}}}}`,
	`{"$schema":%q,"type":"object","contentSchema":{"dependencies":{"e":{"not":{%q:%s}}}}}`,
	`{"$schema":%q,"type":"object","unevaluatedProperties":{"definitions":{"e":{%q:%s}}}}`,
}

// TestWalkerAgreesWithTheLibraryOnEveryKeywordShape tries every keyword with every shape of
// value in every place of shapeTemplates, in both dialects.
func TestWalkerAgreesWithTheLibraryOnEveryKeywordShape(t *testing.T) {
	v := newValidator(t)
	dialects := map[*jsonschema.Draft]string{
		jsonschema.Draft7:    "http://json-schema.org/draft-07/schema#",
		jsonschema.Draft2020: "https://json-schema.org/draft/2020-12/schema",
	}
	n := 0
	for draft, url := range dialects {
		for _, k := range metaKeywords {
			for _, shape := range keywordShapes {
				templates := shapeTemplates
				if draft == jsonschema.Draft7 {
					templates = templates[:3] // the rest are about 2020-12's vocabularies
				}
				for _, tmpl := range templates {
					n++
					if raceDetector && n%4 != 0 {
						continue
					}
					raw := []byte(fmt.Sprintf(tmpl, url, k, shape))
					if assertWalkerAgrees(t, v, draft, raw) == walkUnsure {
						t.Fatalf("%s: unsure about a schema without references", raw)
					}
				}
			}
		}
	}
	t.Logf("%d schemas made", n)
}

// FuzzWalkerAgreesWithTheLibrary: on any schema object, the walker's verdict is the
// library's.
func FuzzWalkerAgreesWithTheLibrary(f *testing.F) {
	for _, c := range loadToolSchemas(f) {
		f.Add([]byte(c.Schema), false)
	}
	v := newValidator(f)
	f.Fuzz(func(t *testing.T, raw []byte, draft2020 bool) {
		doc, err := jsondoc.Parse(raw)
		if err != nil || doc.Root().Kind() != jsondoc.Object || doc.Nodes() > 2000 {
			return
		}
		draft := jsonschema.Draft7
		if draft2020 {
			draft = jsonschema.Draft2020
		}
		if s := doc.Root().Get("$schema"); s.Exists() {
			if s.Kind() != jsondoc.String {
				return
			}
			draft = dialectOf(s.Str())
		}
		if draft != jsonschema.Draft7 && draft != jsonschema.Draft2020 {
			return
		}
		assertWalkerAgrees(t, v, draft, raw)
	})
}

func BenchmarkToolSchemaJudgement(b *testing.B) {
	v := newValidator(b)
	var schemas [][]byte
	for _, c := range loadToolSchemas(b) {
		schemas = append(schemas, c.Schema)
	}
	b.Run("walker", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			walkerVerdict(b, v, jsonschema.Draft7, schemas[i%len(schemas)])
		}
	})
	b.Run("library", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			libraryVerdict(b, v, jsonschema.Draft7, schemas[i%len(schemas)])
		}
	})
}
