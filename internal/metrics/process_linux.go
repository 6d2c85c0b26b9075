package metrics

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"sync/atomic"
)

var _ Collector = (*ProcessCollector)(nil)

// userHZ is the unit of the times of /proc/self/stat: the kernel reports them in USER_HZ
// ticks, which the Linux ABI fixes at 100 a second on every architecture.
const userHZ = 100

// ProcessCollector exposes the process's resource use under the names of the Prometheus
// conventions (process_cpu_seconds_total...), read from /proc/self at each collection. A file
// that cannot be read leaves its families out rather than failing the scrape.
type ProcessCollector struct {
	pageSize int
	start    atomic.Uint64 // float64 bits of the start time, 0 until read once: it never changes
}

// NewProcessCollector makes a collector of this process's CPU time, memory, file descriptors
// and start time.
func NewProcessCollector() *ProcessCollector {
	return &ProcessCollector{pageSize: os.Getpagesize()}
}

func (c *ProcessCollector) names() []string {
	return []string{"process_cpu_seconds_total", "process_resident_memory_bytes", "process_virtual_memory_bytes",
		"process_start_time_seconds", "process_open_fds", "process_max_fds"}
}

func (c *ProcessCollector) collect(dst []family) []family {
	gauge := func(name, help string, v float64) family {
		return desc{name, help}.single(kindGauge, series{value: v})
	}
	if raw, err := os.ReadFile("/proc/self/stat"); err == nil {
		if st, err := parseStat(raw); err == nil {
			dst = append(dst,
				desc{"process_cpu_seconds_total", "User and system CPU time spent, in seconds."}.single(kindCounter,
					series{value: float64(st.utime+st.stime) / userHZ}),
				gauge("process_resident_memory_bytes", "Resident memory size in bytes.", float64(st.rss*int64(c.pageSize))),
				gauge("process_virtual_memory_bytes", "Virtual memory size in bytes.", float64(st.vsize)))
			if start, ok := c.startTime(st.starttime); ok {
				dst = append(dst, gauge("process_start_time_seconds", "Start time of the process since the Unix epoch, in seconds.", start))
			}
		}
	}
	if n, err := openFDs(); err == nil {
		dst = append(dst, gauge("process_open_fds", "Open file descriptors.", float64(n)))
	}
	if raw, err := os.ReadFile("/proc/self/limits"); err == nil {
		if n, err := parseMaxOpenFiles(raw); err == nil {
			dst = append(dst, gauge("process_max_fds", "Maximum number of open file descriptors (the soft limit).", n))
		}
	}
	return dst
}

// startTime is the process's start time in Unix seconds, from its start in ticks after boot
// and the boot time in /proc/stat; read once.
func (c *ProcessCollector) startTime(ticks uint64) (float64, bool) {
	if bits := c.start.Load(); bits != 0 {
		return math.Float64frombits(bits), true
	}
	raw, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, false
	}
	boot, err := parseBootTime(raw)
	if err != nil {
		return 0, false
	}
	start := float64(boot) + float64(ticks)/userHZ
	c.start.Store(math.Float64bits(start))
	return start, true
}

// procStat is what the collector uses of /proc/self/stat.
type procStat struct {
	utime, stime uint64 // ticks
	starttime    uint64 // ticks after boot
	vsize        uint64 // bytes
	rss          int64  // pages
}

// parseStat reads the fields of proc(5)'s /proc/pid/stat. The command name (field 2) is in
// parentheses and may itself hold spaces and parentheses, so the fields are counted from the
// last closing one.
func parseStat(raw []byte) (procStat, error) {
	i := bytes.LastIndexByte(raw, ')')
	if i < 0 {
		return procStat{}, fmt.Errorf("stat: no command name in %q", raw)
	}
	fields := bytes.Fields(raw[i+1:]) // fields[0] is field 3, the state
	field := func(n int) []byte {
		if n-3 < len(fields) {
			return fields[n-3]
		}
		return nil
	}
	var st procStat
	var errs [5]error
	st.utime, errs[0] = strconv.ParseUint(string(field(14)), 10, 64)
	st.stime, errs[1] = strconv.ParseUint(string(field(15)), 10, 64)
	st.starttime, errs[2] = strconv.ParseUint(string(field(22)), 10, 64)
	st.vsize, errs[3] = strconv.ParseUint(string(field(23)), 10, 64)
	st.rss, errs[4] = strconv.ParseInt(string(field(24)), 10, 64)
	for _, err := range errs {
		if err != nil {
			return procStat{}, fmt.Errorf("stat: %w", err)
		}
	}
	return st, nil
}

// parseBootTime reads the btime line of /proc/stat: the boot time in Unix seconds.
func parseBootTime(raw []byte) (uint64, error) {
	for line := range bytes.SplitSeq(raw, []byte("\n")) {
		if v, ok := bytes.CutPrefix(line, []byte("btime ")); ok {
			n, err := strconv.ParseUint(string(bytes.TrimSpace(v)), 10, 64)
			if err != nil {
				return 0, fmt.Errorf("btime: %w", err)
			}
			return n, nil
		}
	}
	return 0, errors.New("no btime line in /proc/stat")
}

// parseMaxOpenFiles reads the soft limit of the "Max open files" line of /proc/self/limits;
// unlimited is +Inf.
func parseMaxOpenFiles(raw []byte) (float64, error) {
	const name = "Max open files"
	for line := range bytes.SplitSeq(raw, []byte("\n")) {
		rest, ok := bytes.CutPrefix(line, []byte(name))
		if !ok {
			continue
		}
		fields := bytes.Fields(rest)
		if len(fields) == 0 {
			break
		}
		if string(fields[0]) == "unlimited" {
			return math.Inf(1), nil
		}
		n, err := strconv.ParseUint(string(fields[0]), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%s: %w", name, err)
		}
		return float64(n), nil
	}
	return 0, fmt.Errorf("no %q line in limits", name)
}

// openFDs counts the entries of /proc/self/fd (the one reading it included, as every
// collector of this metric counts it).
func openFDs() (int, error) {
	d, err := os.Open("/proc/self/fd")
	if err != nil {
		return 0, err
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return 0, fmt.Errorf("/proc/self/fd: %w", err)
	}
	return len(names), nil
}
