//go:build unix

package process

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// startInGroup starts cmd as the leader of a new process group, so that the group (the leader
// and everything it forks) can be signalled as a whole: a server started through `sh -c` or
// `npx` is a tree of processes, and killing only the leader would orphan the rest. Where the
// system allows, the leader also dies with the prober.
func startInGroup(cmd *exec.Cmd) error {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	tieToParent(cmd.SysProcAttr)
	return cmd.Start()
}

// terminateGroup asks every process of the group to end.
func terminateGroup(pgid int) error { return signalGroup(pgid, syscall.SIGTERM) }

// killGroup ends every process of the group.
func killGroup(pgid int) error { return signalGroup(pgid, syscall.SIGKILL) }

func signalGroup(pgid int, sig syscall.Signal) error {
	if pgid <= 0 {
		return fmt.Errorf("refusing to signal process group %d", pgid)
	}
	err := syscall.Kill(-pgid, sig)
	if errors.Is(err, syscall.ESRCH) {
		return nil // the group is already empty
	}
	if err != nil {
		return fmt.Errorf("sending %s to process group %d: %w", signalName(sig), pgid, err)
	}
	return nil
}

// reapGroup collects members of the group that were re-parented to this process (which
// happens when it is PID 1 or a child subreaper, see AdoptOrphans) and died. It must only run
// after the group leader itself was waited for: it would otherwise steal the leader's exit
// status from exec.Cmd.Wait. It gives up at deadline.
func reapGroup(pgid int, deadline time.Time) (reaped int) {
	if pgid <= 0 {
		return 0
	}
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-pgid, &ws, syscall.WNOHANG, nil)
		switch {
		case errors.Is(err, syscall.EINTR):
			continue
		case err != nil:
			return reaped // ECHILD: no child of ours is left in the group
		case pid > 0:
			reaped++
			continue
		}
		// Children of ours remain in the group but have not died yet (a SIGKILL is being
		// delivered). There is no event to wait on short of SIGCHLD, which belongs to the
		// whole program, so poll briefly.
		if time.Now().After(deadline) {
			return reaped
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// describeExit turns a wait status into an Exit.
func describeExit(ps *os.ProcessState) Exit {
	if ps == nil {
		return Exit{Code: -1, Detail: "ended (no exit status)"}
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		name := signalName(ws.Signal())
		return Exit{Code: -1, Signal: name, Detail: "killed by " + name}
	}
	code := ps.ExitCode()
	return Exit{Code: code, Detail: fmt.Sprintf("exited with status %d", code)}
}

// signalName is the conventional name of a signal (syscall.Signal.String gives prose such as
// "killed", which reads badly in a report).
func signalName(sig syscall.Signal) string {
	switch sig {
	case syscall.SIGHUP:
		return "SIGHUP"
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGQUIT:
		return "SIGQUIT"
	case syscall.SIGILL:
		return "SIGILL"
	case syscall.SIGTRAP:
		return "SIGTRAP"
	case syscall.SIGABRT:
		return "SIGABRT"
	case syscall.SIGBUS:
		return "SIGBUS"
	case syscall.SIGFPE:
		return "SIGFPE"
	case syscall.SIGKILL:
		return "SIGKILL"
	case syscall.SIGUSR1:
		return "SIGUSR1"
	case syscall.SIGSEGV:
		return "SIGSEGV"
	case syscall.SIGUSR2:
		return "SIGUSR2"
	case syscall.SIGPIPE:
		return "SIGPIPE"
	case syscall.SIGALRM:
		return "SIGALRM"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGXCPU:
		return "SIGXCPU"
	case syscall.SIGXFSZ:
		return "SIGXFSZ"
	}
	return fmt.Sprintf("signal %d", int(sig))
}
