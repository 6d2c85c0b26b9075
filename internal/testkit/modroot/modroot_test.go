package modroot

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestFindWalksUpToTheFolderOfGoMod(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte("module example.com/m\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	deep := filepath.Join(root, "a", "b")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{root, deep} {
		got, err := Find(dir)
		if err != nil || got != root {
			t.Errorf("Find(%s) = %q, %v; want %q", dir, got, err, root)
		}
	}
}

func TestFindSaysWhenThereIsNoModule(t *testing.T) {
	// The filesystem root holds no go.mod (a test machine's / never does).
	if _, err := Find(string(filepath.Separator)); !errors.Is(err, ErrNotFound) {
		t.Errorf("Find(/) error %v, want ErrNotFound", err)
	}
}

func TestOfIsThisModule(t *testing.T) {
	root := Of(t)
	if _, err := os.Stat(filepath.Join(root, "internal", "testkit", "modroot", "modroot.go")); err != nil {
		t.Errorf("Of() = %s, not this module's root: %v", root, err)
	}
}
