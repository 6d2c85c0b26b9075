package report

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestPrintableEscapesWhatATerminalWouldObey(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain text", "plain text"},
		{"tab\there", `tab\there`},
		{"two\nlines\r\n", `two\nlines\r\n`},
		{"\x1b[31mred\x1b[0m", `\x1b[31mred\x1b[0m`},
		{"bell\x07", `bell\x07`},
		{"del\x7f", `del\x7f`},
		{"c1\u009bx", `c1\u009bx`},
		{"rtl \u202eevil", `rtl \u202eevil`},
		{"bad \xff utf8", "bad \uFFFD utf8"},
		{"héllo ✓", "héllo ✓"},
	}
	for _, tc := range tests {
		if got := printable(tc.in); got != tc.want {
			t.Errorf("printable(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestClipCutsAtRunesAndMarksTheCut(t *testing.T) {
	tests := []struct {
		in    string
		width int
		want  string
	}{
		{"short", 10, "short"},
		{"exactly10!", 10, "exactly10!"},
		{"this is longer", 8, "this is…"},
		{"éééééééé", 4, "ééé…"},
		{"a\nb", 10, `a\nb`},
	}
	for _, tc := range tests {
		if got := clip(tc.in, tc.width); got != tc.want {
			t.Errorf("clip(%q, %d) = %q, want %q", tc.in, tc.width, got, tc.want)
		}
	}
}

func TestHumanMillis(t *testing.T) {
	tests := []struct {
		ms   float64
		want string
	}{
		{0.123, "0.12ms"}, {3.25, "3.25ms"}, {40.5, "40.5ms"}, {173, "173ms"}, {1420, "1.42s"}, {125_000, "2m05s"},
	}
	for _, tc := range tests {
		if got := humanMillis(tc.ms); got != tc.want {
			t.Errorf("humanMillis(%v) = %q, want %q", tc.ms, got, tc.want)
		}
	}
}

// Whatever bytes a server sends, what reaches the terminal is valid UTF-8 without control
// characters, and a clipped line stays within its width.
func FuzzPrintable(f *testing.F) {
	for _, s := range []string{"", "ok", "\x1b]0;title\x07", "\xff\xfe", "a\u202eb", "\r\n\t", strings.Repeat("é", 50)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := printable(s)
		if !utf8.ValidString(out) {
			t.Fatalf("printable(%q) = %q: not UTF-8", s, out)
		}
		for _, r := range out {
			if unsafeRune(r) {
				t.Fatalf("printable(%q) = %q keeps %U", s, out, r)
			}
		}
		if c := clip(s, 20); utf8.RuneCountInString(c) > 20 {
			t.Fatalf("clip(%q, 20) = %q: %d runes", s, c, utf8.RuneCountInString(c))
		}
	})
}
