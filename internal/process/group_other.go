//go:build !unix

package process

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"time"
)

// errNoProcessGroups: a Group relies on process groups to guarantee that no part of the child
// outlives it; without them it refuses to start anything.
var errNoProcessGroups = errors.New("stdio targets need process groups (a unix system)")

func startInGroup(*exec.Cmd) error { return errNoProcessGroups }
func terminateGroup(int) error     { return errNoProcessGroups }
func killGroup(int) error          { return errNoProcessGroups }
func reapGroup(int, time.Time) int { return 0 }

func describeExit(ps *os.ProcessState) Exit {
	if ps == nil {
		return Exit{Code: -1, Detail: "ended (no exit status)"}
	}
	return Exit{Code: ps.ExitCode(), Detail: fmt.Sprintf("exited with status %d", ps.ExitCode())}
}
