//go:build unix

package pgembed

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
)

// account is the unprivileged user that runs the server when this process runs as root; nil
// when it does not (the server then runs as this process's user).
type account struct {
	name     string
	uid, gid uint32
	groups   []uint32
}

// serverAccount is the user to run the server as: nil unless this process runs as root,
// then the user name, which must exist and not be root.
func serverAccount(name string) (*account, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup(name)
	if err != nil {
		return nil, fmt.Errorf("%w: this process runs as root, which PostgreSQL refuses to run as, and user %q does not exist (%w): run prober as an ordinary user, create the user (useradd --system %s; installing PostgreSQL's server package creates it), or give --database-url",
			ErrRootUser, name, err, name)
	}
	a := &account{name: name}
	uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
	gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
	if err := errors.Join(err1, err2); err != nil {
		return nil, fmt.Errorf("%w: user %q: %w", ErrRootUser, name, err)
	}
	if uid == 0 {
		return nil, fmt.Errorf("%w: user %q is root too: run prober as an ordinary user or give --database-url", ErrRootUser, name)
	}
	a.uid, a.gid = uint32(uid), uint32(gid)
	gids, _ := u.GroupIds() // without them the user's primary group still counts
	for _, g := range gids {
		if n, err := strconv.ParseUint(g, 10, 32); err == nil {
			a.groups = append(a.groups, uint32(n))
		}
	}
	if !slices.Contains(a.groups, a.gid) {
		a.groups = append(a.groups, a.gid)
	}
	return a, nil
}

// sysProcAttr runs a child in a process group of its own (a Ctrl-C at the terminal reaches
// the monitor, which stops the server after it has written its last runs), as the account
// when there is one.
func sysProcAttr(a *account) *syscall.SysProcAttr {
	attr := &syscall.SysProcAttr{Setpgid: true}
	setParentDeathSignal(attr)
	if a != nil {
		attr.Credential = &syscall.Credential{Uid: a.uid, Gid: a.gid, Groups: a.groups}
	}
	return attr
}

// own gives the new or empty directory to the account.
func (a *account) own(dir string) error {
	if a == nil {
		return nil
	}
	if err := os.Chown(dir, int(a.uid), int(a.gid)); err != nil {
		return fmt.Errorf("%w: give %s to user %s: %w", ErrDataDir, dir, a.name, err)
	}
	return a.canReach(dir)
}

// ownFile gives a file of the data directory to the account.
func (a *account) ownFile(path string) error {
	if a == nil {
		return nil
	}
	if err := os.Chown(path, int(a.uid), int(a.gid)); err != nil {
		return fmt.Errorf("%w: give %s to user %s: %w", ErrDataDir, path, a.name, err)
	}
	return nil
}

// owns checks that the cluster's directory belongs to the account.
func (a *account) owns(dir string, fi fs.FileInfo) error {
	if a == nil {
		return nil
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Uid != a.uid {
		return fmt.Errorf("%w: %s belongs to uid %d, not to user %s that runs the server: chown -R %s %s, or give another --data-dir",
			ErrDataDir, dir, st.Uid, a.name, a.name, dir)
	}
	return nil
}

// canReach checks that the account can enter every directory above dir: a data directory
// under root's home (mode 0700) is out of the server's reach.
func (a *account) canReach(dir string) error {
	if a == nil {
		return nil
	}
	for p := filepath.Dir(dir); ; p = filepath.Dir(p) {
		fi, err := os.Stat(p)
		if err != nil {
			return fmt.Errorf("%w: %w", ErrDataDir, err)
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); ok && !a.canEnter(fi.Mode().Perm(), st) {
			return fmt.Errorf("%w: user %s, which runs the server, cannot enter %s (mode %04o, owner uid %d): give a --data-dir it can reach, such as /var/lib/mcpwatch/postgres",
				ErrDataDir, a.name, p, fi.Mode().Perm(), st.Uid)
		}
		if p == filepath.Dir(p) {
			return nil
		}
	}
}

func (a *account) canEnter(perm fs.FileMode, st *syscall.Stat_t) bool {
	switch {
	case st.Uid == a.uid:
		return perm&0o100 != 0
	case slices.Contains(a.groups, st.Gid):
		return perm&0o010 != 0
	}
	return perm&0o001 != 0
}

// runsPostgres says whether pid is alive and a PostgreSQL server: its socket in dir answers,
// or (where /proc tells) the process is named postgres. A PID now someone else's is not.
func runsPostgres(pid int, dir string) bool {
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	if c, err := dialUnix(socketPath(dir)); err == nil {
		c.Close()
		return true
	}
	comm, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
	if err != nil {
		return !errors.Is(err, os.ErrNotExist) || !procMounted()
	}
	return string(comm) == "postgres\n" || string(comm) == "postmaster\n"
}

// procMounted says whether /proc describes processes here (Linux); elsewhere a live PID
// cannot be told apart and counts as the server.
func procMounted() bool {
	_, err := os.Stat("/proc/self/comm")
	return err == nil
}
