package metrics

import (
	"math"
	"os"
	"testing"
	"time"
)

func TestProcessCollectorReadsProcSelf(t *testing.T) {
	t.Parallel()
	got := collected(NewProcessCollector())
	now := float64(time.Now().Unix())
	tests := []struct {
		name string
		ok   func(float64) bool
	}{
		{"process_cpu_seconds_total", func(v float64) bool { return v >= 0 }},
		{"process_resident_memory_bytes", func(v float64) bool { return v > 1<<20 }},
		{"process_virtual_memory_bytes", func(v float64) bool { return v >= got["process_resident_memory_bytes"] }},
		// Started before now, and not before the test binary was built.
		{"process_start_time_seconds", func(v float64) bool { return v <= now+1 && v > now-3600 }},
		{"process_open_fds", func(v float64) bool { return v >= 3 }},
		{"process_max_fds", func(v float64) bool { return v >= got["process_open_fds"] }},
	}
	if len(got) != len(tests) {
		t.Errorf("%d families, want %d: %v", len(got), len(tests), got)
	}
	for _, tt := range tests {
		if v, ok := got[tt.name]; !ok || !tt.ok(v) {
			t.Errorf("%s = %v (collected %v)", tt.name, v, ok)
		}
	}
}

func TestProcessCollectorCountsCPUTimeSpent(t *testing.T) {
	c := NewProcessCollector()
	before := collected(c)["process_cpu_seconds_total"]
	// Spin until the ticks of the kernel show it; a loaded machine may take a while.
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		if collected(c)["process_cpu_seconds_total"] >= before+0.05 {
			return
		}
	}
	t.Errorf("cpu seconds %v, then %v after 10s of spinning", before, collected(c)["process_cpu_seconds_total"])
}

func TestParseStatCountsFieldsFromTheLastParenthesis(t *testing.T) {
	t.Parallel()
	const rest = " S 1 2 3 4 5 6 7 8 9 10 11 22 33 12 13 14 15 16 4455 8192 301 18446744073709551615"
	want := procStat{utime: 11, stime: 22, starttime: 4455, vsize: 8192, rss: 301}
	tests := []struct {
		name string
		raw  string
		ok   bool
	}{
		{"plain command", "1234 (prober)" + rest + "\n", true},
		{"command with spaces and parentheses", "1234 (a) b (c) d)" + rest + "\n", true},
		{"no command", "1234 prober" + rest, false},
		{"truncated", "1234 (prober) S 1 2 3", false},
		{"not a number", "1234 (prober) S 1 2 3 4 5 6 7 8 9 10 x 22 33 12 13 14 15 16 4455 8192 301", false},
	}
	for _, tt := range tests {
		st, err := parseStat([]byte(tt.raw))
		if (err == nil) != tt.ok || tt.ok && st != want {
			t.Errorf("%s: %+v, %v", tt.name, st, err)
		}
	}
}

func TestParseBootTimeReadsTheBtimeLine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		raw  string
		want uint64
		ok   bool
	}{
		{"cpu  1 2 3\nintr 5\nbtime 1760000000\nprocesses 9\n", 1760000000, true},
		{"cpu  1 2 3\nprocesses 9\n", 0, false},
		{"btime soon\n", 0, false},
	}
	for _, tt := range tests {
		got, err := parseBootTime([]byte(tt.raw))
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("%q: %v, %v", tt.raw, got, err)
		}
	}
}

func TestParseMaxOpenFilesReadsTheSoftLimit(t *testing.T) {
	t.Parallel()
	const head = "Limit                     Soft Limit           Hard Limit           Units     \n" +
		"Max cpu time              unlimited            unlimited            seconds   \n"
	tests := []struct {
		raw  string
		want float64
		ok   bool
	}{
		{head + "Max open files            1024                 524288               files     \n", 1024, true},
		{head + "Max open files            unlimited            unlimited            files     \n", math.Inf(1), true},
		{head, 0, false},
		{head + "Max open files            many                 524288               files     \n", 0, false},
	}
	for _, tt := range tests {
		got, err := parseMaxOpenFiles([]byte(tt.raw))
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("%q: %v, %v", tt.raw, got, err)
		}
	}
	if raw, err := os.ReadFile("/proc/self/limits"); err != nil {
		t.Error(err)
	} else if n, err := parseMaxOpenFiles(raw); err != nil || n < 3 {
		t.Errorf("this process's limits: %v, %v", n, err)
	}
}
