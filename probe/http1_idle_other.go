//go:build !unix

package probe

import "net"

// idlePeek cannot peek at a socket here: an idle connection the server closed shows as a
// failed request, which is retried when it could not be written.
type idlePeek struct{}

func newIdlePeek(net.Conn) *idlePeek { return &idlePeek{} }

func (*idlePeek) connUnusable() bool { return false }
