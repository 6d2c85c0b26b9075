package probe

import (
	"os"
	"testing"

	"github.com/mcpwatch/mcpwatch/internal/process"
)

// processTable lists every process on the machine. Processes that end while it reads are
// skipped.
func processTable(t *testing.T) []process.Stat {
	t.Helper()
	out := process.Processes()
	if len(out) == 0 {
		t.Fatal("no process found in /proc")
	}
	return out
}

// groupMembers lists the processes of a process group, zombies included.
func groupMembers(t *testing.T, pgid int) []process.Stat {
	t.Helper()
	var out []process.Stat
	for _, p := range processTable(t) {
		if p.PGID == pgid {
			out = append(out, p)
		}
	}
	return out
}

// childrenOf lists the children of a process, zombies included.
func childrenOf(t *testing.T, pid int) []process.Stat {
	t.Helper()
	var out []process.Stat
	for _, p := range processTable(t) {
		if p.PPID == pid {
			out = append(out, p)
		}
	}
	return out
}

// assertGroupGone fails unless nothing of the group is left: no live process, and when this
// process reaps orphans (adopting is true), no zombie either.
func assertGroupGone(t *testing.T, pgid int, adopting bool) {
	t.Helper()
	for _, p := range groupMembers(t, pgid) {
		if p.State != 'Z' || adopting || p.PPID == os.Getpid() {
			t.Errorf("process of group %d survived the probe: %v", pgid, p)
		}
	}
}
