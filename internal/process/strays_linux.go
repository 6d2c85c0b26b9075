package process

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"syscall"
	"time"
)

// strays are the processes of one Group that its process group does not reach: a daemon
// that double-forked and called setsid is in a group and session of its own, and once its
// first parent has exited nothing but its environment ties it to the leader. Every leader is
// started with markEnv set to a token of its own Group; a process inherits it unless it
// clears its environment. The processes carrying the token, and the descendants of those,
// are the Group's, whoever their parent is now.
//
// Attribution is by token, never by parentage: the prober is a child subreaper (AdoptOrphans)
// for all its probes at once, so an orphan re-parented to it could belong to any of them.
// Each process found is pinned with a pidfd (os.FindProcess), so a pid reused after the
// process ended is never signalled or reaped in its place.
type strays struct {
	mark   []byte // "\x00NAME=token\x00"
	self   int
	leader int // exec.Cmd waits for the leader; it is never pinned here
	found  map[int]*os.Process
}

func newStrays(token string, leader int) *strays {
	return &strays{
		mark:   []byte("\x00" + markEnv + "=" + token + "\x00"),
		self:   os.Getpid(),
		leader: leader,
		found:  make(map[int]*os.Process),
	}
}

// carriesMark reports whether the environment pid started with holds the mark. A zombie has
// no environment left; a process of another user cannot be read (and cannot be the server's
// unless it changed user, which a probe does not follow).
func (s *strays) carriesMark(pid int) bool {
	env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil || len(env) == 0 {
		return false
	}
	return bytes.Contains(append([]byte{0}, env...), s.mark)
}

// find pins every live process that carries the mark or descends from one that does, and
// returns how many it had not pinned before.
func (s *strays) find() int {
	children := make(map[int][]int)
	var roots []int
	for _, st := range Processes() {
		pid := st.PID
		if pid == s.self || st.Dead() {
			continue
		}
		children[st.PPID] = append(children[st.PPID], pid)
		if s.carriesMark(pid) {
			roots = append(roots, pid)
		}
	}
	added := 0
	seen := make(map[int]bool)
	for queue := roots; len(queue) > 0; {
		pid := queue[0]
		queue = queue[1:]
		if seen[pid] {
			continue
		}
		seen[pid] = true
		queue = append(queue, children[pid]...)
		if pid == s.leader || s.found[pid] != nil {
			continue
		}
		if s.pin(pid, seen) {
			added++
		}
	}
	return added
}

// pin takes hold of pid once it is sure the pid still names the process found: after the
// pidfd is open, the process must still carry the mark or still be the child of one found.
func (s *strays) pin(pid int, found map[int]bool) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	st, err := ReadStat(pid)
	if err == nil && !st.Dead() && (s.carriesMark(pid) || found[st.PPID]) {
		s.found[pid] = p
		return true
	}
	_ = p.Release()
	return false
}

// killAll sends SIGKILL to every process pinned, then looks again for processes they forked
// meanwhile, until a look finds none new (or after a few rounds: a process killed can fork no
// more, so only the ones forked between two looks can be missed).
func (s *strays) killAll() {
	for round := 0; round < 8; round++ {
		for _, p := range s.found {
			_ = p.Signal(syscall.SIGKILL) // ErrProcessDone: already gone
		}
		if s.find() == 0 {
			return
		}
	}
}

// reap collects the pinned processes that ended as children of this process (re-parented to
// it as their subreaper), so they do not stay zombies; the others are their parents' to reap.
// It gives up at deadline.
func (s *strays) reap(deadline time.Time) (reaped int) {
	for len(s.found) > 0 {
		for pid, p := range s.found {
			if errors.Is(p.Signal(syscall.Signal(0)), os.ErrProcessDone) {
				s.drop(pid) // reaped already; the pid may be another process's by now
				continue
			}
			// Not reaped yet, so pid still names this process.
			st, err := ReadStat(pid)
			switch {
			case err != nil:
				s.drop(pid)
			case st.PPID == s.self:
				if got, err := syscall.Wait4(pid, nil, syscall.WNOHANG, nil); got == pid {
					reaped++
					s.drop(pid)
				} else if errors.Is(err, syscall.ECHILD) {
					s.drop(pid)
				}
			case s.found[st.PPID] == nil:
				// Its parent is nobody the probe killed: that parent reaps it (PID 1 when
				// this process is not a subreaper).
				s.drop(pid)
			}
			// Otherwise its parent is being killed too, and it will be re-parented to this
			// process or the next subreaper up: look again.
		}
		if len(s.found) == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(2 * time.Millisecond)
	}
	return reaped
}

func (s *strays) drop(pid int) {
	_ = s.found[pid].Release()
	delete(s.found, pid)
}

// release lets go of every process still pinned.
func (s *strays) release() {
	for pid := range s.found {
		s.drop(pid)
	}
}
