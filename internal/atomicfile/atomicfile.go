// Package atomicfile writes a file that appears at its path only once it is complete, so
// that a reader (a CI step, a repository, a watcher) never sees half of it.
//
// The file is written under a temporary name in the same directory and renamed over the
// path on [File.Commit]. A path that names a device or a pipe (/dev/null, /dev/stderr, a
// FIFO) is written as it is instead: renaming a file over it would replace the device.
package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// File is a file being written to its path. Write to it, then Commit or Abort; calling
// Abort after Commit does nothing, so a deferred Abort cleans up every early return.
type File struct {
	f    *os.File
	path string
	temp bool // f is a temporary to rename over path
}

// Create opens a file that will take path on Commit: a temporary next to path, or path
// itself when it names an existing device or pipe. The errors are those of the os package.
func Create(path string) (*File, error) {
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() && !fi.IsDir() {
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return nil, err
		}
		return &File{f: f, path: path}, nil
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return nil, err
	}
	return &File{f: tmp, path: path, temp: true}, nil
}

// Write writes to the file.
func (f *File) Write(p []byte) (int, error) {
	if f.f == nil {
		return 0, os.ErrClosed
	}
	return f.f.Write(p)
}

// Commit closes the file and, for a temporary, makes it readable by all (as a file
// created by a shell would be: a report or a baseline is not private) and renames it over
// the path. On failure the temporary is removed and the path is left as it was.
func (f *File) Commit() error {
	file := f.f
	if file == nil {
		return nil
	}
	f.f = nil
	if err := file.Close(); err != nil {
		f.removeTemp(file)
		return err
	}
	if !f.temp {
		return nil
	}
	if err := os.Chmod(file.Name(), 0o644); err != nil {
		f.removeTemp(file)
		return err
	}
	if err := os.Rename(file.Name(), f.path); err != nil {
		f.removeTemp(file)
		return err
	}
	return nil
}

// CommitNew is Commit that never replaces a file: when path already exists it fails with
// an error wrapping fs.ErrExist and leaves path as it was. A device or pipe path is written
// as Create opened it. The temporary is linked to path, which fails when path exists, so
// no file that appears meanwhile is lost; on a file system without links it is renamed
// after a check, which a file created between the two would lose.
func (f *File) CommitNew() error {
	file := f.f
	if file == nil {
		return nil
	}
	if !f.temp {
		return f.Commit()
	}
	f.f = nil
	if err := file.Close(); err != nil {
		f.removeTemp(file)
		return err
	}
	if err := os.Chmod(file.Name(), 0o644); err != nil {
		f.removeTemp(file)
		return err
	}
	defer f.removeTemp(file)
	err := os.Link(file.Name(), f.path)
	if err == nil || errors.Is(err, fs.ErrExist) {
		return err
	}
	if _, statErr := os.Lstat(f.path); statErr == nil {
		return &fs.PathError{Op: "create", Path: f.path, Err: fs.ErrExist}
	}
	return os.Rename(file.Name(), f.path)
}

// Abort closes the file and removes the temporary, leaving the path as it was.
func (f *File) Abort() {
	file := f.f
	if file == nil {
		return
	}
	f.f = nil
	file.Close()
	f.removeTemp(file)
}

func (f *File) removeTemp(file *os.File) {
	if f.temp {
		os.Remove(file.Name())
	}
}
