package alert

import "testing"

func TestConfigNamesAcceptExactlyTheDocumentedForms(t *testing.T) {
	for _, tc := range []struct {
		what  string
		valid func(string) bool
		in    string
		want  bool
	}{
		{"channel", validChannelName, "ops", true},
		{"channel", validChannelName, "ops-team_2.eu", true},
		{"channel", validChannelName, "9lives", true},
		{"channel", validChannelName, "", false},
		{"channel", validChannelName, "-ops", false},
		{"channel", validChannelName, "ops team", false},
		{"channel", validChannelName, "a" + string(make([]byte, 64)), false},
		{"channel", validChannelName, "a123456789012345678901234567890123456789012345678901234567890123", true},
		{"channel", validChannelName, "a1234567890123456789012345678901234567890123456789012345678901234", false},
		{"check", validCheckPattern, "*", true},
		{"check", validCheckPattern, "tools.*", true},
		{"check", validCheckPattern, "jsonrpc.error-code", true},
		{"check", validCheckPattern, "lifecycle.version-negotiation", true},
		{"check", validCheckPattern, "a.b.c.*", true},
		{"check", validCheckPattern, "", false},
		{"check", validCheckPattern, ".*", false},
		{"check", validCheckPattern, "tools.", false},
		{"check", validCheckPattern, "tools..list", false},
		{"check", validCheckPattern, "Tools.list", false},
		{"check", validCheckPattern, "tools*", false},
		{"check", validCheckPattern, "tools.*.*", false},
	} {
		if got := tc.valid(tc.in); got != tc.want {
			t.Errorf("%s %q: valid = %v, want %v", tc.what, tc.in, got, tc.want)
		}
	}
}
