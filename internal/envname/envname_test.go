package envname

import "testing"

func TestValidAcceptsOnlyPortableShellNames(t *testing.T) {
	for _, tc := range []struct {
		name string
		want bool
	}{
		{"SLACK_TOKEN", true},
		{"_private", true},
		{"a1", true},
		{"x", true},
		{"", false},
		{"1ABC", false},
		{"MY-TOKEN", false},
		{"MY TOKEN", false},
		{"TOKEN=", false},
		{"ÄTOKEN", false},
		{"${TOKEN}", false},
	} {
		if got := Valid(tc.name); got != tc.want {
			t.Errorf("Valid(%q) = %v, want %v", tc.name, got, tc.want)
		}
	}
}
