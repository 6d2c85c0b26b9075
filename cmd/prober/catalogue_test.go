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
		if code := run(context.Background(), []string{"checks", "--format", format}, &out, &errOut); code != exitOK {
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
	if code := run(context.Background(), []string{"checks", "--format", "yaml"}, &out, &errOut); code != exitUsage {
		t.Fatalf("exit %d, want %d", code, exitUsage)
	}
	if !strings.Contains(errOut.String(), "text or markdown") {
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
