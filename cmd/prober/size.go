package main

import (
	"fmt"
	"strconv"
	"strings"
)

// sizeUnits are the suffixes --max-message-size accepts: binary (KiB, MiB, GiB, and the
// bare K, M, G people type meaning the same) and decimal (KB, MB, GB).
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

// parseSize reads a byte count such as 16MiB, 512k, 1.5MB or 1048576.
func parseSize(s string) (int64, error) {
	t := strings.ToUpper(strings.TrimSpace(s))
	factor := int64(1)
	for _, u := range sizeUnits() {
		if num, ok := strings.CutSuffix(t, u.suffix); ok {
			t, factor = strings.TrimSpace(num), u.factor
			break
		}
	}
	if t == "" {
		return 0, fmt.Errorf("%q is not a size: want bytes or a number with KiB, MiB, GiB, KB, MB or GB", s)
	}
	if n, err := strconv.ParseInt(t, 10, 64); err == nil {
		if n < 0 || n > (1<<62)/factor {
			return 0, fmt.Errorf("%q is out of range", s)
		}
		return n * factor, nil
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || !(f >= 0) || f*float64(factor) > 1<<62 {
		return 0, fmt.Errorf("%q is not a size: want bytes or a number with KiB, MiB, GiB, KB, MB or GB", s)
	}
	return int64(f * float64(factor)), nil
}

// formatSize prints a byte count the short way when it is a whole number of a binary unit.
func formatSize(n int64) string {
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
