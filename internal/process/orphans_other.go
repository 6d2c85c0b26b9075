//go:build !linux

package process

import (
	"errors"
	"fmt"
)

// AdoptOrphans would make this process a child subreaper; only Linux has them. Killed
// members of a Group are then reaped by PID 1 as usual.
func AdoptOrphans() error {
	return fmt.Errorf("adopting orphaned processes: %w", errors.ErrUnsupported)
}
