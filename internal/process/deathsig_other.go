//go:build unix && !linux

package process

import "syscall"

// tieToParent does nothing: only Linux has a parent-death signal that package syscall sets.
// A server then runs on when the prober is killed outright, until it notices that its stdin
// ended.
func tieToParent(*syscall.SysProcAttr) {}
