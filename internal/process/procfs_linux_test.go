package process

import (
	"os"
	"syscall"
	"testing"
)

func TestParseStatCopesWithOddCommandNames(t *testing.T) {
	tests := []struct {
		name string
		stat string
		want Stat
		ok   bool
	}{
		{"plain", "123 (sleep) S 1 120 120 0 -1", Stat{PID: 123, PPID: 1, PGID: 120, State: 'S', Command: "sleep"}, true},
		{"spaces and parentheses", "77 (a (b) c) Z 5 77 77", Stat{PID: 77, PPID: 5, PGID: 77, State: 'Z', Command: "a (b) c"}, true},
		{"with flags", "9 (x) R 1 9 9 0 -1 4194368 0", Stat{PID: 9, PPID: 1, PGID: 9, State: 'R', Command: "x", flags: 4194368}, true},
		{"truncated", "77 (x) S 5", Stat{}, false},
		{"garbage", "hello", Stat{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := parseStat([]byte(tt.stat))
			if ok != tt.ok || got != tt.want {
				t.Errorf("parseStat(%q) = %v, %v; want %v, %v", tt.stat, got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestProcessesSeesThisProcess(t *testing.T) {
	self := os.Getpid()
	for _, p := range Processes() {
		if p.PID == self {
			if p.PGID != syscall.Getpgrp() {
				t.Errorf("own process group %d, want %d", p.PGID, syscall.Getpgrp())
			}
			return
		}
	}
	t.Fatalf("pid %d not among the processes", self)
}
