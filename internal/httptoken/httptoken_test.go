package httptoken

import (
	"strings"
	"testing"
)

func TestValidAcceptsExactlyTheTokensOfRFC9110(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want bool
	}{
		{"X-Api-Key", true},
		{"Authorization", true},
		{"x_weird!#$%&'*+.^`|~-9", true},
		{"", false},
		{"X Api", false},
		{"X:Api", false},
		{"X\tApi", false},
		{"Ünicode", false},
		{"X\x7fApi", false},
	} {
		if got := Valid(tc.s); got != tc.want {
			t.Errorf("Valid(%q) = %v, want %v", tc.s, got, tc.want)
		}
	}
	// Every visible ASCII character is a tchar unless it is a delimiter.
	for c := byte(0); c < 0x80; c++ {
		want := c > ' ' && c < 0x7f && strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) < 0
		if got := IsTokenChar(c); got != want {
			t.Errorf("IsTokenChar(%q) = %v, want %v", c, got, want)
		}
	}
}
