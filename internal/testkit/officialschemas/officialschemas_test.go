package officialschemas

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// verdict records how Dir ended a test: it stops at the first Fatal or Skip, as the testing
// package does, by unwinding to the caller.
type verdict struct {
	testing.TB
	kind, msg string
}

type stopped struct{}

func (v *verdict) Helper() {}
func (v *verdict) Fatal(args ...any) {
	v.kind, v.msg = "fatal", strings.TrimSpace(fmt.Sprint(args...))
	panic(stopped{})
}
func (v *verdict) Fatalf(format string, args ...any) { v.Fatal(fmt.Sprintf(format, args...)) }
func (v *verdict) Skip(args ...any) {
	v.kind, v.msg = "skip", strings.TrimSpace(fmt.Sprint(args...))
	panic(stopped{})
}

// run calls Dir on a recorder and reports what it returned or how it stopped.
func run(t *testing.T) (dir string, v *verdict) {
	t.Helper()
	v = &verdict{TB: t}
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(stopped); !ok {
				panic(r)
			}
		}
	}()
	return Dir(v), v
}

// module lays out a module root with the given files of .cache/mcp-schemas and moves into
// a package folder below it.
func module(t *testing.T, revisions []string) string {
	t.Helper()
	root := t.TempDir()
	write(t, filepath.Join(root, "go.mod"), "module example.invalid/m\n")
	for _, rev := range revisions {
		write(t, filepath.Join(root, ".cache", "mcp-schemas", rev, "schema.json"), "{}")
	}
	pkg := filepath.Join(root, "checks")
	if err := os.MkdirAll(pkg, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(pkg)
	return root
}

func write(t *testing.T, file, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestDirFindsTheInstalledCopyOrSaysHowToInstallIt(t *testing.T) {
	all := Revisions()
	tests := []struct {
		name      string
		revisions []string
		ci        string
		wantKind  string // "" when Dir returns the folder
		wantMsg   []string
	}{
		{"every revision installed", all, "", "", nil},
		{"every revision installed, in CI", all, "true", "", nil},
		{"nothing installed skips, naming the script", nil, "", "skip",
			[]string{".ci/mcp-schemas", EnvDir, "2024-11-05/schema.json", "skipped"}},
		{"nothing installed fails in CI", nil, "true", "fatal", []string{".ci/mcp-schemas"}},
		{"one revision short skips, naming it", all[:4], "", "skip", []string{"2026-07-28/schema.json"}},
		{"CI set to something else than true skips", nil, "1", "skip", []string{".ci/mcp-schemas"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(EnvDir, "")
			t.Setenv("CI", tc.ci)
			root := module(t, tc.revisions)
			dir, v := run(t)
			if v.kind != tc.wantKind {
				t.Fatalf("Dir ended with %q (%s), want %q", v.kind, v.msg, tc.wantKind)
			}
			if tc.wantKind == "" {
				if want := filepath.Join(root, ".cache", "mcp-schemas"); dir != want {
					t.Errorf("dir = %s, want %s", dir, want)
				}
				return
			}
			for _, w := range tc.wantMsg {
				if !strings.Contains(v.msg, w) {
					t.Errorf("message lacks %q: %s", w, v.msg)
				}
			}
		})
	}
}

func TestDirTakesTheFolderTheEnvironmentNames(t *testing.T) {
	t.Setenv("CI", "")
	module(t, nil)
	named := t.TempDir()
	for _, rev := range Revisions() {
		write(t, filepath.Join(named, rev, "schema.json"), "{}")
	}
	t.Setenv(EnvDir, named)
	if dir, v := run(t); v.kind != "" || dir != named {
		t.Fatalf("Dir = %q, ended %q (%s); want %s", dir, v.kind, v.msg, named)
	}

	// A named folder that lacks a file is an error even outside CI: the user asked for it.
	if err := os.Remove(filepath.Join(named, "2025-03-26", "schema.json")); err != nil {
		t.Fatal(err)
	}
	_, v := run(t)
	if v.kind != "fatal" || !strings.Contains(v.msg, "2025-03-26/schema.json") || !strings.Contains(v.msg, EnvDir) {
		t.Fatalf("Dir ended %q: %s; want a failure naming the missing file and %s", v.kind, v.msg, EnvDir)
	}
}
