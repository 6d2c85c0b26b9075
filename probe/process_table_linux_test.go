package probe

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// processTable lists every process on the machine. Processes that end while it reads are
// skipped.
func processTable(t *testing.T) []procStat {
	t.Helper()
	stats, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil {
		t.Fatalf("listing /proc: %v", err)
	}
	var out []procStat
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

// groupMembers lists the processes of a process group, zombies included.
func groupMembers(t *testing.T, pgid int) []procStat {
	t.Helper()
	var out []procStat
	for _, p := range processTable(t) {
		if p.pgrp == pgid {
			out = append(out, p)
		}
	}
	return out
}

// childrenOf lists the children of a process, zombies included.
func childrenOf(t *testing.T, pid int) []procStat {
	t.Helper()
	var out []procStat
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
		want procStat
		ok   bool
	}{
		{"plain", "123 (sleep) S 1 120 120 0 -1", procStat{pid: 123, ppid: 1, pgrp: 120, state: 'S', comm: "sleep"}, true},
		{"spaces and parentheses", "77 (a (b) c) Z 5 77 77", procStat{pid: 77, ppid: 5, pgrp: 77, state: 'Z', comm: "a (b) c"}, true},
		{"with flags", "9 (x) R 1 9 9 0 -1 4194368 0", procStat{pid: 9, ppid: 1, pgrp: 9, state: 'R', comm: "x", flags: 4194368}, true},
		{"truncated", "77 (x) S 5", procStat{}, false},
		{"garbage", "hello", procStat{}, false},
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
