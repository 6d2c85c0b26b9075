package main

import (
	"fmt"
	"io"
	"os"

	"github.com/mcpwatch/mcpwatch/internal/atomicfile"
)

// reportSink is where the report goes: stdout, or a file that appears only once it is
// complete, so that a CI step reading it never sees half a report.
type reportSink struct {
	w      io.Writer
	toFile bool
	file   *atomicfile.File
	path   string
}

// openSink opens the destination before the probe runs, so that a path that cannot be
// written is reported at once rather than after a minute of probing.
func openSink(path string, stdout io.Writer) (*reportSink, error) {
	if path == "" || path == "-" {
		return &reportSink{w: stdout}, nil
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return nil, fmt.Errorf("--output %s is a directory", path)
	}
	f, err := atomicfile.Create(path)
	if err != nil {
		return nil, fmt.Errorf("--output %s cannot be written: %w", path, err)
	}
	return &reportSink{w: f, toFile: true, file: f, path: path}, nil
}

// commit puts the finished report in place.
func (s *reportSink) commit() error {
	if s.file == nil {
		return nil
	}
	if err := s.file.Commit(); err != nil {
		return fmt.Errorf("writing %s: %w", s.path, err)
	}
	return nil
}

// abort removes an unfinished report file (a no-op after commit).
func (s *reportSink) abort() {
	if s.file != nil {
		s.file.Abort()
	}
}

// isTerminal reports whether w is a character device such as a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
