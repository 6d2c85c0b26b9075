// Package officialschemas finds the specification's own MCP JSON schema files for the tests
// that cross-check the project's validation against them.
//
// The files are not part of the repository: .ci/mcp-schemas installs them, pinned by digest,
// into .cache/mcp-schemas/<revision>/schema.json under the module root, or EnvDir names a folder
// of that layout. When they are absent the test is skipped with a message naming the script,
// unless CI=true, where a missing file is a failure.
package officialschemas

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpwatch/mcpwatch/internal/testkit/modroot"
)

// EnvDir names the environment variable that points the tests at a folder of official schema
// files (<revision>/schema.json) in place of the installed copy.
const EnvDir = "MCPWATCH_OFFICIAL_SCHEMAS"

// Revisions are the protocol revisions whose official schema files the tests need.
func Revisions() []string {
	return []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"}
}

// Dir is the folder holding <revision>/schema.json for every one of Revisions.
func Dir(t testing.TB) string {
	t.Helper()
	if dir := os.Getenv(EnvDir); dir != "" {
		// A folder the user named and got wrong is a mistake to report, not a reason to skip.
		if missing := missingFiles(dir); len(missing) > 0 {
			t.Fatalf("%s=%s lacks %v: it must hold <revision>/schema.json for %v", EnvDir, dir, missing, Revisions())
		}
		return dir
	}
	root, err := modroot.Find(".")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, ".cache", "mcp-schemas")
	if missing := missingFiles(dir); len(missing) > 0 {
		msg := "official MCP schemas not found in " + dir + " (missing " + missing[0] +
			"): run .ci/mcp-schemas DIR to install them from a checkout of the specification repository (see README.md), or set " +
			EnvDir + "; cross-check skipped"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return dir
}

// missingFiles lists the revisions' schema files that dir lacks, as paths under dir.
func missingFiles(dir string) []string {
	var missing []string
	for _, rev := range Revisions() {
		f := filepath.Join(rev, "schema.json")
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || !st.Mode().IsRegular() {
			missing = append(missing, f)
		}
	}
	return missing
}
