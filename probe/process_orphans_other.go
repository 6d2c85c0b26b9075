//go:build !linux

package probe

import (
	"errors"
	"fmt"
)

// AdoptOrphans would make this process a child subreaper; only Linux has them. Killed
// members of a server's process group are then reaped by PID 1 as usual.
func AdoptOrphans() error {
	return fmt.Errorf("adopting orphaned processes: %w", errors.ErrUnsupported)
}
