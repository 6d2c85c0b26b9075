package textclip

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestPrefixNeverCutsInsideACharacter(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"plain", 10, "plain"},
		{"plain", 5, "plain"},
		{"plain", 3, "pla"},
		{"héllo", 2, "h"},
		{"héllo", 3, "hé"},
		{"€", 2, ""},
		{"bad\xff", 10, "bad\xff"}, // Prefix does not repair
		{"abc", 0, ""},
		{"abc", -1, ""},
	}
	for _, tt := range tests {
		if got := Prefix(tt.in, tt.n); got != tt.want {
			t.Errorf("Prefix(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}

func TestBytesMarksTheCutAfterTheBound(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly10!", 10, "exactly10!"},
		{"this is longer", 7, "this is…"},
		{"ééé", 3, "é…"},
		{`{"a":"ü"}`, 7, `{"a":"…`},
	}
	for _, tt := range tests {
		if got := Bytes(tt.in, tt.n); got != tt.want {
			t.Errorf("Bytes(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}

func TestRunesMarksTheCutWithinTheBound(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		s    string
		n    int
		want string
	}{
		{"hello", 10, "hello"},
		{"hello", 5, "hello"},
		{"hello world", 6, "hello…"},
		{"héllo wörld", 4, "hél…"},
		{"this is longer", 8, "this is…"},
		{"éééééééé", 4, "ééé…"},
		{"abc", 1, "…"},
		{"abc", 0, ""},
	} {
		if got := Runes(tc.s, tc.n); got != tc.want {
			t.Errorf("Runes(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
	for _, s := range []string{strings.Repeat("✓", 50), strings.Repeat("a", 50), "a\xffb\xfe" + strings.Repeat("é", 30)} {
		if c := Runes(s, 20); utf8.RuneCountInString(c) > 20 {
			t.Fatalf("Runes(%q, 20) = %q: %d runes", s, c, utf8.RuneCountInString(c))
		}
	}
}

func TestStorableMakesAnyStringStorable(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in    string
		limit int
		want  string
	}{
		{"plain", 10, "plain"},
		{"a\x00b", 10, "a\uFFFDb"},
		{"bad\xffutf8", 20, "bad\uFFFDutf8"},
		{"héllo", 2, "h"}, // never cuts inside é
		{"héllo", 3, "hé"},
		{"", 5, ""},
		{"\x00\x00", 4, "\uFFFD"}, // the bound holds after the replacement
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%q/%d", tt.in, tt.limit), func(t *testing.T) {
			got := Storable(tt.in, tt.limit)
			if got != tt.want {
				t.Errorf("Storable(%q, %d) = %q, want %q", tt.in, tt.limit, got, tt.want)
			}
			if !utf8.ValidString(got) || strings.IndexByte(got, 0) >= 0 || len(got) > tt.limit {
				t.Errorf("Storable(%q, %d) = %q is not storable within the bound", tt.in, tt.limit, got)
			}
		})
	}
}
