// Package units reads and prints the durations and sizes a person writes in the monitor's
// configuration file and on the command line, in one grammar for both.
//
// A duration is a Go duration ("90s", "1h30m", "250ms", "0"), optionally preceded by whole
// days ("30d", "1d12h") and a sign. A size is a count of bytes ("1048576") or a number, whole
// or not, with a unit: KiB, MiB, GiB (and K, M, G, meaning the same) count in powers of two,
// KB, MB, GB in powers of ten, B in bytes; units are read in any case ("16mib") and may
// follow a space ("1.5 GB").
//
// Both types are flag.Value and yaml.Unmarshaler, so a flag and a key of the file accept the
// same text. Ranges (a timeout of at least 100ms, a spool of at least 1MiB) are the reader's
// to check: the grammar refuses only what is not a duration or a size at all.
package units

import (
	"flag"

	"go.yaml.in/yaml/v3"
)

// The types are flag values and decode themselves from YAML.
var (
	_ flag.Value       = (*Duration)(nil)
	_ flag.Value       = (*Size)(nil)
	_ yaml.Unmarshaler = (*Duration)(nil)
	_ yaml.Unmarshaler = (*Size)(nil)
)

// isString reports whether n is a plain or quoted string scalar: a duration or size written
// as a bare number (`timeout: 30`) is refused rather than read in nanoseconds or bytes
// someone did not mean.
func isString(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!str"
}
