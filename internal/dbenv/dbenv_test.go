package dbenv

import "testing"

func TestURLPrefersTheProjectsVariable(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		env       map[string]string
		url, from string
	}{
		{"neither", nil, "", ""},
		{"the project's", map[string]string{Primary: "postgres://a"}, "postgres://a", Primary},
		{"the platform's", map[string]string{Fallback: "postgres://b"}, "postgres://b", Fallback},
		{"both", map[string]string{Primary: "postgres://a", Fallback: "postgres://b"}, "postgres://a", Primary},
		{"the project's set empty", map[string]string{Primary: "", Fallback: "postgres://b"}, "postgres://b", Fallback},
	} {
		url, from := URL(func(k string) string { return tc.env[k] })
		if url != tc.url || from != tc.from {
			t.Errorf("%s: %q from %q, want %q from %q", tc.name, url, from, tc.url, tc.from)
		}
	}
}
