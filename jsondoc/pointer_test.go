package jsondoc

import (
	"slices"
	"testing"
)

// RFC 6901 §5's examples, read as tokens, and the escaping that writes them back.
func TestPointerTokensReadRFC6901(t *testing.T) {
	for _, tc := range []struct {
		pointer string
		want    []string
		ok      bool
	}{
		{"", nil, true},
		{"/foo", []string{"foo"}, true},
		{"/foo/0", []string{"foo", "0"}, true},
		{"/", []string{""}, true},
		{"/a~1b", []string{"a/b"}, true},
		{"/m~0n", []string{"m~n"}, true},
		{"/~01", []string{"~1"}, true}, // ~1 first would read "/" here: §4's order matters
		{"foo", nil, false},
	} {
		got, ok := PointerTokens(tc.pointer)
		if ok != tc.ok || !slices.Equal(got, tc.want) {
			t.Errorf("PointerTokens(%q) = %q, %v; want %q, %v", tc.pointer, got, ok, tc.want, tc.ok)
		}
		if !ok {
			continue
		}
		back := ""
		for _, tok := range got {
			back += "/" + PointerToken(tok)
		}
		if back != tc.pointer {
			t.Errorf("tokens of %q written back as %q", tc.pointer, back)
		}
	}
}
