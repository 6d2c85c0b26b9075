package probe

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
)

// procEntry is one process as /proc/<pid>/stat describes it.
type procEntry struct {
	pid, ppid, pgrp int
	state           byte // 'Z' for a zombie
	comm            string
}

func (p procEntry) String() string {
	return fmt.Sprintf("pid %d ppid %d pgrp %d state %c (%s)", p.pid, p.ppid, p.pgrp, p.state, p.comm)
}

// processTable lists every process on the machine. Processes that end while it reads are
// skipped.
func processTable(t *testing.T) []procEntry {
	t.Helper()
	stats, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil {
		t.Fatalf("listing /proc: %v", err)
	}
	var out []procEntry
	for _, path := range stats {
		data, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		if p, ok := parseProcStat(data); ok {
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		t.Fatal("no process found in /proc")
	}
	return out
}

// parseProcStat reads "pid (comm) state ppid pgrp ...". comm may hold spaces and parentheses,
// so the fields after it are found from the last ')'.
func parseProcStat(data []byte) (procEntry, bool) {
	open, end := bytes.IndexByte(data, '('), bytes.LastIndexByte(data, ')')
	if open < 0 || end < open {
		return procEntry{}, false
	}
	pid, err := strconv.Atoi(string(bytes.TrimSpace(data[:open])))
	if err != nil {
		return procEntry{}, false
	}
	fields := bytes.Fields(data[end+1:])
	if len(fields) < 3 || len(fields[0]) != 1 {
		return procEntry{}, false
	}
	ppid, err1 := strconv.Atoi(string(fields[1]))
	pgrp, err2 := strconv.Atoi(string(fields[2]))
	if err1 != nil || err2 != nil {
		return procEntry{}, false
	}
	return procEntry{pid: pid, ppid: ppid, pgrp: pgrp, state: fields[0][0], comm: string(data[open+1 : end])}, true
}

// groupMembers lists the processes of a process group, zombies included.
func groupMembers(t *testing.T, pgid int) []procEntry {
	t.Helper()
	var out []procEntry
	for _, p := range processTable(t) {
		if p.pgrp == pgid {
			out = append(out, p)
		}
	}
	return out
}

// childrenOf lists the children of a process, zombies included.
func childrenOf(t *testing.T, pid int) []procEntry {
	t.Helper()
	var out []procEntry
	for _, p := range processTable(t) {
		if p.ppid == pid {
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
		if p.state != 'Z' || adopting || p.ppid == os.Getpid() {
			t.Errorf("process of group %d survived the probe: %v", pgid, p)
		}
	}
}

func TestParseProcStatCopesWithOddCommandNames(t *testing.T) {
	tests := []struct {
		name string
		stat string
		want procEntry
		ok   bool
	}{
		{"plain", "123 (sleep) S 1 120 120 0 -1", procEntry{123, 1, 120, 'S', "sleep"}, true},
		{"spaces and parentheses", "77 (a (b) c) Z 5 77 77", procEntry{77, 5, 77, 'Z', "a (b) c"}, true},
		{"truncated", "77 (x) S 5", procEntry{}, false},
		{"garbage", "hello", procEntry{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := parseProcStat([]byte(tt.stat))
			if ok != tt.ok || got != tt.want {
				t.Errorf("parseProcStat(%q) = %v, %v; want %v, %v", tt.stat, got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestProcessTableSeesThisProcess(t *testing.T) {
	self := os.Getpid()
	for _, p := range processTable(t) {
		if p.pid == self {
			if p.pgrp != syscall.Getpgrp() {
				t.Errorf("own process group %d, want %d", p.pgrp, syscall.Getpgrp())
			}
			return
		}
	}
	t.Fatalf("pid %d not in the process table", self)
}
