package main

import (
	"context"
	"encoding/json"
	"flag"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpwatch/mcpwatch/internal/testkit/fixture"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden files of testdata")

// starterFixture is the fixture server the --write-calls tests probe: its default tools
// and one whose inputSchema has $defs, a nested object, examples and a const, listed four
// tools a page.
func starterFixture() fixture.Config {
	trip := fixture.Tool{
		Name: "book_trip", Title: "Book a trip", Description: "Books a trip (the fixture books nothing).",
		InputSchema: json.RawMessage(`{"type":"object","$defs":{"Place":{"type":"object","properties":{"city":{"type":"string","examples":["Lyon"]},"country":{"type":"string","default":"FR"}},"required":["city"]}},` +
			`"properties":{"from":{"$ref":"#/$defs/Place"},"to":{"$ref":"#/$defs/Place","description":"Where to."},"seats":{"type":"integer","minimum":1,"description":"How many."},` +
			`"class":{"type":"string","enum":["economy","business"]},"api":{"const":"v2"},"notes":{"type":["string","null"]}},"required":["from","to","seats","api"]}`),
	}
	return fixture.Config{Tools: append(fixture.DefaultTools(), trip), PageSize: 4}
}

// starterGolden compares a written starter file with testdata/write-calls.golden.yaml.
func starterGolden(t *testing.T, got []byte) {
	t.Helper()
	golden := filepath.Join("testdata", "write-calls.golden.yaml")
	if *updateGolden {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("the starter file differs from %s (go test -run TestCheckWriteCalls -update rewrites it):\n%s", golden, got)
	}
}

// uncommentEntries removes the first "# " of every line below "calls:" that has one and is
// not a note (##): an editor's toggle-comment on every entry.
func uncommentEntries(text string) string {
	head, body, _ := strings.Cut(text, "\ncalls:\n")
	once := regexp.MustCompile(`(?m)^(\s*)# ([^#])`)
	return head + "\ncalls:\n" + once.ReplaceAllString(body, "$1$2")
}

