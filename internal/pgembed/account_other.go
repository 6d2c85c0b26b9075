//go:build !unix

package pgembed

import (
	"errors"
	"io/fs"
	"syscall"
)

// account exists on Unix only: elsewhere the cluster is not started.
type account struct{}

func serverAccount(string) (*account, error) {
	return nil, errors.New("pgembed: the embedded database needs a Unix system (a Unix socket): give --database-url")
}

func sysProcAttr(*account) *syscall.SysProcAttr { return nil }
func (*account) own(string) error               { return nil }
func (*account) ownFile(string) error           { return nil }
func (*account) owns(string, fs.FileInfo) error { return nil }
func (*account) canReach(string) error          { return nil }
func runsPostgres(int, string) bool             { return true }
