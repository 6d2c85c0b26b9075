//go:build unix

package probe

import (
	"errors"
	"net"
	"syscall"
)

// idleConnUnusable reports whether an idle connection can no longer carry a request: the
// server closed it (as servers do with idle connections whenever they like) or sent bytes
// nobody asked for. It peeks at the socket without waiting. http.Transport learns the same
// from a goroutine that reads every idle connection; this transport has none.
func idleConnUnusable(nc net.Conn) bool {
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return false
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	unusable := false
	var b [1]byte
	err = raw.Read(func(fd uintptr) bool {
		_, _, rerr := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		switch {
		case rerr == nil:
			unusable = true // n == 0 is the server's close, n > 0 unsolicited bytes
		case errors.Is(rerr, syscall.EAGAIN), errors.Is(rerr, syscall.EWOULDBLOCK), errors.Is(rerr, syscall.EINTR):
		default:
			unusable = true // reset, or any other error
		}
		return true
	})
	return unusable || err != nil
}
