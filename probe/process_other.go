//go:build !unix

package probe

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"time"
)

// errNoProcessGroups: the stdio transport relies on process groups to guarantee that no part
// of a server outlives the probe; without them it refuses to start anything.
var errNoProcessGroups = errors.New("stdio targets need process groups (a unix system)")

func startInGroup(*exec.Cmd) error { return errNoProcessGroups }
func terminateGroup(int) error     { return errNoProcessGroups }
func killGroup(int) error          { return errNoProcessGroups }
func reapGroup(int, time.Time) int { return 0 }

func describeExit(ps *os.ProcessState) (code int, signal, detail string) {
	if ps == nil {
		return -1, "", "ended (no exit status)"
	}
	return ps.ExitCode(), "", fmt.Sprintf("exited with status %d", ps.ExitCode())
}
