//go:build !unix

package probe

import "net"

// idleConnUnusable cannot peek at a socket here: an idle connection the server closed shows
// as a failed request, which is retried when it could not be written.
func idleConnUnusable(net.Conn) bool { return false }
