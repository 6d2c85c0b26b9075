package mcpschema

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"testing"

	"github.com/mcpwatch/mcpwatch/jsondoc"
)

// libraryMatches is the jsonschema library's verdict on a document; decided is false when
// the library itself failed (it panics on numbers beyond what big.Rat reads).
func libraryMatches(t testing.TB, v *Validator, rev, def string, raw []byte) (valid, decided bool) {
	t.Helper()
	s, err := v.revisions[rev].librarySchema(def)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := Decode(raw)
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
		return s.Validate(doc)
	}()
	return err == nil, !panicked
}

func matcherMatches(t testing.TB, v *Validator, rev, def string, raw []byte) bool {
	t.Helper()
	_, m, err := v.definition(rev, def)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsondoc.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return m.match(doc.Root())
}

func assertMatcherAgrees(t testing.TB, v *Validator, rev, def string, raw []byte) bool {
	t.Helper()
	got := matcherMatches(t, v, rev, def, raw)
	want, decided := libraryMatches(t, v, rev, def, raw)
	if decided && got != want {
		t.Fatalf("%s %s %s: matcher says valid=%v, the library valid=%v", rev, def, raw, got, want)
	}
	return got
}

func TestMatcherAgreesWithTheLibraryOnTheCorpus(t *testing.T) {
	v := newValidator(t)
	for _, rev := range v.Revisions() {
		for _, c := range loadCorpus(t, rev) {
			if got := assertMatcherAgrees(t, v, rev, c.Definition, c.Doc); got != c.Valid {
				t.Errorf("%s %s: matcher says valid=%v, the corpus %v", rev, c.Name, got, c.Valid)
			}
		}
	}
}

// memberShapes replace a member's value in mutated corpus documents: every JSON type, and
// the values the schemas' formats, enums and bounds turn on.
var memberShapes = []string{
	`null`, `true`, `1`, `-1`, `1.5`, `"x"`, `"2.0"`, `"object"`, `"https://a.example/x"`, `"/rel"`,
	`"user"`, `[]`, `["x"]`, `{}`,
}

// mutations are a document with, in turn, each member anywhere in it removed or replaced by
// each of memberShapes, and each array element replaced likewise.
func mutations(t testing.TB, raw []byte) [][]byte {
	doc, err := Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	emit := func() {
		b, err := json.Marshal(doc)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			names := make([]string, 0, len(v))
			for k := range v {
				names = append(names, k)
			}
			sort.Strings(names)
			for _, k := range names {
				old := v[k]
				delete(v, k)
				emit()
				for _, s := range memberShapes {
					v[k] = mustDecodeValue(t, s)
					emit()
				}
				v[k] = old
				walk(old)
			}
		case []any:
			for i, old := range v {
				for _, s := range memberShapes {
					v[i] = mustDecodeValue(t, s)
					emit()
				}
				v[i] = old
				walk(old)
			}
		}
	}
	walk(doc)
	return out
}

func mustParse(t testing.TB, s string) jsondoc.Value {
	doc, err := jsondoc.ParseString(s)
	if err != nil {
		t.Fatal(err)
	}
	return doc.Root()
}

