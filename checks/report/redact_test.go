package report

import "testing"

func TestRedactorCoversTheFormsASecretTakes(t *testing.T) {
	red := NewRedactor("Bearer abc<def>&ghi/jkl", `pa"ss\word`, "key with space", "ab", "")
	tests := []struct{ in, want string }{
		{"header Bearer abc<def>&ghi/jkl sent", "header [redacted] sent"},
		{"token abc<def>&ghi/jkl alone", "token [redacted] alone"},
		{`{"msg":"abc\u003cdef\u003e\u0026ghi/jkl"}`, `{"msg":"[redacted]"}`},
		{`{"pw":"pa\"ss\\word"}`, `{"pw":"[redacted]"}`},
		{"?q=key+with+space", "?q=[redacted]"},
		{"/p/key%20with%20space", "/p/[redacted]"},
		{"ab stays: too short to protect anything", "ab stays: too short to protect anything"},
		{"nothing here", "nothing here"},
	}
	for _, tc := range tests {
		if got := red.String(tc.in); got != tc.want {
			t.Errorf("String(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if got := string(red.Bytes([]byte(tc.in))); got != tc.want {
			t.Errorf("Bytes(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestRedactorWithoutSecretsChangesNothing(t *testing.T) {
	for _, red := range []*Redactor{nil, NewRedactor(), NewRedactor("", "x")} {
		if red.Active() {
			t.Error("active without secrets")
		}
		in := []byte("Bearer anything")
		if out := red.Bytes(in); &out[0] != &in[0] || red.String("s") != "s" {
			t.Error("changed or copied its input")
		}
	}
}

func TestIsSecretHeader(t *testing.T) {
	for _, name := range []string{"Authorization", "authorization", "Cookie", "Set-Cookie", "X-Api-Key", "X-Tenant"} {
		if !isSecretHeader(name, []string{"x-tenant"}) {
			t.Errorf("%s not secret", name)
		}
	}
	for _, name := range []string{"Content-Type", "Mcp-Session-Id", "Accept"} {
		if isSecretHeader(name, []string{"x-tenant"}) {
			t.Errorf("%s secret", name)
		}
	}
}
