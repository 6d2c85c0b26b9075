package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// reportSink is where the report goes: stdout, or a file that appears only once it is
// complete, so that a CI step reading it never sees half a report.
type reportSink struct {
	w      io.Writer
	toFile bool
	tmp    *os.File
	direct *os.File // a device or pipe written as it is (see openSink)
	path   string
}

// openSink opens the destination before the probe runs, so that a path that cannot be
// written is reported at once rather than after a minute of probing.
func openSink(path string, stdout io.Writer) (*reportSink, error) {
	if path == "" || path == "-" {
		return &reportSink{w: stdout}, nil
	}
	if fi, err := os.Stat(path); err == nil {
		if fi.IsDir() {
			return nil, fmt.Errorf("--output %s is a directory", path)
		}
		if !fi.Mode().IsRegular() {
			// A device or a pipe (/dev/null, /dev/stderr, a FIFO): renaming a finished
			// file over it would replace the device itself, so it is written as it is.
			f, err := os.OpenFile(path, os.O_WRONLY, 0)
			if err != nil {
				return nil, fmt.Errorf("--output %s cannot be written: %w", path, err)
			}
			return &reportSink{w: f, toFile: true, direct: f, path: path}, nil
		}
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return nil, fmt.Errorf("--output %s cannot be written: %w", path, err)
	}
	return &reportSink{w: tmp, toFile: true, tmp: tmp, path: path}, nil
}

// commit puts the finished report in place.
func (s *reportSink) commit() error {
	if s.direct != nil {
		f := s.direct
		s.direct = nil
		if err := f.Close(); err != nil {
			return fmt.Errorf("writing %s: %w", s.path, err)
		}
		return nil
	}
	if !s.toFile || s.tmp == nil {
		return nil
	}
	tmp := s.tmp
	s.tmp = nil
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("writing %s: %w", s.path, err)
	}
	// CreateTemp makes the file private; a report is not.
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("writing %s: %w", s.path, err)
	}
	if err := os.Rename(tmp.Name(), s.path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("writing %s: %w", s.path, err)
	}
	return nil
}

// abort removes an unfinished report file (a no-op after commit).
func (s *reportSink) abort() {
	if s.direct != nil {
		s.direct.Close()
		s.direct = nil
	}
	if s.tmp != nil {
		s.tmp.Close()
		os.Remove(s.tmp.Name())
		s.tmp = nil
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
