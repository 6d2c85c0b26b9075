package mcpschema

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwatch/mcpwatch/internal/testkit/officialschemas"
	"github.com/santhosh-tekuri/jsonschema/v5"
)

// corpusCase is one message of testdata/corpus/<revision>.json with the verdict every
// validator must reach on it.
type corpusCase struct {
	Name       string          `json:"name"`
	Definition string          `json:"definition"`
	Valid      bool            `json:"valid"`
	Doc        json.RawMessage `json:"doc"`
}

func loadCorpus(t testing.TB, revision string) []corpusCase {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "corpus", revision+".json"))
	if err != nil {
		t.Fatalf("corpus of %s: %v", revision, err)
	}
	var cs []corpusCase
	if err := json.Unmarshal(raw, &cs); err != nil {
		t.Fatalf("corpus of %s: %v", revision, err)
	}
	return cs
}

func newValidator(t testing.TB) *Validator {
	t.Helper()
	v, err := New()
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestEveryRevisionHasACorpus(t *testing.T) {
	v := newValidator(t)
	want := []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"}
	if got := v.Revisions(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("revisions = %v, want %v", got, want)
	}
	for _, rev := range want {
		if n := len(loadCorpus(t, rev)); n < 15 {
			t.Errorf("%s: %d corpus cases, want at least 15", rev, n)
		}
	}
}

func TestCorpusCoversEveryDefinitionBothWays(t *testing.T) {
	v := newValidator(t)
	for _, rev := range v.Revisions() {
		valid, invalid := map[string]bool{}, map[string]bool{}
		for _, c := range loadCorpus(t, rev) {
			if c.Valid {
				valid[c.Definition] = true
			} else {
				invalid[c.Definition] = true
			}
		}
		for _, d := range v.Definitions(rev) {
			if !valid[d] || !invalid[d] {
				t.Errorf("%s %s: corpus has valid=%v invalid=%v cases; want both", rev, d, valid[d], invalid[d])
			}
		}
	}
}

func TestOwnSchemasJudgeTheCorpusAsExpected(t *testing.T) {
	v := newValidator(t)
	for _, rev := range v.Revisions() {
		for _, c := range loadCorpus(t, rev) {
			err := v.Validate(rev, c.Definition, c.Doc)
			var viol *Violation
			switch {
			case err != nil && !errors.As(err, &viol):
				t.Errorf("%s %s: %v", rev, c.Name, err)
			case c.Valid && err != nil:
				t.Errorf("%s %s: want valid, got %v", rev, c.Name, err)
			case !c.Valid && err == nil:
				t.Errorf("%s %s: want invalid, got valid", rev, c.Name)
			}
		}
	}
}

// TestOfficialSchemasAgreeOnTheCorpus is the cross-check: the specification's own schemas
// must reach the same verdict on every corpus message as the schemas this project wrote.
func TestOfficialSchemasAgreeOnTheCorpus(t *testing.T) {
	dir := officialschemas.Dir(t)
	v := newValidator(t)
	for _, rev := range v.Revisions() {
		official := compileOfficial(t, filepath.Join(dir, rev, "schema.json"))
		for _, c := range loadCorpus(t, rev) {
			doc, err := Decode(c.Doc)
			if err != nil {
				t.Fatalf("%s %s: %v", rev, c.Name, err)
			}
			theirs := official(officialName(rev, c.Definition)).Validate(doc)
			ours := v.ValidateValue(rev, c.Definition, doc)
			if (theirs == nil) != c.Valid || (ours == nil) != c.Valid {
				t.Errorf("%s %s (%s): want valid=%v; official: %v; ours: %v", rev, c.Name, c.Definition, c.Valid, theirs, ours)
			}
		}
	}
}

// officialName maps the revision-independent envelope names this project offers to the names
// the draft-07 era schemas use.
func officialName(rev, def string) string {
	if rev < "2025-11-25" {
		switch def {
		case "JSONRPCResultResponse":
			return "JSONRPCResponse"
		case "JSONRPCErrorResponse":
			return "JSONRPCError"
		}
	}
	return def
}

// compileOfficial loads one official schema file (it has no $id) and returns a compiler of its
// definitions. Formats are asserted in every dialect, as this project's schemas do.
func compileOfficial(t *testing.T, file string) func(def string) *jsonschema.Schema {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var head struct {
		Schema string `json:"$schema"`
	}
	if err := json.Unmarshal(raw, &head); err != nil {
		t.Fatal(err)
	}
	defs := "#/$defs/"
	if strings.Contains(head.Schema, "draft-07") {
		defs = "#/definitions/"
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat = true
	c.LoadURL = refuseLoad
	url := "https://official.invalid/" + filepath.Base(filepath.Dir(file)) + "/schema.json"
	if err := c.AddResource(url, strings.NewReader(string(raw))); err != nil {
		t.Fatal(err)
	}
	return func(def string) *jsonschema.Schema {
		s, err := c.Compile(url + defs + def)
		if err != nil {
			t.Fatalf("official %s: %v", def, err)
		}
		return s
	}
}
