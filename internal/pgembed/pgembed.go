// Package pgembed runs a private PostgreSQL cluster for one process, from the server binaries
// installed on the machine: initialised on first use in a data directory of its own, listening
// on a Unix socket in that directory only (no TCP port), stopped when the process stops it or
// dies. It is the database of a monitor started without a database URL; a cluster shared by
// several workers is an external database, as before.
package pgembed

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// The names inside the cluster: the superuser initdb creates and the database the monitor
// uses. Only the owner of the data directory (and root) can reach the socket, so the cluster
// trusts whoever connects through it.
const (
	Superuser = "mcpwatch"
	Database  = "mcpwatch"
)

const (
	// port only names the socket file (.s.PGSQL.5432): no TCP port is opened.
	port = 5432
	// maxSocketPath is the longest socket path every Unix takes (sun_path is 104 bytes on
	// macOS and the BSDs, 108 on Linux, with its terminating NUL).
	maxSocketPath = 103
	// logName is the server's log file in the data directory.
	logName = "mcpwatch-postgres.log"
)

var (
	// ErrInUse is the error when a PostgreSQL server still runs on the data directory.
	ErrInUse = errors.New("a PostgreSQL server already runs on the data directory")
	// ErrRootUser is the error when the process runs as root and has no unprivileged user to
	// run the server as (PostgreSQL refuses to run as root).
	ErrRootUser = errors.New("no unprivileged user to run the database server as")
	// ErrDataDir is the error when the data directory cannot be used as it is.
	ErrDataDir = errors.New("unusable data directory")
)

// Options sets a cluster up.
type Options struct {
	// DataDir is the cluster's directory (PGDATA), created and initialised when missing or
	// empty; required. The socket is made in it.
	DataDir string
	// Search is where the binaries are looked for (default: $PATH and DefaultSearch).
	Search *Search
	// RunAs is the user that runs the server when this process runs as root (default
	// "postgres", the user the distributions' packages create).
	RunAs string
	// StartTimeout bounds the start, initdb excluded (default 60s).
	StartTimeout time.Duration
	// StopTimeout is how long a fast shutdown may take before the server is stopped at
	// once (default 30s).
	StopTimeout time.Duration
	// Logger receives what the cluster does; nil discards it.
	Logger *slog.Logger
}

// Cluster is a running server.
type Cluster struct {
	dir         string
	bin         Binaries
	cmd         *exec.Cmd
	exited      chan struct{}
	waitErr     error // set before exited is closed
	logPath     string
	log         *slog.Logger
	stopTimeout time.Duration
	stopOnce    sync.Once
	stopErr     error
}

// DefaultDataDir is where the cluster lives when no directory is given: under the user's
// data directory ($XDG_DATA_HOME, else ~/.local/share; ~/Library/Application Support on
// macOS), and under /var/lib for root, whose home the server's user cannot enter.
func DefaultDataDir(goos string, euid int, getenv func(string) string) (string, error) {
	if euid == 0 && goos != "darwin" {
		return "/var/lib/mcpwatch/postgres", nil
	}
	home := getenv("HOME")
	switch {
	case goos == "darwin" && home != "":
		return filepath.Join(home, "Library", "Application Support", "mcpwatch", "postgres"), nil
	case getenv("XDG_DATA_HOME") != "":
		return filepath.Join(getenv("XDG_DATA_HOME"), "mcpwatch", "postgres"), nil
	case home != "":
		return filepath.Join(home, ".local", "share", "mcpwatch", "postgres"), nil
	}
	return "", fmt.Errorf("%w: neither $XDG_DATA_HOME nor $HOME is set: give --data-dir", ErrDataDir)
}

// Start finds the binaries, initialises the data directory when it holds no cluster yet,
// starts the server and waits until it answers, creating the database on first use. ctx
// bounds the start only: the server runs until Stop, or until this process dies (on Linux).
func Start(ctx context.Context, opts Options) (*Cluster, error) {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if opts.DataDir == "" {
		return nil, fmt.Errorf("%w: no data directory given", ErrDataDir)
	}
	dir, err := filepath.Abs(opts.DataDir)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrDataDir, err)
	}
	if sock := socketPath(dir); len(sock) > maxSocketPath {
		return nil, fmt.Errorf("%w: %s: the socket path %s is %d bytes, longer than the %d a Unix socket may have: choose a shorter --data-dir",
			ErrDataDir, dir, sock, len(sock), maxSocketPath)
	}
	name := opts.RunAs
	if name == "" {
		name = "postgres"
	}
	acct, err := serverAccount(name)
	if err != nil {
		return nil, err
	}
	search := opts.Search
	if search == nil {
		search = &Search{Path: os.Getenv("PATH"), Globs: DefaultSearch()}
	}
	existing, err := prepareDir(dir, acct)
	if err != nil {
		return nil, err
	}
	bin, err := FindBinaries(ctx, *search, existing)
	if err != nil {
		return nil, err
	}
	c := &Cluster{
		dir: dir, bin: bin, exited: make(chan struct{}), logPath: filepath.Join(dir, logName), log: log,
		stopTimeout: orDefault(opts.StopTimeout, 30*time.Second),
	}
	if existing == 0 {
		log.Info("initialising the database (first start)", "dataDir", dir, "postgres", bin.Version, "binaries", bin.Dir)
		if err := c.initdb(ctx, acct); err != nil {
			return nil, err
		}
	}
	if err := removeStalePid(dir, log); err != nil {
		return nil, err
	}
	if err := c.start(acct); err != nil {
		return nil, err
	}
	startCtx, cancel := context.WithTimeout(ctx, orDefault(opts.StartTimeout, 60*time.Second))
	defer cancel()
	if err := c.waitReady(startCtx); err != nil {
		_ = c.Stop()
		return nil, err
	}
	log.Info("database running", "dataDir", dir, "postgres", bin.Version, "serverLog", c.logPath, "psql", c.Psql())
	return c, nil
}

