package units

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Size is a count of bytes read in the grammar of the package comment.
type Size int64

// WantSize says what a size looks like, for messages about a value that is not one.
const WantSize = "want a size such as 512MiB, 16M or 1GiB"

// maxSize bounds a size well inside int64, so that sums and doublings of sizes never wrap.
const maxSize = 1 << 62

// sizeUnits are the suffixes of a size, longest first so that "MiB" is not read as "B".
func sizeUnits() []struct {
	suffix string
	factor int64
} {
	return []struct {
		suffix string
		factor int64
	}{
		{"KIB", 1 << 10}, {"MIB", 1 << 20}, {"GIB", 1 << 30},
		{"KB", 1000}, {"MB", 1000_000}, {"GB", 1000_000_000},
		{"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30},
		{"B", 1},
	}
}

// ParseSize reads a size such as 16MiB, 512k, 1.5 GB or 1048576.
func ParseSize(s string) (int64, error) {
	t := strings.ToUpper(strings.TrimSpace(s))
	factor := int64(1)
	for _, u := range sizeUnits() {
		if num, ok := strings.CutSuffix(t, u.suffix); ok {
			t, factor = strings.TrimSpace(num), u.factor
			break
		}
	}
	bad := fmt.Errorf("%q is not a size: want bytes, or a number with KiB, MiB, GiB, KB, MB or GB", s)
	if n, err := strconv.ParseInt(t, 10, 64); err == nil {
		if n < 0 || n > maxSize/factor {
			return 0, bad
		}
		return n * factor, nil
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || !(f >= 0) || f*float64(factor) > maxSize {
		return 0, bad
	}
	return int64(f * float64(factor)), nil
}

// String prints the size the short way when it is a whole number of a binary unit, which
// ParseSize reads back.
func (s Size) String() string {
	n := int64(s)
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%dGiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%dMiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%dKiB", n>>10)
	}
	return fmt.Sprintf("%dB", n)
}

// Set reads a flag's value.
func (s *Size) Set(v string) error {
	n, err := ParseSize(v)
	if err != nil {
		return err
	}
	*s = Size(n)
	return nil
}

// UnmarshalYAML reads a scalar: a string such as 512MiB or a number of bytes. Its error says
// what it wants; the configuration's decoder adds what the file gave and where.
func (s *Size) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return errors.New(WantSize)
	}
	v, err := ParseSize(n.Value)
	if err != nil {
		return errors.New(WantSize)
	}
	*s = Size(v)
	return nil
}
