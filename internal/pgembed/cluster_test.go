package pgembed

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// machineBinaries skips the test where the machine has no PostgreSQL server binaries, and
// fails it in CI, where they are installed.
func machineBinaries(t *testing.T) {
	t.Helper()
	_, err := FindBinaries(context.Background(), Search{Path: os.Getenv("PATH"), Globs: DefaultSearch()}, 0)
	if err == nil {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("CI installs PostgreSQL: %v", err)
	}
	t.Skipf("needs PostgreSQL's server binaries (apt-get install postgresql): %v", err)
}

// dataDir is a new data directory path that the server's user can reach: as root, the test's
// temporary directory (mode 0700, root's) is opened to it.
func dataDir(t *testing.T) string {
	t.Helper()
	return filepath.Join(reachableTempDir(t), "pg")
}

// reachableTempDir is t.TempDir opened to other users, with its parent.
func reachableTempDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, d := range []string{filepath.Dir(dir), dir} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func startCluster(t *testing.T, dir string, log *bytes.Buffer) *Cluster {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := Start(ctx, Options{DataDir: dir, Logger: slog.New(slog.NewTextHandler(log, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Stop() })
	return c
}

func query(t *testing.T, c *Cluster, sql string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, c.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var out string
	if err := conn.QueryRow(ctx, sql).Scan(&out); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return out
}

// A first start initialises the directory; a second keeps what the first wrote; the server
// listens on the socket of its directory only, never as root, and stops when asked.
func TestClusterInitialisesOnceKeepsItsDataAndListensOnItsSocketOnly(t *testing.T) {
	machineBinaries(t)
	dir := dataDir(t)
	var log bytes.Buffer
	c := startCluster(t, dir, &log)
	if !strings.Contains(log.String(), "initialising the database") || !strings.Contains(log.String(), "psql") {
		t.Errorf("the first start does not say it initialises and how to connect:\n%s", log.String())
	}
	if got := query(t, c, "SELECT current_setting('listen_addresses') || '|' || current_setting('unix_socket_directories')"); got != "|"+dir {
		t.Errorf("listen_addresses|unix_socket_directories = %q, want %q", got, "|"+dir)
	}
	query(t, c, "SELECT 'made' FROM (SELECT 1) x WHERE (SELECT count(*) FROM pg_tables) >= 0")
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, c.URL())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "CREATE TABLE kept (v text); INSERT INTO kept VALUES ('still here')"); err != nil {
		t.Fatal(err)
	}
	conn.Close(ctx)
	if os.Geteuid() == 0 {
		status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", c.cmd.Process.Pid))
		if err == nil && strings.Contains(string(status), "\nUid:\t0\t") {
			t.Errorf("the server runs as root:\n%s", status)
		}
	}
	if err := c.Stop(); err != nil {
		t.Fatalf("stop: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "postmaster.pid")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("postmaster.pid after a stop: %v", err)
	}

	log.Reset()
	c = startCluster(t, dir, &log)
	if strings.Contains(log.String(), "initialising") {
		t.Errorf("a second start initialises again:\n%s", log.String())
	}
	if got := query(t, c, "SELECT v FROM kept"); got != "still here" {
		t.Errorf("kept = %q", got)
	}

	// A second cluster on the same directory would corrupt it: refused while the first runs.
	_, err = Start(ctx, Options{DataDir: dir})
	if !errors.Is(err, ErrInUse) {
		t.Errorf("a second start on a directory in use: %v, want ErrInUse", err)
	}
}

// A postmaster.pid left by a server that died (its PID now gone, or someone else's) does not
// keep the cluster from starting.
func TestClusterStartsOverAStalePostmasterPid(t *testing.T) {
	machineBinaries(t)
	dir := dataDir(t)
	var log bytes.Buffer
	c := startCluster(t, dir, &log)
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	for _, pid := range []int{gone.Process.Pid, 1} { // a PID that ended; init, alive but no server
		stale := strconv.Itoa(pid) + "\n" + dir + "\n1700000000\n5432\n" + dir + "\n\n"
		if err := os.WriteFile(filepath.Join(dir, "postmaster.pid"), []byte(stale), 0o600); err != nil {
			t.Fatal(err)
		}
		log.Reset()
		c := startCluster(t, dir, &log)
		if !strings.Contains(log.String(), "stale postmaster.pid") {
			t.Errorf("PID %d: the start does not say it removed the stale file:\n%s", pid, log.String())
		}
		if err := c.Stop(); err != nil {
			t.Fatal(err)
		}
	}
}

// What cannot work is said before anything starts.
func TestClusterRefusesUnusableDataDirectories(t *testing.T) {
	machineBinaries(t)
	base := reachableTempDir(t)
	notEmpty := filepath.Join(base, "notempty")
	if err := os.MkdirAll(notEmpty, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(notEmpty, "notes.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	closed := filepath.Join(base, "closed")
	if err := os.MkdirAll(closed, 0o700); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, dir, says string
	}{
		{"a directory of other files", notEmpty, "holds files but no PostgreSQL cluster"},
		{"a socket path too long", filepath.Join(base, strings.Repeat("d", 100)), "longer than the 103"},
	}
	if os.Geteuid() == 0 {
		cases = append(cases, struct{ name, dir, says string }{"out of the server user's reach", filepath.Join(closed, "pg"), "cannot enter " + closed})
	}
	for _, tc := range cases {
		_, err := Start(context.Background(), Options{DataDir: tc.dir})
		if !errors.Is(err, ErrDataDir) || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%s: %v, want ErrDataDir saying %q", tc.name, err, tc.says)
		}
		if tc.dir != notEmpty {
			if _, err := os.Stat(tc.dir); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("%s: the refusal left %s behind (%v)", tc.name, tc.dir, err)
			}
		}
	}
}

// As root, without the user to run the server as, the error says what to do.
func TestClusterAsRootWithoutTheServerUserSaysWhatToDo(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("runs as root only")
	}
	_, err := Start(context.Background(), Options{DataDir: dataDir(t), RunAs: "mcpwatch-no-such-user"})
	if !errors.Is(err, ErrRootUser) || !strings.Contains(err.Error(), "--database-url") || !strings.Contains(err.Error(), "ordinary user") {
		t.Errorf("%v, want ErrRootUser with what to do", err)
	}
}
