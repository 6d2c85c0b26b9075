package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/mcpwatch/mcpwatch/checks"
)

func TestChecksListsEveryCheckOfTheRegistry(t *testing.T) {
	reg, err := checks.Default()
	if err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"text", "json", "markdown"} {
		var out, errOut bytes.Buffer
		if code := dispatch(context.Background(), []string{"checks", "--format", format}, &out, &errOut); code != exitOK {
			t.Fatalf("checks --format %s: exit %d: %s", format, code, errOut.String())
		}
		for _, c := range reg.Checks() {
			if !strings.Contains(out.String(), c.ID) {
				t.Errorf("checks --format %s does not list %s", format, c.ID)
			}
		}
	}
}

func TestChecksRejectsAnUnknownFormat(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := dispatch(context.Background(), []string{"checks", "--format", "yaml"}, &out, &errOut); code != exitUsage {
		t.Fatalf("exit %d, want %d", code, exitUsage)
	}
	if !strings.Contains(errOut.String(), "text, json, markdown or reference") {
		t.Errorf("the error does not say what is allowed: %s", errOut.String())
	}
}

// The text table and the JSON say, for every check, the severity a broken rule is reported
// at and the revisions it is judged in, as the rules catalogue gives them.
func TestChecksShowEachChecksSeverityAndRevisions(t *testing.T) {
	reg, err := checks.Default()
	if err != nil {
		t.Fatal(err)
	}
	var js, text, errOut bytes.Buffer
	if code := dispatch(context.Background(), []string{"checks", "--format", "json"}, &js, &errOut); code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if code := dispatch(context.Background(), []string{"checks"}, &text, &errOut); code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	var doc struct {
		Checks []catalogueEntry `json:"checks"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatalf("checks --format json: %v\n%s", err, js.String())
	}
	if len(doc.Checks) != len(reg.Checks()) {
		t.Fatalf("%d checks in the JSON, %d in the registry", len(doc.Checks), len(reg.Checks()))
	}
	rows := map[string][]string{}
	for _, line := range strings.Split(text.String(), "\n")[1:] {
		if f := strings.Fields(line); len(f) > 0 {
			rows[f[0]] = f
		}
	}
	for i, c := range reg.Checks() {
		e := doc.Checks[i]
		if e.ID != c.ID || c.Doc == nil || e.Severity != c.Doc.Severity || e.Revisions != c.Doc.Revisions || e.Title != c.Title {
			t.Errorf("JSON entry %d = %+v, want %s at %v", i, e, c.ID, c.Doc)
			continue
		}
		if !slices.Contains([]string{"error", "warning", "advice", "info"}, e.Severity) || e.Revisions == "" {
			t.Errorf("%s: severity %q, revisions %q", c.ID, e.Severity, e.Revisions)
		}
		row := rows[c.ID]
		if len(row) < 3 || row[1] != e.Severity || !strings.HasPrefix(e.Revisions, row[2]) {
			t.Errorf("%s: text row %q, want severity %s and revisions %q", c.ID, row, e.Severity, e.Revisions)
		}
	}
}

func TestRevisionRangeDropsTheConditions(t *testing.T) {
	for in, want := range map[string]string{
		"all": "all",
		"all (titles from 2025-06-18, annotations and instructions from 2025-03-26)": "all",
		"2026-07-28 and later (HTTP), a server of the stateless revision only":       "2026-07-28 and later",
		"2024-11-05 to 2025-11-25, when resources.subscribe is declared":             "2024-11-05 to 2025-11-25",
	} {
		if got := revisionRange(in); got != want {
			t.Errorf("revisionRange(%q) = %q, want %q", in, got, want)
		}
	}
}

// The README's check table is what people read first: it must name every check there is
// (regenerate it with `prober checks --format markdown`).
func TestReadmeNamesEveryCheck(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	reg, err := checks.Default()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range reg.Checks() {
		if !bytes.Contains(readme, []byte("`"+c.ID+"`")) {
			t.Errorf("README.md does not list check %s", c.ID)
		}
	}
}

// docs/checks.md is generated from the registry; a check added, removed or reworded without
// regenerating it would leave the published catalogue wrong.
func TestDocsChecksMatchesTheRegistry(t *testing.T) {
	want, err := os.ReadFile("../../docs/checks.md")
	if err != nil {
		t.Fatalf("%v (generate it with `go generate ./cmd/prober`)", err)
	}
	var out, errOut bytes.Buffer
	if code := dispatch(context.Background(), []string{"checks", "--format", "reference"}, &out, &errOut); code != exitOK {
		t.Fatalf("checks --format reference: exit %d: %s", code, errOut.String())
	}
	if !bytes.Equal(out.Bytes(), want) {
		t.Errorf("docs/checks.md differs from the registry: regenerate it with `go generate ./cmd/prober` (or `go run ./cmd/prober checks --format reference > docs/checks.md`)")
	}
	reg, err := checks.Default()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range reg.Checks() {
		if !bytes.Contains(want, []byte("### `"+c.ID+"`")) {
			t.Errorf("docs/checks.md has no entry for %s", c.ID)
		}
	}
}
