package pgembed

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeInstall makes dir/bin hold a postgres that prints version and an initdb.
func fakeInstall(t *testing.T, dir, version string) string {
	t.Helper()
	bin := filepath.Join(dir, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\necho 'postgres (PostgreSQL) " + version + "'\n"
	for name, body := range map[string]string{"postgres": script, "initdb": "#!/bin/sh\nexit 0\n"} {
		if err := os.WriteFile(filepath.Join(bin, name), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return bin
}

func TestFindBinariesChoosesTheDataDirectorysVersionElseTheNewest(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	onPath := fakeInstall(t, filepath.Join(root, "path"), "15.8 (Debian 15.8-0+deb12u1)")
	fakeInstall(t, filepath.Join(root, "lib", "9"), "9.6.24")
	fakeInstall(t, filepath.Join(root, "lib", "16"), "16.4")
	globs := []string{filepath.Join(root, "lib", "*", "bin")}
	for _, tc := range []struct {
		name    string
		path    string
		want    int
		dir     string
		version string
		err     string
	}{
		{"the newest when no cluster exists", onPath, 0, filepath.Join(root, "lib", "16", "bin"), "16.4", ""},
		{"the data directory's version, found on PATH", onPath, 15, onPath, "15.8", ""},
		{"an older version of the usual places", "", 9, filepath.Join(root, "lib", "9", "bin"), "9.6", ""},
		{"no install of the data directory's version", "", 15, "", "", "version 15, the version of the data directory; found 16"},
	} {
		b, err := FindBinaries(context.Background(), Search{Path: tc.path, Globs: globs}, tc.want)
		if tc.err != "" {
			if !errors.Is(err, ErrNoBinaries) || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want ErrNoBinaries saying %q", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil || b.Dir != tc.dir || b.Version != tc.version {
			t.Errorf("%s: %+v, %v; want %s version %s", tc.name, b, err, tc.dir, tc.version)
		}
	}
}

func TestFindBinariesWithoutAnyInstallSaysHowToInstallOne(t *testing.T) {
	t.Parallel()
	empty := t.TempDir()
	// A directory with postgres but no initdb is no install.
	half := filepath.Join(empty, "half")
	if err := os.MkdirAll(half, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(half, "postgres"), []byte("#!/bin/sh\necho 'postgres (PostgreSQL) 16.1'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := FindBinaries(context.Background(), Search{Path: half, Globs: []string{filepath.Join(empty, "none", "*", "bin")}}, 0)
	if !errors.Is(err, ErrNoBinaries) {
		t.Fatalf("error %v, want ErrNoBinaries", err)
	}
	for _, want := range []string{"apt-get install postgresql", "dnf install postgresql-server", "brew install postgresql@16", "--database-url"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error does not say %q:\n%v", want, err)
		}
	}
}

func TestParseVersionReadsTheMajorVersion(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		out     string
		major   int
		version string
		bad     bool
	}{
		{"postgres (PostgreSQL) 15.8 (Debian 15.8-0+deb12u1)\n", 15, "15.8", false},
		{"postgres (PostgreSQL) 17beta1\n", 17, "17beta1", false},
		{"postgres (PostgreSQL) 9.6.24\n", 9, "9.6", false},
		{"something else 16.1\n", 0, "", true},
	} {
		b, err := parseVersion("/x", tc.out)
		if tc.bad != (err != nil) || b.Major != tc.major || b.Version != tc.version {
			t.Errorf("parseVersion(%q) = %+v, %v; want major %d version %q", tc.out, b, err, tc.major, tc.version)
		}
	}
}

func TestDefaultDataDirIsUnderTheUsersDataDirectoryAndUnderVarLibForRoot(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		goos string
		euid int
		env  map[string]string
		want string
	}{
		{"root on Linux", "linux", 0, map[string]string{"HOME": "/root"}, "/var/lib/mcpwatch/postgres"},
		{"a user", "linux", 1000, map[string]string{"HOME": "/home/ann"}, "/home/ann/.local/share/mcpwatch/postgres"},
		{"a user with XDG_DATA_HOME", "linux", 1000, map[string]string{"HOME": "/home/ann", "XDG_DATA_HOME": "/data"}, "/data/mcpwatch/postgres"},
		{"a user on macOS", "darwin", 501, map[string]string{"HOME": "/Users/ann"}, "/Users/ann/Library/Application Support/mcpwatch/postgres"},
		{"no home", "linux", 1000, nil, ""},
	} {
		got, err := DefaultDataDir(tc.goos, tc.euid, func(k string) string { return tc.env[k] })
		if got != tc.want || (tc.want == "") != errors.Is(err, ErrDataDir) {
			t.Errorf("%s: %q, %v; want %q", tc.name, got, err, tc.want)
		}
	}
}
