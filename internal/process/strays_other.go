//go:build !linux

package process

import "time"

// strays would find the processes of a server outside its process group by the mark in their
// environment; without /proc there is no portable way to read another process's environment,
// so elsewhere the process group is the bound: a server's daemon that left it is not found.
type strays struct{}

func newStrays(string, int) *strays { return &strays{} }
func (*strays) find() int           { return 0 }
func (*strays) killAll()            {}
func (*strays) reap(time.Time) int  { return 0 }
func (*strays) release()            {}