func mustDecodeValue(t testing.TB, s string) any {
	v, err := Decode([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestMatcherAgreesWithTheLibraryOnMutatedCorpus: every corpus document, broken member by
// member, is judged alike by the matcher and by the library.
func TestMatcherAgreesWithTheLibraryOnMutatedCorpus(t *testing.T) {
	v := newValidator(t)
	n := 0
	for _, rev := range v.Revisions() {
		for _, c := range loadCorpus(t, rev) {
			if !c.Valid {
				continue // the valid ones reach every part of the schemas
			}
			for _, doc := range mutations(t, c.Doc) {
				n++
				if raceDetector && n%4 != 0 {
					continue
				}
				assertMatcherAgrees(t, v, rev, c.Definition, doc)
			}
		}
	}
	t.Logf("%d documents made", n)
}

// FuzzMatcherAgreesWithTheLibrary: on any document and definition, the matcher's verdict is
// the library's.
func FuzzMatcherAgreesWithTheLibrary(f *testing.F) {
	v := newValidator(f)
	type target struct{ rev, def string }
	var targets []target
	index := map[target]int{}
	for _, rev := range v.Revisions() {
		for _, def := range v.Definitions(rev) {
			index[target{rev, def}] = len(targets)
			targets = append(targets, target{rev, def})
		}
	}
	for _, rev := range v.Revisions() {
		for _, c := range loadCorpus(f, rev) {
			f.Add(uint16(index[target{rev, c.Definition}]), []byte(c.Doc))
		}
	}
	f.Fuzz(func(t *testing.T, which uint16, raw []byte) {
		doc, err := jsondoc.Parse(raw)
		if err != nil || doc.Nodes() > 2000 {
			return
		}
		tg := targets[int(which)%len(targets)]
		assertMatcherAgrees(t, v, tg.rev, tg.def, raw)
	})
}

func TestEveryDefinitionCompilesWithTheLibrary(t *testing.T) {
	v := newValidator(t)
	for _, rev := range v.Revisions() {
		defs := v.Definitions(rev)
		if len(defs) < 10 {
			t.Errorf("%s: %d definitions", rev, len(defs))
		}
		for _, def := range defs {
			if _, err := v.revisions[rev].librarySchema(def); err != nil {
				t.Errorf("%s %s: %v", rev, def, err)
			}
		}
		// The matchers too: they are compiled on demand, so a broken definition would
		// otherwise surface only when a probe first needs it.
		raw, err := schemaFiles.ReadFile(v.revisions[rev].file)
		if err != nil {
			t.Fatal(err)
		}
		all, err := compileMatchers(mustParse(t, string(raw)))
		if err != nil {
			t.Errorf("%s: %v", rev, err)
		}
		for _, def := range defs {
			if all[def] == nil {
				t.Errorf("%s: %s has no matcher", rev, def)
			}
		}
	}
}

func TestNewCompilesNothingUntilARevisionIsUsed(t *testing.T) {
	v := newValidator(t)
	for rev, r := range v.revisions {
		if r.matchers != nil || r.compiler != nil {
			t.Fatalf("%s compiled by New", rev)
		}
	}
	if err := v.Validate("2025-06-18", "EmptyResult", []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	for rev, r := range v.revisions {
		if loaded := r.matchers != nil; loaded != (rev == "2025-06-18") {
			t.Errorf("%s loaded=%v after validating a 2025-06-18 document", rev, loaded)
		}
		if r.compiler != nil {
			t.Errorf("%s: the library compiled a schema for a valid document", rev)
		}
	}
	// Only the definition asked for (and those it references) was compiled.
	r := v.revisions["2025-06-18"]
	if done, all := r.matchers.done, r.matchers.names(); done["EmptyResult"] == nil || len(done) > 5 {
		t.Errorf("compiled %d definitions of %d for one EmptyResult", len(done), len(all))
	}
}

func TestMatcherOfAnUnknownOrPrivateDefinitionIsAnError(t *testing.T) {
	v := newValidator(t)
	for _, def := range []string{"NoSuchResult", "icon", ""} {
		err := v.Validate("2025-11-25", def, []byte(`{}`))
		if !errors.Is(err, ErrUnknownDefinition) {
			t.Errorf("%q: %v, want ErrUnknownDefinition", def, err)
		}
	}
}

func TestMatcherRefusesKeywordsItDoesNotKnow(t *testing.T) {
	for _, schema := range []string{
		`{"$defs":{"A":{"type":"object","patternProperties":{"x":{}}}}}`,
		`{"$defs":{"A":{"const":1}}}`,
		`{"$defs":{"A":{"enum":["a",2]}}}`,
		`{"$defs":{"A":{"items":[{}]}}}`,
		`{"$defs":{"A":{"$ref":"other.json#/$defs/B"}}}`,
		`{"$defs":{"A":{"$ref":"#/$defs/B"}}}`,
		`{"$defs":{"A":{"type":"strin"}}}`,
		`{"$defs":{"A":{"format":"no-such-format"}}}`,
		`{"$id":"x","$defs":{}}`,
		`{"$defs":{"A":{"oneOf":[{}]}}}`,
	} {
		if _, err := compileMatchers(mustParse(t, schema)); err == nil {
			t.Errorf("%s: compiled", schema)
		}
	}
	if _, err := compileMatchers(mustParse(t, `{"$defs":{"A":{"$ref":"#/$defs/a","required":["x"]},"a":{"type":"object","properties":{"x":{"anyOf":[{"type":"string"},{"$ref":"#/$defs/a"}]}}}}}`)); err != nil {
		t.Errorf("a circular reference: %v", err)
	}
}

func BenchmarkValidateMessage(b *testing.B) {
	v := newValidator(b)
	page := listToolsPage()
	init := []byte(`{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":true},"logging":{}},"serverInfo":{"name":"s","version":"1.0.0","websiteUrl":"https://example.com"}}`)
	for _, bc := range []struct {
		def string
		doc []byte
	}{{"ListToolsResult", page}, {"InitializeResult", init}} {
		b.Run(fmt.Sprintf("matcher/%s", bc.def), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := v.Validate("2025-11-25", bc.def, bc.doc); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("library/%s", bc.def), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if ok, _ := libraryMatches(b, v, "2025-11-25", bc.def, bc.doc); !ok {
					b.Fatal("invalid")
				}
			}
		})
	}
}

// TestValidateIsSafeForConcurrentUse: revisions load, and the library compiles, on first use
// from whichever goroutine comes first.
func TestValidateIsSafeForConcurrentUse(t *testing.T) {
	v := newValidator(t)
	docs := []struct {
		def, doc string
		valid    bool
	}{
		{"InitializeResult", `{"protocolVersion":"x","capabilities":{},"serverInfo":{"name":"s","version":"1"}}`, true},
		{"InitializeResult", `{"protocolVersion":"x","capabilities":{}}`, false},
		{"EmptyResult", `{}`, true},
		{"JSONRPCRequest", `{"jsonrpc":"2.0","id":null,"method":"x"}`, false},
	}
	done := make(chan struct{})
	for g := 0; g < 4; g++ {
		go func() {
			defer func() { done <- struct{}{} }()
			for i := 0; i < 20; i++ {
				for _, rev := range []string{"2024-11-05", "2025-06-18", "2025-11-25"} {
					d := docs[(i+g)%len(docs)]
					if err := v.Validate(rev, d.def, []byte(d.doc)); (err == nil) != d.valid {
						t.Errorf("%s %s %s: %v", rev, d.def, d.doc, err)
						return
					}
				}
			}
		}()
	}
	for g := 0; g < 4; g++ {
		<-done
	}
}

// compileMatchers compiles every definition of a parsed schema file, in name order so that
// an error is always the same one: the tests judge whole files, the validator compiles on
// demand.
func compileMatchers(file jsondoc.Value) (map[string]*matcher, error) {
	c, err := newMatcherCompiler(file)
	if err != nil {
		return nil, err
	}
	names := c.names()
	sort.Strings(names)
	for _, name := range names {
		if _, err := c.definition(name); err != nil {
			return nil, err
		}
	}
	return c.done, nil
}
