package pgembed

import (
	"net"
	"time"
)

// dialUnix connects to a Unix socket, briefly.
func dialUnix(path string) (net.Conn, error) { return net.DialTimeout("unix", path, time.Second) }
