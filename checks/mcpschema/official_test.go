package mcpschema

import (
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/internal/testkit/officialschemas"
)

func loadOfficial(t *testing.T) *Official {
	t.Helper()
	o, err := LoadOfficial(officialschemas.Dir(t))
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func TestLoadOfficialReadsEveryRevisionOfTheSpecificationRepository(t *testing.T) {
	start := time.Now()
	o := loadOfficial(t)
	t.Logf("loaded and checked %d official schema files in %v", len(loadedRevisions(o)), time.Since(start))
	want := []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"}
	if got := loadedRevisions(o); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("revisions = %v, want %v", got, want)
	}
	if f := o.File("2025-11-25"); filepath.Base(f) != "schema.json" || filepath.Base(filepath.Dir(f)) != "2025-11-25" {
		t.Errorf("file = %q", f)
	}
}

func TestOfficialValidateJudgesByTheOfficialDefinitions(t *testing.T) {
	o := loadOfficial(t)
	tests := []struct {
		name, rev, def, doc string
		want                string // "" for valid; else a part of the violation
		wantErr             error
	}{
		{"valid initialize result, draft-07 file", "2025-06-18", "InitializeResult",
			`{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"s","version":"1"}}`, "", nil},
		{"missing serverInfo", "2025-03-26", "InitializeResult",
			`{"protocolVersion":"2025-03-26","capabilities":{}}`, "serverInfo", nil},
		{"valid tool list, 2020-12 file", "2025-11-25", "ListToolsResult",
			`{"tools":[{"name":"a","inputSchema":{"type":"object"}}]}`, "", nil},
		{"non-string cursor", "2025-11-25", "ListToolsResult",
			`{"tools":[],"nextCursor":7}`, "/nextCursor", nil},
		{"revision the directory lacks", "1900-01-01", "InitializeResult", `{}`, "", ErrUnknownRevision},
		{"definition the revision lacks", "2026-07-28", "InitializeResult", `{}`, "", ErrUnknownDefinition},
		{"a number big.Rat cannot read", "2025-11-25", "ListToolsResult", `{"tools":[],"x":1e9999999999}`, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := Decode([]byte(tt.doc))
			if err != nil {
				t.Fatal(err)
			}
			err = o.Validate(tt.rev, tt.def, doc)
			switch {
			case tt.wantErr != nil:
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("error %v, want %v", err, tt.wantErr)
				}
			case tt.want == "":
				var v *Violation
				if errors.As(err, &v) {
					t.Fatalf("want valid, got %v", err)
				}
			default:
				var v *Violation
				if !errors.As(err, &v) || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("want a violation naming %q, got %v", tt.want, err)
				}
			}
		})
	}
}

// The corpus cross-check in corpus_test.go compiles the official files by hand; Official
// must reach the same verdicts on the same corpus.
func TestOfficialAgreesWithTheCorpusVerdicts(t *testing.T) {
	o := loadOfficial(t)
	for _, rev := range loadedRevisions(o) {
		for _, c := range loadCorpus(t, rev) {
			doc, err := Decode(c.Doc)
			if err != nil {
				t.Fatal(err)
			}
			err = o.Validate(rev, officialName(rev, c.Definition), doc)
			var v *Violation
			if err != nil && !errors.As(err, &v) {
				t.Errorf("%s %s: %v", rev, c.Name, err)
				continue
			}
			if (err == nil) != c.Valid {
				t.Errorf("%s %s (%s): official valid=%v, corpus says %v (%v)", rev, c.Name, c.Definition, err == nil, c.Valid, err)
			}
		}
	}
}

func TestLoadOfficialSaysWhatIsWrongWithAMalformedDirectory(t *testing.T) {
	good := `{"$schema":"https://json-schema.org/draft/2020-12/schema","$defs":{"X":{"type":"object"}}}`
	write := func(t *testing.T, dir string, files map[string]string) {
		for name, content := range files {
			p := filepath.Join(dir, filepath.FromSlash(name))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	tests := []struct {
		name  string
		files map[string]string
		path  string // relative to the temp dir; "" is the dir itself
		want  string
	}{
		{"missing directory", nil, "nope", "no such file or directory"},
		{"a file, not a directory", map[string]string{"schema.json": good}, "schema.json", "it is a file"},
		{"no revision folders", map[string]string{"README.md": "x", "draft/schema.json": good}, "", "no <revision>/schema.json in it"},
		{"revision folder without schema.json", map[string]string{"2025-11-25/other.json": good}, "", "the revision folder 2025-11-25 has no readable schema.json"},
		{"not JSON", map[string]string{"2025-11-25/schema.json": "{"}, "", "not a JSON object"},
		{"unknown dialect", map[string]string{"2025-11-25/schema.json": `{"$schema":"http://json-schema.org/draft-04/schema#","definitions":{"X":{}}}`}, "", `want draft-07 or 2020-12`},
		{"no definitions", map[string]string{"2025-11-25/schema.json": `{"$schema":"https://json-schema.org/draft/2020-12/schema"}`}, "", "no definitions under #/$defs/"},
		{"definitions in the wrong place for the dialect", map[string]string{"2025-06-18/schema.json": `{"$schema":"http://json-schema.org/draft-07/schema#","$defs":{"X":{}}}`}, "", "no definitions under #/definitions/"},
		{"invalid against the metaschema", map[string]string{"2025-11-25/schema.json": `{"$schema":"https://json-schema.org/draft/2020-12/schema","$defs":{"X":{"type":"objekt"}}}`}, "", "not a valid schema"},
		{"a network $ref", map[string]string{"2025-11-25/schema.json": `{"$schema":"https://json-schema.org/draft/2020-12/schema","$ref":"https://example.com/s.json","$defs":{"X":{}}}`}, "", "refused to load https://example.com/s.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, dir, tt.files)
			_, err := LoadOfficial(filepath.Join(dir, tt.path))
			if !errors.Is(err, ErrOfficialSchemas) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want ErrOfficialSchemas saying %q", err, tt.want)
			}
		})
	}
	dir := t.TempDir()
	write(t, dir, map[string]string{"2025-11-25/schema.json": good, "LICENSE": "x", "draft/schema.json": "not even JSON"})
	o, err := LoadOfficial(dir)
	if err != nil || strings.Join(loadedRevisions(o), ",") != "2025-11-25" {
		t.Fatalf("a directory with one revision and other entries: %v %v", o, err)
	}
}

// loadedRevisions lists the revisions whose official schema was loaded, in order.
func loadedRevisions(o *Official) []string {
	return slices.Sorted(maps.Keys(o.revisions))
}
