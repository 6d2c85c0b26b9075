package units

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Duration is a time.Duration read in the grammar of the package comment.
type Duration time.Duration

// WantDuration says what a duration looks like, for messages about a value that is not one.
const WantDuration = "want a duration such as 30s, 5m or 30d"

// ParseDuration reads a duration: a Go duration that may count whole days first.
func ParseDuration(s string) (time.Duration, error) {
	t := strings.TrimSpace(s)
	neg := false
	if rest, ok := strings.CutPrefix(t, "-"); ok {
		t, neg = rest, true
	} else {
		t = strings.TrimPrefix(t, "+")
	}
	d, ok := parseMagnitude(t)
	if !ok {
		return 0, fmt.Errorf("%q is not a duration such as 30s, 5m or 30d", s)
	}
	if neg {
		d = -d
	}
	return d, nil
}

// parseMagnitude reads an unsigned duration with optional whole days first.
func parseMagnitude(t string) (time.Duration, bool) {
	if t == "" || t[0] == '-' || t[0] == '+' {
		return 0, false
	}
	var days time.Duration
	if i := strings.IndexByte(t, 'd'); i >= 0 {
		n, err := strconv.ParseUint(t[:i], 10, 16)
		if err != nil {
			return 0, false
		}
		days, t = time.Duration(n)*24*time.Hour, t[i+1:]
		if t == "" {
			return days, true
		}
		if t[0] == '-' || t[0] == '+' {
			return 0, false
		}
	}
	d, err := time.ParseDuration(t)
	if err != nil || d > math.MaxInt64-days {
		return 0, false
	}
	return days + d, true
}

// String prints the duration as Go does ("720h0m0s"), which ParseDuration reads back.
func (d Duration) String() string { return time.Duration(d).String() }

// Set reads a flag's value.
func (d *Duration) Set(s string) error {
	v, err := ParseDuration(s)
	if err != nil {
		return err
	}
	*d = Duration(v)
	return nil
}

// UnmarshalYAML reads a string scalar. Its error says what it wants; the configuration's
// decoder adds what the file gave and where.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	if !isString(n) {
		return errors.New(WantDuration)
	}
	v, err := ParseDuration(n.Value)
	if err != nil {
		return errors.New(WantDuration)
	}
	*d = Duration(v)
	return nil
}
