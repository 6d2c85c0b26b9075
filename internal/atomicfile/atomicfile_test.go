package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestCommitPutsTheWholeFileInPlaceReadableByAll(t *testing.T) {
	path := filepath.Join(t.TempDir(), "report.json")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Abort()
	if _, err := f.Write([]byte("new report")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Fatalf("before Commit the path holds %q, want the old file", b)
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil || string(b) != "new report" {
		t.Fatalf("after Commit the path holds %q (%v)", b, err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", fi.Mode().Perm())
	}
	f.Abort() // after Commit: nothing to undo
	if _, err := os.Stat(path); err != nil {
		t.Errorf("Abort after Commit removed the file: %v", err)
	}
	if err := f.Commit(); err != nil {
		t.Errorf("a second Commit: %v", err)
	}
	if _, err := f.Write([]byte("x")); !errors.Is(err, os.ErrClosed) {
		t.Errorf("Write after Commit: %v, want os.ErrClosed", err)
	}
	assertOnly(t, filepath.Dir(path), "report.json")
}

func TestAbortLeavesThePathAsItWas(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "baseline.yaml")
	f, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte("half")); err != nil {
		t.Fatal(err)
	}
	f.Abort()
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("after Abort the path exists (%v)", err)
	}
	assertOnly(t, dir)
}

func TestCommitOverADirectoryFailsAndRemovesTheTemporary(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out")
	if err := os.Mkdir(path, 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Commit(); err == nil {
		t.Fatal("Commit over a directory succeeded")
	}
	assertOnly(t, dir, "out")
}

func TestCreateInAMissingFolderFails(t *testing.T) {
	if _, err := Create(filepath.Join(t.TempDir(), "missing", "r.json")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("Create: %v, want a not-exist error", err)
	}
}

// A file renamed over /dev/null (as root) would replace the device for the whole machine.
func TestAPipeIsWrittenIntoInsteadOfReplaced(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "report.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	got := make(chan []byte, 1)
	go func() {
		b, _ := os.ReadFile(fifo) // opens the read end, so Create's open does not block
		got <- b
	}()
	f, err := Create(fifo)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte("report\n")); err != nil {
		t.Fatal(err)
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	if b := <-got; string(b) != "report\n" {
		t.Fatalf("the pipe got %q", b)
	}
	fi, err := os.Lstat(fifo)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode()&os.ModeNamedPipe == 0 {
		t.Fatalf("the FIFO was replaced by %v", fi.Mode())
	}
}

// assertOnly fails unless dir holds exactly names: no temporary is left behind.
func assertOnly(t *testing.T, dir string, names ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if len(got) != len(names) {
		t.Fatalf("%s holds %q, want %q", dir, got, names)
	}
	for i := range names {
		if got[i] != names[i] {
			t.Fatalf("%s holds %q, want %q", dir, got, names)
		}
	}
}

// CommitNew puts a new file in place and never replaces one, a file that appeared after
// Create included; the temporary goes either way.
func TestCommitNewNeverReplacesAFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "calls.yaml")
	f, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("first"))
	if err := f.CommitNew(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "first" {
		t.Fatalf("path holds %q", b)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", fi.Mode().Perm())
	}

	g, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	g.Write([]byte("second"))
	if err := g.CommitNew(); !errors.Is(err, fs.ErrExist) {
		t.Errorf("CommitNew over a file: %v, want fs.ErrExist", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "first" {
		t.Errorf("path holds %q, want the first file", b)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("the folder holds %d entries, want the file alone", len(entries))
	}
}
