package probe

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
)

// procStat is what /proc/<pid>/stat says of a process that the probe needs.
type procStat struct {
	pid, ppid, pgrp int
	state           byte // 'Z' for a zombie, 'X' for one being reaped
	comm            string
	flags           uint64 // the kernel's task flags (0 when the line stops short of them)
}

func (p procStat) String() string {
	return fmt.Sprintf("pid %d ppid %d pgrp %d state %c (%s)", p.pid, p.ppid, p.pgrp, p.state, p.comm)
}

// dead reports whether the process has ended (it may wait to be reaped).
func (p procStat) dead() bool { return p.state == 'Z' || p.state == 'X' }

// readProcStat reads /proc/<pid>/stat; the error is the file's.
func readProcStat(pid int) (procStat, error) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procStat{}, err
	}
	p, ok := parseProcStat(data)
	if !ok {
		return procStat{}, fmt.Errorf("/proc/%d/stat: unexpected format", pid)
	}
	return p, nil
}

// parseProcStat reads "pid (comm) state ppid pgrp session tty_nr tpgid flags ...". comm may
// hold spaces and parentheses, so the fields after it are found from the last ')'.
func parseProcStat(data []byte) (procStat, bool) {
	open, end := bytes.IndexByte(data, '('), bytes.LastIndexByte(data, ')')
	if open < 0 || end < open {
		return procStat{}, false
	}
	pid, err := strconv.Atoi(string(bytes.TrimSpace(data[:open])))
	if err != nil {
		return procStat{}, false
	}
	fields := bytes.Fields(data[end+1:])
	if len(fields) < 3 || len(fields[0]) != 1 {
		return procStat{}, false
	}
	ppid, err1 := strconv.Atoi(string(fields[1]))
	pgrp, err2 := strconv.Atoi(string(fields[2]))
	if err1 != nil || err2 != nil {
		return procStat{}, false
	}
	p := procStat{pid: pid, ppid: ppid, pgrp: pgrp, state: fields[0][0], comm: string(data[open+1 : end])}
	if len(fields) > 6 {
		flags, err := strconv.ParseUint(string(fields[6]), 10, 64)
		if err != nil {
			return procStat{}, false
		}
		p.flags = flags
	}
	return p, true
}
