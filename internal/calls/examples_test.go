package calls

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The calls files of examples/calls are what docs/calls.md and the interop tests run: each
// must load, with the calls its comments promise (the interop tests hold the servers' answers).
func TestExampleCallsFilesLoad(t *testing.T) {
	files, err := filepath.Glob("../../examples/calls/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"everything.yaml": 9, "go-sdk-everything.yaml": 8}
	if len(files) != len(want) {
		t.Errorf("examples/calls holds %d files %v, want %d", len(files), files, len(want))
	}
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		set, err := Parse(filepath.Base(path), data, env(nil))
		if err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		if n := len(set.Calls); n != want[filepath.Base(path)] {
			t.Errorf("%s: %d calls, want %d", path, n, want[filepath.Base(path)])
		}
		invalid := 0
		for _, c := range set.Calls {
			if c.InvalidArguments {
				invalid++
			}
		}
		if invalid == 0 {
			t.Errorf("%s: no call allows invalid arguments: tools.invalid-arguments would only skip", path)
		}
	}
}

// Every calls file docs/calls.md shows (a yaml block that starts with calls:) loads as
// written, with its fromEnv variables set.
func TestDocsCallsExamplesLoad(t *testing.T) {
	doc, err := os.ReadFile("../../docs/calls.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllSubmatch(doc, -1)
	n := 0
	for _, b := range blocks {
		if !strings.HasPrefix(string(b[1]), "calls:") {
			continue
		}
		n++
		lookup := func(string) (string, bool) { return "a-secret", true }
		if _, err := Parse("docs/calls.md", b[1], lookup); err != nil {
			t.Errorf("a calls file of docs/calls.md does not load: %v\n%s", err, b[1])
		}
	}
	if n == 0 {
		t.Fatal("docs/calls.md shows no calls file")
	}
}