// orDefault is d, or def when d is not set.
func orDefault(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

// URL is the database URL of the cluster's database.
func (c *Cluster) URL() string {
	q := url.Values{"host": {c.dir}, "user": {Superuser}, "sslmode": {"disable"}}
	return "postgres:///" + Database + "?" + q.Encode()
}

// Dir is the data directory.
func (c *Cluster) Dir() string { return c.dir }

// Binaries is the installation the server runs from.
func (c *Cluster) Binaries() Binaries { return c.bin }

// Psql is the command that opens a psql session on the database.
func (c *Cluster) Psql() string {
	return fmt.Sprintf("psql %s", strconv.Quote(fmt.Sprintf("host=%s user=%s dbname=%s", c.dir, Superuser, Database)))
}

// Exited is closed when the server process ended, by Stop or on its own.
func (c *Cluster) Exited() <-chan struct{} { return c.exited }

// Stop shuts the server down: a fast shutdown (sessions ended, everything written), then,
// after StopTimeout, an immediate one. It returns the server's exit error, if any; calling it
// again returns the same.
func (c *Cluster) Stop() error {
	c.stopOnce.Do(func() {
		select {
		case <-c.exited:
			c.stopErr = fmt.Errorf("pgembed: the server had stopped on its own: %w%s", c.waitErr, c.logTail())
			return
		default:
		}
		_ = c.cmd.Process.Signal(syscall.SIGINT) // PostgreSQL's fast shutdown
		for _, step := range []struct {
			wait time.Duration
			next os.Signal
		}{{c.stopTimeout, syscall.SIGQUIT}, {5 * time.Second, syscall.SIGKILL}} {
			select {
			case <-c.exited:
				c.stopErr = c.waitErr
				c.log.Info("database stopped", "dataDir", c.dir)
				return
			case <-time.After(step.wait):
				c.log.Warn("the database did not stop in time; stopping it harder", "signal", step.next)
				_ = c.cmd.Process.Signal(step.next)
			}
		}
		<-c.exited
		c.stopErr = fmt.Errorf("pgembed: the server was killed: %w", c.waitErr)
	})
	return c.stopErr
}

// socketPath is the path of the server's socket in dir.
func socketPath(dir string) string { return filepath.Join(dir, ".s.PGSQL."+strconv.Itoa(port)) }

// prepareDir makes dir ready for the server's user and returns the major version of the
// cluster it holds, 0 when it holds none (it is then missing or empty).
func prepareDir(dir string, acct *account) (int, error) {
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
			return 0, fmt.Errorf("%w: %w", ErrDataDir, err)
		}
		// Before the directory is made: a refusal leaves nothing behind.
		if err := acct.canReach(dir); err != nil {
			return 0, err
		}
		if err := os.Mkdir(dir, 0o700); err != nil {
			return 0, fmt.Errorf("%w: %w", ErrDataDir, err)
		}
		return 0, acct.own(dir)
	case err != nil:
		return 0, fmt.Errorf("%w: %w", ErrDataDir, err)
	case !fi.IsDir():
		return 0, fmt.Errorf("%w: %s is not a directory", ErrDataDir, dir)
	}
	if err := acct.canReach(dir); err != nil {
		return 0, err
	}
	b, err := os.ReadFile(filepath.Join(dir, "PG_VERSION"))
	if err == nil {
		major, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil {
			return 0, fmt.Errorf("%w: %s/PG_VERSION holds %q, not a version", ErrDataDir, dir, strings.TrimSpace(string(b)))
		}
		if err := acct.owns(dir, fi); err != nil {
			return 0, err
		}
		return major, nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0, fmt.Errorf("%w: %w", ErrDataDir, err)
	}
	if len(entries) > 0 {
		return 0, fmt.Errorf("%w: %s holds files but no PostgreSQL cluster (no PG_VERSION): give an empty or new --data-dir", ErrDataDir, dir)
	}
	// An empty directory of one's own: PostgreSQL wants it private.
	if err := os.Chmod(dir, 0o700); err != nil {
		return 0, fmt.Errorf("%w: %w", ErrDataDir, err)
	}
	return 0, acct.own(dir)
}

