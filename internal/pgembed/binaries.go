package pgembed

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// ErrNoBinaries is the error when no directory holds both postgres and initdb.
var ErrNoBinaries = errors.New("no PostgreSQL server binaries (postgres and initdb) found")

// DefaultSearch returns the usual places of the server binaries beyond PATH, as globs: Debian
// and Ubuntu's versioned directories, the PGDG packages of Fedora and RHEL, Homebrew's
// versioned and unversioned prefixes on Apple silicon and Intel, and a build from source.
func DefaultSearch() []string {
	return []string{
		"/usr/lib/postgresql/*/bin",
		"/usr/pgsql-*/bin",
		"/opt/homebrew/opt/postgresql@*/bin",
		"/opt/homebrew/opt/postgresql/bin",
		"/usr/local/opt/postgresql@*/bin",
		"/usr/local/opt/postgresql/bin",
		"/usr/local/pgsql/bin",
	}
}

// InstallHint is what to do when no binaries are found: the one command per platform, and
// the alternative of an external database.
const InstallHint = `install the PostgreSQL server:
  Debian, Ubuntu:  sudo apt-get install postgresql
  Fedora:          sudo dnf install postgresql-server
  macOS:           brew install postgresql@16
or use a database of your own: --database-url postgres://USER@HOST/DB (or $MCPWATCH_DATABASE_URL)`

// Binaries is one installation of the PostgreSQL server.
type Binaries struct {
	Dir     string // holds postgres and initdb
	Major   int    // the major version, such as 16
	Version string // what postgres --version says, such as "16.4"
}

// Postgres and Initdb are the paths of the two programs.
func (b Binaries) Postgres() string { return filepath.Join(b.Dir, "postgres") }
func (b Binaries) Initdb() string   { return filepath.Join(b.Dir, "initdb") }

// Search says where FindBinaries looks.
type Search struct {
	// Path is the list of directories of $PATH, looked at first.
	Path string
	// Globs are the usual places (DefaultSearch).
	Globs []string
}

// FindBinaries returns the installation to use: the one of major version want when want is
// not 0 (the version a data directory was made by), else the newest. Every directory of
// s.Path and s.Globs that holds both programs is a candidate. The error wraps ErrNoBinaries
// and names where it looked and how to install them, or says which versions were found when
// none is of version want.
func FindBinaries(ctx context.Context, s Search, want int) (Binaries, error) {
	var dirs []string
	for _, d := range filepath.SplitList(s.Path) {
		if d != "" {
			dirs = append(dirs, d)
		}
	}
	for _, g := range s.Globs {
		m, _ := filepath.Glob(g) // only ErrBadPattern, and the patterns are ours
		// Newest version first: postgresql@9 would sort after postgresql@16 as text.
		slices.SortFunc(m, func(a, b string) int { return versionIn(b) - versionIn(a) })
		dirs = append(dirs, m...)
	}
	var found []Binaries
	seen := map[string]bool{}
	for _, d := range dirs {
		if !executable(filepath.Join(d, "postgres")) || !executable(filepath.Join(d, "initdb")) {
			continue
		}
		// /usr/local/bin/postgres may be a link into /usr/lib/postgresql/15/bin: one install.
		real, err := filepath.EvalSymlinks(filepath.Join(d, "postgres"))
		if err != nil || seen[real] {
			continue
		}
		seen[real] = true
		b, err := probeVersion(ctx, d)
		if err != nil {
			continue // a broken install is not one to use; the others may do
		}
		found = append(found, b)
	}
	if len(found) == 0 {
		return Binaries{}, fmt.Errorf("%w on PATH or in %s; %s", ErrNoBinaries, strings.Join(s.Globs, ", "), InstallHint)
	}
	if want == 0 {
		// The first found of the newest major: PATH wins among equals.
		best := found[0]
		for _, b := range found[1:] {
			if b.Major > best.Major {
				best = b
			}
		}
		return best, nil
	}
	var majors []string
	for _, b := range found {
		if b.Major == want {
			return b, nil
		}
		majors = append(majors, fmt.Sprintf("%d (%s)", b.Major, b.Dir))
	}
	return Binaries{}, fmt.Errorf("%w of version %d, the version of the data directory; found %s: install PostgreSQL %d's server, or start afresh with another --data-dir",
		ErrNoBinaries, want, strings.Join(majors, ", "), want)
}

// versionRE finds the version in "postgres (PostgreSQL) 16.4 (Debian 16.4-1)" or "15beta1".
var versionRE = regexp.MustCompile(`\(PostgreSQL\) (\d+)(\.\d+|beta\d*|rc\d*|devel)?`)

// numberRE finds the version in a directory's name.
var numberRE = regexp.MustCompile(`\d+`)

// probeVersion asks the postgres of dir for its version.
func probeVersion(ctx context.Context, dir string) (Binaries, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, filepath.Join(dir, "postgres"), "--version").Output()
	if err != nil {
		return Binaries{}, fmt.Errorf("%s --version: %w", filepath.Join(dir, "postgres"), err)
	}
	return parseVersion(dir, string(out))
}

func parseVersion(dir, out string) (Binaries, error) {
	m := versionRE.FindStringSubmatch(out)
	if m == nil {
		return Binaries{}, fmt.Errorf("%s: no version in %q", dir, strings.TrimSpace(out))
	}
	major, err := strconv.Atoi(m[1])
	if err != nil {
		return Binaries{}, fmt.Errorf("%s: version %q: %w", dir, m[1], err)
	}
	return Binaries{Dir: dir, Major: major, Version: m[1] + m[2]}, nil
}

// versionIn is the first number in a path such as /usr/lib/postgresql/15/bin, 0 when none.
func versionIn(path string) int {
	m := numberRE.FindString(path)
	n, _ := strconv.Atoi(m)
	return n
}

func executable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}
