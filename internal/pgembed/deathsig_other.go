//go:build unix && !linux

package pgembed

import "syscall"

// setParentDeathSignal does nothing where the system has no parent-death signal: a server
// left by a killed process is found by its postmaster.pid at the next start.
func setParentDeathSignal(*syscall.SysProcAttr) {}
