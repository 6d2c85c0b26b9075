package units_test

import (
	"flag"
	"io"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/mcpwatch/mcpwatch/internal/units"
	"github.com/mcpwatch/mcpwatch/internal/units/unitstest"
)

// Each input reads the same through the parser, a flag and a YAML value.
func TestDurationGrammar(t *testing.T) {
	t.Parallel()
	for _, r := range unitstest.Durations(t) {
		t.Run(r.In, func(t *testing.T) {
			check := func(how string, got time.Duration, err error) {
				t.Helper()
				if (err == nil) != r.OK || (r.OK && int64(got) != r.Want) {
					t.Errorf("%s(%q) = %v, %v; want %v, ok %v", how, r.In, got, err, time.Duration(r.Want), r.OK)
				}
			}
			got, err := units.ParseDuration(r.In)
			check("ParseDuration", got, err)

			var d units.Duration
			fs := flag.NewFlagSet("t", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			fs.Var(&d, "d", "")
			err = fs.Parse([]string{"-d", r.In})
			check("flag", time.Duration(d), err)

			var y units.Duration
			err = (&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: r.In}).Decode(&y)
			check("yaml", time.Duration(y), err)

			if r.OK {
				if back, err := units.ParseDuration(units.Duration(r.Want).String()); err != nil || int64(back) != r.Want {
					t.Errorf("String() = %q does not read back", units.Duration(r.Want))
				}
			}
		})
	}
}

func TestSizeGrammar(t *testing.T) {
	t.Parallel()
	for _, r := range unitstest.Sizes(t) {
		t.Run(r.In, func(t *testing.T) {
			check := func(how string, got int64, err error) {
				t.Helper()
				if (err == nil) != r.OK || (r.OK && got != r.Want) {
					t.Errorf("%s(%q) = %d, %v; want %d, ok %v", how, r.In, got, err, r.Want, r.OK)
				}
			}
			got, err := units.ParseSize(r.In)
			check("ParseSize", got, err)

			var s units.Size
			fs := flag.NewFlagSet("t", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			fs.Var(&s, "s", "")
			err = fs.Parse([]string{"-s", r.In})
			check("flag", int64(s), err)

			var y units.Size
			err = (&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: r.In}).Decode(&y)
			check("yaml", int64(y), err)

			if r.OK {
				if back, err := units.ParseSize(units.Size(r.Want).String()); err != nil || back != r.Want {
					t.Errorf("String() = %q does not read back", units.Size(r.Want))
				}
			}
		})
	}
}

// A YAML value of another kind than a string is not a duration: `timeout: 30` does not mean
// 30ns. A size may be a number of bytes.
func TestYAMLKinds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		yaml         string
		duration, ok bool
	}{
		{"v: 30", true, false},
		{"v: 1.5", true, false},
		{"v: [1s]", true, false},
		{"v: {a: 1s}", true, false},
		{"v: true", true, false},
		{"v: 1048576", false, true},
		{"v: 30s", true, true},
		{"v: [1MiB]", false, false},
	}
	for _, tt := range tests {
		var err error
		if tt.duration {
			var v struct{ V units.Duration }
			err = yaml.Unmarshal([]byte(tt.yaml), &v)
		} else {
			var v struct{ V units.Size }
			err = yaml.Unmarshal([]byte(tt.yaml), &v)
		}
		if (err == nil) != tt.ok {
			t.Errorf("%s: err = %v, want ok %v", tt.yaml, err, tt.ok)
		}
	}
}
