package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/mcpwatch/mcpwatch/checks"
)

func TestChecksListsEveryCheckOfTheRegistry(t *testing.T) {
	reg, err := checks.Default()
	if err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"text", "markdown"} {
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
	if !strings.Contains(errOut.String(), "text, markdown or reference") {
		t.Errorf("the error does not say what is allowed: %s", errOut.String())
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
