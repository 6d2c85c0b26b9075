package process

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
	"unsafe"
)

// pPID is P_PID of waitid(2); pfExiting is PF_EXITING of the kernel's task flags, which
// /proc/<pid>/stat shows.
const (
	pPID      = 1
	pfExiting = 0x4
)

// exitingOrExited reports whether the process has already ended or begun to end, without
// reaping it (its exit status stays for exec.Cmd.Wait).
func exitingOrExited(pid int) bool {
	var info [32]int32 // siginfo_t is 128 bytes; si_signo comes first
	for {
		_, _, errno := syscall.Syscall6(syscall.SYS_WAITID, pPID, uintptr(pid),
			uintptr(unsafe.Pointer(&info)), syscall.WEXITED|syscall.WNOHANG|syscall.WNOWAIT, 0, 0)
		if errno == syscall.EINTR {
			continue
		}
		if errno == syscall.ECHILD {
			return true // already reaped: Wait returned, or is returning now
		}
		// With WNOHANG and nothing to report, Linux leaves the zeroed siginfo alone.
		if errno == 0 && info[0] == int32(syscall.SIGCHLD) {
			return true
		}
		break
	}
	stat, err := ReadStat(pid)
	switch {
	case errors.Is(err, syscall.ESRCH):
		return true // reaped between open and read
	case errors.Is(err, fs.ErrNotExist):
		_, selfErr := os.Stat("/proc/self/stat")
		return selfErr == nil // gone, unless there is no /proc at all
	case err != nil:
		return false
	}
	return stat.Dead() || stat.flags&pfExiting != 0
}
