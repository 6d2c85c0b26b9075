//go:build !unix

package monitor

import "os"

// lockFile does nothing where flock does not exist: give each worker a spool directory of
// its own there.
func lockFile(*os.File) error { return nil }
