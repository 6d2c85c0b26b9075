//go:build linux || darwin || freebsd || netbsd || openbsd

package main

import (
	"io"
	"os"
	"syscall"
	"unsafe"
)

// terminalWidth is the number of columns of the terminal w is, or 0 when it is none.
func terminalWidth(w io.Writer) int {
	f, ok := w.(*os.File)
	if !ok {
		return 0
	}
	var size struct{ rows, cols, x, y uint16 }
	_, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), uintptr(syscall.TIOCGWINSZ), uintptr(unsafe.Pointer(&size)))
	if errno != 0 {
		return 0
	}
	return int(size.cols)
}