// --write-calls writes the same starter file from the fixture's tools over HTTP and stdio,
// every tool of every page an entry, calling none of them; the file refuses to be
// overwritten without --force, and once its entries are uncommented --calls takes it.
func TestCheckWriteCallsFromTheToolList(t *testing.T) {
	srv, err := fixture.New(starterFixture())
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	dir := t.TempDir()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	targets := []struct {
		name   string
		target []string
	}{
		{"http", []string{ts.URL + "/mcp"}},
		{"stdio", []string{"--env", fixtureModeEnv + "=" + modeStarterTools, "--", exe}},
	}
	for _, tc := range targets {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(dir, tc.name+".yaml")
			args := append([]string{"check", "--format", "json", "--verbose", "--write-calls", file}, tc.target...)
			code, stdout, stderr := runCLI(t, context.Background(), args...)
			if code != exitOK || !strings.Contains(stderr, "wrote a calls file of 14 tools to "+file) {
				t.Fatalf("exit %d\n%s", code, stderr)
			}
			got, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			starterGolden(t, got)
			// In the transcript, only the unknown-tool probe's unlisted name is ever called.
			called := regexp.MustCompile(`\\"method\\":\\"tools/call\\",\\"params\\":\{.*?\\"name\\":\\"([^\\]*)`).FindAllStringSubmatch(stdout, -1)
			if len(called) == 0 {
				t.Error("no tools/call in the transcript: the unknown-tool probe should have sent one")
			}
			for _, name := range called {
				if !strings.HasPrefix(name[1], "mcpwatch-no-such-tool") {
					t.Errorf("the probe called the tool %q", name[1])
				}
			}

			code, _, stderr = runCLI(t, context.Background(), args...)
			if code != exitUsage || !strings.Contains(stderr, file+" exists: give --force") {
				t.Errorf("again without --force: exit %d\n%s", code, stderr)
			}
			code, _, stderr = runCLI(t, context.Background(), append([]string{"check", "--force", "--write-calls", file}, tc.target...)...)
			if code != exitOK {
				t.Errorf("with --force: exit %d\n%s", code, stderr)
			}
		})
	}

	// As written, --calls refuses the file with a message; uncommented, it takes it and
	// calls every tool, and --write-calls beside --calls writes the file all the same.
	file := filepath.Join(dir, "http.yaml")
	code, _, stderr := runCLI(t, context.Background(), "check", "--calls", file, ts.URL+"/mcp")
	if code != exitUsage || !strings.Contains(stderr, "every call is commented out") {
		t.Errorf("--calls of the file as written: exit %d\n%s", code, stderr)
	}
	text, _ := os.ReadFile(file)
	uncommented := filepath.Join(dir, "uncommented.yaml")
	if err := os.WriteFile(uncommented, []byte(uncommentEntries(string(text))), 0o600); err != nil {
		t.Fatal(err)
	}
	again := filepath.Join(dir, "again.yaml")
	code, stdout, stderr := runCLI(t, context.Background(), "check", "--format", "json", "--calls", uncommented, "--write-calls", again, ts.URL+"/mcp")
	if code == exitUsage {
		t.Fatalf("--calls of the uncommented file: exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stdout, `"id": "tools.call-result"`) || strings.Count(stdout, `"name": "call:`) < 14 {
		t.Errorf("the uncommented calls were not all made:\n%s", stdout)
	}
	if b, err := os.ReadFile(again); err != nil || string(b) != string(text) {
		t.Errorf("--write-calls beside --calls: %v\n%s", err, b)
	}
}

// --write-calls - writes the file to stdout when the report has a file of its own.
func TestCheckWriteCallsToStdout(t *testing.T) {
	srv, err := fixture.New(starterFixture())
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	report := filepath.Join(t.TempDir(), "report.txt")
	code, stdout, stderr := runCLI(t, context.Background(), "check", "--write-calls", "-", "-o", report, ts.URL+"/mcp")
	if code != exitOK || !strings.Contains(stderr, "to stdout") {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	starterGolden(t, []byte(stdout))
	if b, _ := os.ReadFile(report); !strings.Contains(string(b), "PASS") {
		t.Errorf("the report did not go to its file:\n%s", b)
	}
}

// A server with no tool to call gets no file, a message that says why, and exit 1 (the
// report is still written).
func TestCheckWriteCallsWithoutTools(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  fixture.Config
		want string
	}{
		{"no tools capability", fixture.Config{Fault: fixture.CapabilityUndeclaredWorks}, "no file written: no tools to write calls for: the server declares no tools capability"},
		{"no tools", fixture.Config{Tools: []fixture.Tool{}}, "no file written: no tools to write calls for: the server lists no tools"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, err := fixture.New(tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			ts := httptest.NewServer(srv.Handler())
			defer ts.Close()
			file := filepath.Join(t.TempDir(), "calls.yaml")
			code, stdout, stderr := runCLI(t, context.Background(), "check", "--write-calls", file, ts.URL+"/mcp")
			if code != exitFailed || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d\n%s", code, stderr)
			}
			if stdout == "" {
				t.Error("no report")
			}
			if _, err := os.Stat(file); !os.IsNotExist(err) {
				t.Errorf("a file was written: %v", err)
			}
		})
	}
}

func TestCheckWriteCallsUsageErrors(t *testing.T) {
	dir := t.TempDir()
	exists := filepath.Join(dir, "exists.yaml")
	if err := os.WriteFile(exists, []byte("calls: []\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	const url = "http://127.0.0.1:1/mcp"
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"an existing file", []string{"--write-calls", exists}, exists + " exists: give --force to replace it"},
		{"stdout beside the report", []string{"--write-calls", "-"}, "give the report a file with -o FILE"},
		{"the report's file", []string{"--write-calls", filepath.Join(dir, "r"), "-o", filepath.Join(dir, "r")}, "--write-calls and --output name the same file"},
		{"a missing folder", []string{"--write-calls", filepath.Join(dir, "no", "calls.yaml")}, "cannot be written: no folder"},
		{"--force alone", []string{"--force"}, "--force applies to --write-calls"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, context.Background(), append(append([]string{"check"}, tc.args...), url)...)
			if code != exitUsage || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, want %d with %q:\n%s", code, exitUsage, tc.want, stderr)
			}
		})
	}
	if b, _ := os.ReadFile(exists); string(b) != "calls: []\n" {
		t.Errorf("the existing file was changed: %q", b)
	}
}
