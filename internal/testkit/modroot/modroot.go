// Package modroot finds the root of this module from a test's working directory, so that
// tests and test helpers can reach the files beside go.mod (.cache, testdata of other
// packages, the Dockerfile) wherever go test runs them.
package modroot

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// ErrNotFound: no directory at or above the one given holds go.mod.
var ErrNotFound = errors.New("no go.mod above the directory")

// Find returns the nearest directory at or above dir that holds go.mod.
func Find(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("module root: %w", err)
	}
	for start := dir; ; {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("module root of %s: %w", start, ErrNotFound)
		}
		dir = parent
	}
}

// Of is Find from the test's working directory (its package's folder), failing the test when
// there is no module root.
func Of(t testing.TB) string {
	t.Helper()
	root, err := Find(".")
	if err != nil {
		t.Fatal(err)
	}
	return root
}
