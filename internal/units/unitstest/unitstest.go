// Package unitstest reads the grammar tables of package units (its testdata), so that every
// reader of durations and sizes, the flags of the commands and the configuration's decoder,
// is tested on the same inputs.
package unitstest

import (
	"bufio"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// Row is one input of a table and what it reads as: nanoseconds or bytes, when OK.
type Row struct {
	In   string
	Want int64
	OK   bool
}

// Durations is the table of durations.
func Durations(t testing.TB) []Row { return read(t, "durations.txt") }

// Sizes is the table of sizes.
func Sizes(t testing.TB) []Row { return read(t, "sizes.txt") }

// read reads a table of lines `"input"<TAB>value` or `"input"<TAB>error`.
func read(t testing.TB, name string) []Row {
	t.Helper()
	_, self, _, _ := runtime.Caller(0)
	path := filepath.Join(filepath.Dir(self), "..", "testdata", name)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []Row
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		quoted, value, ok := strings.Cut(line, "\t")
		in, err := strconv.Unquote(quoted)
		if !ok || err != nil {
			t.Fatalf("%s: bad line %q", path, line)
		}
		r := Row{In: in}
		if value != "error" {
			if r.Want, err = strconv.ParseInt(value, 10, 64); err != nil {
				t.Fatalf("%s: bad value in %q", path, line)
			}
			r.OK = true
		}
		rows = append(rows, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rows
}
