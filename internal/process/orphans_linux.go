package process

import (
	"fmt"
	"syscall"
)

// prSetChildSubreaper is PR_SET_CHILD_SUBREAPER of prctl(2).
const prSetChildSubreaper = 36

// AdoptOrphans makes this process a child subreaper: processes that a Group leaves behind
// (children of a leader that died first, daemons whose first parent exited) are re-parented
// to this process instead of to PID 1, so that Group.Reap can reap them once they were
// killed. Without it they are killed all the same, but stay zombies until PID 1 reaps them,
// and in many containers PID 1 never does. Call it once at program start; it affects the
// whole process, and so every Group it starts: each tells its own orphans from those of the
// others by the mark in their environment, never by their parent, and reaps only those.
func AdoptOrphans() error {
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); errno != 0 {
		return fmt.Errorf("prctl(PR_SET_CHILD_SUBREAPER): %w", errno)
	}
	return nil
}
