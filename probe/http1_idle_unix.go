//go:build unix

package probe

import (
	"errors"
	"net"
	"syscall"
)

// idlePeek looks at an idle connection before it carries a request: whether the server
// closed it (as servers do with idle connections whenever they like) or sent bytes nobody
// asked for. It peeks at the socket without waiting. http.Transport learns the same from a
// goroutine that reads every idle connection; this transport has none. It is made once per
// socket: the socket's RawConn and the callback cost two allocations, and a probe reuses
// its few sockets about thirty times.
type idlePeek struct {
	raw      syscall.RawConn // nil when the connection is no socket
	unusable bool
	peek     func(fd uintptr) bool
}

func newIdlePeek(nc net.Conn) *idlePeek {
	p := &idlePeek{}
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return p
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return p
	}
	p.raw = raw
	p.peek = func(fd uintptr) bool {
		var b [1]byte
		_, _, rerr := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		switch {
		case rerr == nil:
			p.unusable = true // n == 0 is the server's close, n > 0 unsolicited bytes
		case errors.Is(rerr, syscall.EAGAIN), errors.Is(rerr, syscall.EWOULDBLOCK), errors.Is(rerr, syscall.EINTR):
		default:
			p.unusable = true // reset, or any other error
		}
		return true
	}
	return p
}

// connUnusable reports whether the idle connection can no longer carry a request.
func (p *idlePeek) connUnusable() bool {
	if p.raw == nil {
		return false
	}
	p.unusable = false
	err := p.raw.Read(p.peek)
	return p.unusable || err != nil
}
