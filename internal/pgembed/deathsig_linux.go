package pgembed

import "syscall"

// setParentDeathSignal asks Linux for a fast shutdown of the server when this process dies
// without stopping it (SIGKILL, a crash): no orphaned server keeps the directory.
func setParentDeathSignal(attr *syscall.SysProcAttr) { attr.Pdeathsig = syscall.SIGINT }
