package yamlstrict

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/mcpwatch/mcpwatch/internal/units"
	"github.com/mcpwatch/mcpwatch/internal/units/unitstest"
)

type inner struct {
	FromEnv string `yaml:"from-env" alias:"fromEnv,from_env"`
	Prefix  string `yaml:"prefix"`
}

type sample struct {
	Name    string            `yaml:"name"`
	Count   int               `yaml:"count"`
	Ratio   *float64          `yaml:"ratio"`
	On      *bool             `yaml:"on"`
	Wait    time.Duration     `yaml:"wait"`
	Limit   units.Size        `yaml:"limit"`
	Grace   units.Duration    `yaml:"shutdown-grace" alias:"shutdownGrace"`
	Tags    []string          `yaml:"tags"`
	Labels  map[string]string `yaml:"labels"`
	Headers Ordered[inner]    `yaml:"headers"`
	Inner   inner             `yaml:"inner"`
	Raw     *yaml.Node        `yaml:"raw"`
}

func decode(t *testing.T, text string) (sample, Places, []string) {
	t.Helper()
	var n yaml.Node
	if err := yaml.Unmarshal([]byte(text), &n); err != nil {
		t.Fatal(err)
	}
	s := sample{Count: 7}
	places, problems := Decode(&n, &s, "")
	var msgs []string
	for _, p := range problems {
		msgs = append(msgs, fmt.Sprintf("%d:%d: %s: %s", p.Line, p.Column, p.Field, p.Message))
	}
	return s, places, msgs
}

func TestDecodeReadsEveryKind(t *testing.T) {
	t.Parallel()
	s, places, problems := decode(t, `name: a
ratio: 2
on: true
wait: 1d
limit: 16M
shutdownGrace: 5s
tags: [x, y]
labels: {team: core}
headers:
  B: {fromEnv: B_VAR}
  A: {from-env: A_VAR, prefix: "Bearer "}
inner: {from_env: X}
raw: {anything: [goes]}
count:
`)
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	if s.Name != "a" || *s.Ratio != 2 || !*s.On || s.Wait != 24*time.Hour || s.Limit != 16<<20 || s.Grace != units.Duration(5*time.Second) ||
		!reflect.DeepEqual(s.Tags, []string{"x", "y"}) || s.Labels["team"] != "core" || s.Inner.FromEnv != "X" || s.Raw == nil {
		t.Errorf("decoded %+v", s)
	}
	if s.Count != 7 {
		t.Errorf("a null replaced the value before it: count = %d", s.Count)
	}
	want := Ordered[inner]{{"B", inner{FromEnv: "B_VAR"}}, {"A", inner{FromEnv: "A_VAR", Prefix: "Bearer "}}}
	if !reflect.DeepEqual(s.Headers, want) {
		t.Errorf("headers out of file order: %+v", s.Headers)
	}
	if p := places.Of("headers.B.from-env"); p.Written != "headers.B.fromEnv" || p.Key != (Pos{10, 7}) || p.Value != (Pos{10, 16}) {
		t.Errorf("place of an alias: %+v", p)
	}
	if p := places.Of("headers.B.prefix"); p.Written != "headers.B.prefix" || p.Value != (Pos{10, 6}) {
		t.Errorf("place of a key left out: %+v", p)
	}
}

func TestDecodeProblems(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, yaml string
		want       []string
	}{
		{"unknown key, close to one", "nmae: a\n", []string{"1:1: nmae: unknown key (known: count, headers, inner, labels, limit, name, on, ratio, raw, shutdown-grace, tags, wait); did you mean name?"}},
		{"unknown key, close to an alias", "inner: {FROMENV: x}\n", []string{"1:9: inner.FROMENV: unknown key (known: from-env, prefix); did you mean from-env?"}},
		{"unknown key, close to none", "colour: red\n", []string{"1:1: colour: unknown key (known: count, headers, inner, labels, limit, name, on, ratio, raw, shutdown-grace, tags, wait)"}},
		{"two spellings", "shutdown-grace: 1s\nshutdownGrace: 2s\n", []string{"2:1: shutdownGrace: given twice: shutdown-grace (line 1) and shutdownGrace are two spellings of shutdown-grace; keep one"}},
		{"one spelling twice", "labels: {a: x, a: y}\n", []string{"1:16: labels.a: given twice (first at line 1)"}},
		{"wrong kinds", "name: [a]\ncount: 3.0\nratio: x\non: yes\ntags: a\nlabels: [a]\n", []string{
			"1:7: name: want a string, got a list",
			"2:8: count: want a whole number, got float 3.0",
			`3:8: ratio: want a number, got the string "x"`,
			`4:5: on: want true or false, got the string "yes"`,
			`5:7: tags: want a list, got the string "a"`,
			"6:9: labels: want a mapping (key: value lines), got a list",
		}},
		{"grammar of units", "wait: 30\nlimit: lots\nshutdown-grace: 5 days\n", []string{
			"1:7: wait: want a duration such as 30s, 5m or 30d, got int 30",
			`2:8: limit: want a size such as 512MiB, 16M or 1GiB, got the string "lots"`,
			`3:17: shutdown-grace: want a duration such as 30s, 5m or 30d, got the string "5 days"`,
		}},
		{"deep", "headers:\n  A:\n    prefix: {x: 1}\n", []string{"3:13: headers.A.prefix: want a string, got a mapping"}},
		{"keys that are not names", "? [a]\n: b\n", []string{"1:3: : keys must be names"}},
		{"not a mapping", "- a\n", []string{"1:1: : want a mapping (key: value lines), got a list"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, _, got := decode(t, tt.yaml)
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// The decoder reads a time.Duration field in the grammar of units, as the flags do.
func TestDecodeReadsTheGrammarOfUnits(t *testing.T) {
	t.Parallel()
	for _, r := range unitstest.Durations(t) {
		s, _, problems := decode(t, fmt.Sprintf("wait: %q\n", r.In))
		if (len(problems) == 0) != r.OK || (r.OK && int64(s.Wait) != r.Want) {
			t.Errorf("wait: %q read %v, %v; want %v, ok %v", r.In, s.Wait, problems, time.Duration(r.Want), r.OK)
		}
	}
	for _, r := range unitstest.Sizes(t) {
		s, _, problems := decode(t, fmt.Sprintf("limit: %q\n", r.In))
		if (len(problems) == 0) != r.OK || (r.OK && int64(s.Limit) != r.Want) {
			t.Errorf("limit: %q read %v, %v; want %d, ok %v", r.In, s.Limit, problems, r.Want, r.OK)
		}
	}
}

// A small document whose aliases name a large value many times over is refused once, not
// read for minutes.
func TestDecodeBoundsAliases(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("x0: &a0 [" + strings.Repeat("v, ", 99) + "v]\n")
	for i := 1; i < 5; i++ {
		fmt.Fprintf(&b, "x%d: &a%d [%s*a%d]\n", i, i, strings.Repeat(fmt.Sprintf("*a%d, ", i-1), 99), i-1)
	}
	var n yaml.Node
	if err := yaml.Unmarshal([]byte(b.String()), &n); err != nil {
		t.Fatal(err)
	}
	var v struct {
		X [][][][][]string `yaml:"x4"`
	}
	start := time.Now()
	_, problems := Decode(&n, &v, "")
	last := problems[len(problems)-1]
	if !strings.Contains(last.Message, "aliases") || time.Since(start) > 10*time.Second {
		t.Errorf("problems %v after %v", problems, time.Since(start))
	}
}
