package interop

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Proc is what /proc says about one process.
type Proc struct {
	PID     int
	PPID    int
	PGID    int
	State   string // "Z" for a zombie: exited, never waited for
	Command string // the command line, for messages
}

func (p Proc) String() string {
	return fmt.Sprintf("pid %d (ppid %d, pgid %d, state %s): %s", p.PID, p.PPID, p.PGID, p.State, p.Command)
}

// Processes lists every process of the machine that /proc shows. Processes that end while
// they are being read are left out.
func Processes() ([]Proc, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, fmt.Errorf("listing processes: %w", err)
	}
	var out []Proc
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		p, ok := readProc(pid)
		if ok {
			out = append(out, p)
		}
	}
	return out, nil
}

func readProc(pid int) (Proc, bool) {
	dir := filepath.Join("/proc", strconv.Itoa(pid))
	stat, err := os.ReadFile(filepath.Join(dir, "stat"))
	if err != nil {
		return Proc{}, false
	}
	// "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses, so the fields
	// are counted from the last ')'.
	end := bytes.LastIndexByte(stat, ')')
	if end < 0 {
		return Proc{}, false
	}
	fields := strings.Fields(string(stat[end+1:]))
	if len(fields) < 3 {
		return Proc{}, false
	}
	p := Proc{PID: pid, State: fields[0]}
	p.PPID, _ = strconv.Atoi(fields[1])
	p.PGID, _ = strconv.Atoi(fields[2])
	if cl, err := os.ReadFile(filepath.Join(dir, "cmdline")); err == nil && len(cl) > 0 {
		p.Command = strings.TrimSpace(strings.ReplaceAll(string(cl), "\x00", " "))
	} else {
		p.Command = "(" + string(stat[bytes.IndexByte(stat, '(')+1:end]) + ")"
	}
	return p, true
}

// Children lists the processes whose parent is pid, zombies included.
func Children(pid int) ([]Proc, error) {
	all, err := Processes()
	if err != nil {
		return nil, err
	}
	var out []Proc
	for _, p := range all {
		if p.PPID == pid {
			out = append(out, p)
		}
	}
	return out, nil
}

// GroupMembers lists the processes of process group pgid.
func GroupMembers(pgid int) ([]Proc, error) {
	all, err := Processes()
	if err != nil {
		return nil, err
	}
	var out []Proc
	for _, p := range all {
		if p.PGID == pgid {
			out = append(out, p)
		}
	}
	return out, nil
}

// ListeningAddrs returns the local addresses on which some process listens on TCP port port
// (IPv4 and IPv6), e.g. "127.0.0.1" or "::" for every interface.
func ListeningAddrs(port int) ([]string, error) {
	socks, err := listeningSockets()
	if err != nil {
		return nil, err
	}
	var out []string
	for _, s := range socks {
		if s.port == port {
			out = append(out, s.ip.String())
		}
	}
	return out, nil
}

// Listener is a listening TCP socket of a process.
type Listener struct {
	PID  int
	IP   net.IP
	Port int
}

func (l Listener) String() string {
	return fmt.Sprintf("%s (pid %d)", net.JoinHostPort(l.IP.String(), strconv.Itoa(l.Port)), l.PID)
}

// GroupListeners lists the TCP sockets on which the processes of group pgid listen: a server
// may open more than the port it was given (metrics, health), and each must be checked.
func GroupListeners(pgid int) ([]Listener, error) {
	socks, err := listeningSockets()
	if err != nil {
		return nil, err
	}
	byInode := make(map[string]listenSocket, len(socks))
	for _, s := range socks {
		byInode[s.inode] = s
	}
	members, err := GroupMembers(pgid)
	if err != nil {
		return nil, err
	}
	var out []Listener
	for _, m := range members {
		fdDir := filepath.Join("/proc", strconv.Itoa(m.PID), "fd")
		fds, err := os.ReadDir(fdDir)
		if err != nil {
			continue // ended meanwhile
		}
		for _, fd := range fds {
			link, err := os.Readlink(filepath.Join(fdDir, fd.Name()))
			if err != nil {
				continue
			}
			inode, ok := strings.CutPrefix(link, "socket:[")
			if !ok {
				continue
			}
			if s, ok := byInode[strings.TrimSuffix(inode, "]")]; ok {
				out = append(out, Listener{PID: m.PID, IP: s.ip, Port: s.port})
			}
		}
	}
	return out, nil
}

// listenSocket is one line of /proc/net/tcp{,6} in the listening state.
type listenSocket struct {
	ip    net.IP
	port  int
	inode string
}

func listeningSockets() ([]listenSocket, error) {
	var out []listenSocket
	for _, name := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		socks, err := listeningIn(name)
		if err != nil {
			return nil, err
		}
		out = append(out, socks...)
	}
	return out, nil
}

// listenState is TCP_LISTEN in /proc/net/tcp's "st" column.
const listenState = "0A"

func listeningIn(name string) ([]listenSocket, error) {
	f, err := os.Open(name)
	if os.IsNotExist(err) {
		return nil, nil // no IPv6 on this kernel
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	defer f.Close()
	var out []listenSocket
	sc := bufio.NewScanner(f)
	sc.Scan() // header
	for sc.Scan() {
		// sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
		fields := strings.Fields(sc.Text())
		if len(fields) < 10 || fields[3] != listenState {
			continue
		}
		hexIP, hexPort, ok := strings.Cut(fields[1], ":")
		if !ok {
			continue
		}
		port, err := strconv.ParseUint(hexPort, 16, 16)
		if err != nil {
			continue
		}
		ip, err := procIP(hexIP)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		out = append(out, listenSocket{ip: ip, port: int(port), inode: fields[9]})
	}
	return out, sc.Err()
}

// procIP decodes an address of /proc/net/tcp{,6}: 32-bit words in host (little-endian) order.
func procIP(s string) (net.IP, error) {
	b, err := hex.DecodeString(s)
	if err != nil || (len(b) != 4 && len(b) != 16) {
		return nil, fmt.Errorf("bad address %q", s)
	}
	for i := 0; i < len(b); i += 4 {
		b[i], b[i+1], b[i+2], b[i+3] = b[i+3], b[i+2], b[i+1], b[i]
	}
	return net.IP(b), nil
}
