package process

import "syscall"

// tieToParent makes the kernel send SIGKILL to the child when the thread that starts it ends
// (see Group.run for why that thread lives as long as the child). A fork of
// the child does not inherit the setting.
func tieToParent(attr *syscall.SysProcAttr) { attr.Pdeathsig = syscall.SIGKILL }
