package main

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// A report sent to a device or a pipe must be written into it: renaming a file over
// /dev/null (as root) would replace the device for the whole machine.
func TestOutputToAPipeWritesIntoItInsteadOfReplacingIt(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "report.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	got := make(chan []byte, 1)
	go func() {
		b, _ := os.ReadFile(fifo) // opens the read end, so openSink's open does not block
		got <- b
	}()
	sink, err := openSink(fifo, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sink.w.Write([]byte("report\n")); err != nil {
		t.Fatal(err)
	}
	if err := sink.commit(); err != nil {
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
