package process

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// Stat is what /proc/<pid>/stat says of a process: enough to tell its parent and its
// process group, and whether it has ended.
type Stat struct {
	PID, PPID, PGID int
	State           byte // 'Z' for a zombie, 'X' for one being reaped
	Command         string
	flags           uint64 // the kernel's task flags (0 when the line stops short of them)
}

// Dead reports whether the process has ended (it may wait to be reaped).
func (p Stat) Dead() bool { return p.State == 'Z' || p.State == 'X' }

// ReadStat reads /proc/<pid>/stat; the error is the file's.
func ReadStat(pid int) (Stat, error) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return Stat{}, err
	}
	p, ok := parseStat(data)
	if !ok {
		return Stat{}, fmt.Errorf("/proc/%d/stat: unexpected format", pid)
	}
	return p, nil
}

// Processes lists every process of the machine, zombies included. Processes that end while
// it reads are left out.
func Processes() []Stat {
	// One glob of /proc's own entries: a pattern that goes on into each directory
	// ("/proc/[0-9]*/stat") would list every process's directory to match the file name.
	dirs, err := filepath.Glob("/proc/[0-9]*")
	if err != nil {
		return nil
	}
	out := make([]Stat, 0, len(dirs))
	for _, dir := range dirs {
		data, err := os.ReadFile(dir + "/stat")
		if err != nil {
			continue
		}
		if p, ok := parseStat(data); ok {
			out = append(out, p)
		}
	}
	return out
}

// parseStat reads "pid (comm) state ppid pgrp session tty_nr tpgid flags ...". comm may
// hold spaces and parentheses, so the fields after it are found from the last ')'.
func parseStat(data []byte) (Stat, bool) {
	open, end := bytes.IndexByte(data, '('), bytes.LastIndexByte(data, ')')
	if open < 0 || end < open {
		return Stat{}, false
	}
	pid, err := strconv.Atoi(string(bytes.TrimSpace(data[:open])))
	if err != nil {
		return Stat{}, false
	}
	fields := bytes.Fields(data[end+1:])
	if len(fields) < 3 || len(fields[0]) != 1 {
		return Stat{}, false
	}
	ppid, err1 := strconv.Atoi(string(fields[1]))
	pgrp, err2 := strconv.Atoi(string(fields[2]))
	if err1 != nil || err2 != nil {
		return Stat{}, false
	}
	p := Stat{PID: pid, PPID: ppid, PGID: pgrp, State: fields[0][0], Command: string(data[open+1 : end])}
	if len(fields) > 6 {
		flags, err := strconv.ParseUint(string(fields[6]), 10, 64)
		if err != nil {
			return Stat{}, false
		}
		p.flags = flags
	}
	return p, true
}