// initdb initialises the cluster in the empty data directory.
func (c *Cluster) initdb(ctx context.Context, acct *account) error {
	cmd := exec.CommandContext(ctx, c.bin.Initdb(), "-D", c.dir, "-U", Superuser, "--auth=trust", "--encoding=UTF8", "--locale=C")
	cmd.Dir = c.dir
	cmd.Env = serverEnv()
	cmd.SysProcAttr = sysProcAttr(acct)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("pgembed: initdb in %s: %w\n%s", c.dir, err, lastLines(string(out), 15))
	}
	return nil
}

// start starts the server, its output appended to the log file.
func (c *Cluster) start(acct *account) error {
	logFile, err := os.OpenFile(c.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("pgembed: server log: %w", err)
	}
	defer logFile.Close() // the child has its own copy
	if err := acct.ownFile(c.logPath); err != nil {
		return err
	}
	c.cmd = exec.Command(c.bin.Postgres(), "-D", c.dir, "-p", strconv.Itoa(port),
		"-c", "listen_addresses=", "-c", "unix_socket_directories="+c.dir, "-c", "unix_socket_permissions=0700")
	c.cmd.Dir = c.dir
	c.cmd.Env = serverEnv()
	c.cmd.Stdout, c.cmd.Stderr = logFile, logFile
	c.cmd.SysProcAttr = sysProcAttr(acct)
	if err := c.cmd.Start(); err != nil {
		return fmt.Errorf("pgembed: start %s: %w", c.bin.Postgres(), err)
	}
	go func() {
		c.waitErr = c.cmd.Wait()
		close(c.exited)
	}()
	return nil
}

// waitReady waits until the server takes connections, and creates the database when missing.
func (c *Cluster) waitReady(ctx context.Context) error {
	q := url.Values{"host": {c.dir}, "user": {Superuser}, "sslmode": {"disable"}}
	admin := "postgres:///postgres?" + q.Encode()
	var last error
	for {
		select {
		case <-c.exited:
			return fmt.Errorf("pgembed: the server stopped at start: %w%s", c.waitErr, c.logTail())
		default:
		}
		attempt, cancel := context.WithTimeout(ctx, 5*time.Second)
		last = c.ensureDatabase(attempt, admin)
		cancel()
		if last == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("pgembed: the server did not answer in time: %w%s", last, c.logTail())
		case <-c.exited:
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// ensureDatabase connects to the maintenance database and creates the monitor's.
func (c *Cluster) ensureDatabase(ctx context.Context, admin string) error {
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var exists bool
	if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", Database).Scan(&exists); err != nil {
		return err
	}
	if !exists {
		if _, err := conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{Database}.Sanitize()); err != nil {
			return fmt.Errorf("create database %s: %w", Database, err)
		}
		c.log.Info("created the database", "database", Database)
	}
	return nil
}

// logTail is the end of the server's log, to explain a failure.
func (c *Cluster) logTail() string {
	b, err := os.ReadFile(c.logPath)
	if err != nil || len(b) == 0 {
		return ""
	}
	return "\nthe server's log (" + c.logPath + ") ends:\n" + lastLines(string(b), 10)
}

// lastLines is the last n lines of s.
func lastLines(s string, n int) string {
	var lines []string
	sc := bufio.NewScanner(strings.NewReader(s))
	for sc.Scan() {
		lines = append(lines, "  "+sc.Text())
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// serverEnv is this process's environment without the PG variables, which would point the
// server or initdb elsewhere (PGDATA, PGPORT...).
func serverEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PG") {
			env = append(env, kv)
		}
	}
	return env
}

// removeStalePid removes a postmaster.pid left by a server that no longer runs (a crash, a
// power cut, a container restarted with the PID now someone else's); a live server's is an
// error: two servers on one directory would corrupt it.
func removeStalePid(dir string, log *slog.Logger) error {
	path := filepath.Join(dir, "postmaster.pid")
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%w: %w", ErrDataDir, err)
	}
	first, _ := bufio.NewReader(io.LimitReader(f, 64)).ReadString('\n')
	f.Close()
	pid, _ := strconv.Atoi(strings.TrimSpace(first))
	if pid > 0 && pid != os.Getpid() && runsPostgres(pid, dir) {
		return fmt.Errorf("%w: PostgreSQL (PID %d) runs on %s: is another 'prober run' using it? Stop that one, or share its database with --database-url %q",
			ErrInUse, pid, dir, (&Cluster{dir: dir}).URL())
	}
	if err := os.Remove(path); err != nil {
		return fmt.Errorf("%w: remove the stale %s: %w", ErrDataDir, path, err)
	}
	log.Warn("removed a stale postmaster.pid: the server that wrote it no longer runs", "pid", pid, "dataDir", dir)
	return nil
}
