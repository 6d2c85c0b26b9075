package redact

import (
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestRedactorCoversTheFormsASecretTakes(t *testing.T) {
	red := New("Bearer abc<def>&ghi/jkl", `pa"ss\word`, "key with space", "ab", "")
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

// TestTheMinimumSecretLengthIsFourBytes pins the one rule on both sides: a four-byte value is
// replaced wherever it occurs, a three-byte one nowhere, whether the redactor was built from
// values (reports, runs, alerts) or from the headers a probe sends (its transcript).
func TestTheMinimumSecretLengthIsFourBytes(t *testing.T) {
	for name, red := range map[string]*Redactor{
		"values":  New("k3y9", "abc"),
		"headers": ForHeaders(http.Header{"X-Pin": {"k3y9"}, "X-Flag": {"abc"}}),
	} {
		for in, want := range map[string]string{
			`{"pin":"k3y9"}`:   `{"pin":"[redacted]"}`,
			`pin k3y9 refused`: `pin [redacted] refused`,
			`{"flag":"abc"}`:   `{"flag":"abc"}`,
			`abcdef`:           `abcdef`,
		} {
			if got := red.String(in); got != want {
				t.Errorf("%s: String(%q) = %q, want %q", name, in, got, want)
			}
			if got := string(red.Bytes([]byte(in))); got != want {
				t.Errorf("%s: Bytes(%q) = %q, want %q", name, in, got, want)
			}
		}
	}
}

func TestRedactorWithoutSecretsChangesNothing(t *testing.T) {
	for _, red := range []*Redactor{nil, New(), New("", "x"), ForHeaders(http.Header{"X-Short": {"on"}})} {
		if red.Active() {
			t.Error("active without secrets")
		}
		in := []byte("Bearer anything")
		if out := red.Bytes(in); &out[0] != &in[0] || red.String("s") != "s" {
			t.Error("changed or copied its input")
		}
		h := http.Header{"Accept": {"application/json"}}
		if got := red.Header(h); reflect.ValueOf(got).Pointer() != reflect.ValueOf(h).Pointer() {
			t.Error("copied a header with nothing to hide")
		}
	}
}

func TestIsSecretHeader(t *testing.T) {
	for _, name := range []string{"Authorization", "authorization", "Cookie", "Set-Cookie", "X-Api-Key", "Api-Key", "X-Tenant",
		"X-Auth-Token", "X-Client-Secret", "Private-Token", "X-Signing-Key", "X-SIGNING-KEY", "X-Api-\u212Aey"} {
		if !IsSecretHeader(name, []string{"x-tenant"}) {
			t.Errorf("%s not secret", name)
		}
	}
	for _, name := range []string{"Content-Type", "Mcp-Session-Id", "Accept", "X-Request-Id", "Mcp-Protocol-Version", "Keep-Alive"} {
		if IsSecretHeader(name, []string{"x-tenant"}) {
			t.Errorf("%s secret", name)
		}
	}
}

func TestForHeadersHidesSecretHeadersAndEchoes(t *testing.T) {
	user := http.Header{"Authorization": {"Bearer tok-8f2e1c9a77d4"}, "X-Tenant": {"acme-corp-1"}, "X-Short": {"on"}}
	r := ForHeaders(user)

	headers := []struct {
		name string
		in   http.Header
		want http.Header
	}{
		{name: "user headers and well-known credential headers are redacted",
			in: http.Header{"Authorization": {"Bearer x"}, "X-Tenant": {"other"}, "X-Short": {"on"},
				"Cookie": {"a=b"}, "Set-Cookie": {"c=d", "e=f"}, "X-Api-Key": {"k"}, "Proxy-Authorization": {"p"}},
			want: http.Header{"Authorization": {Redacted}, "X-Tenant": {Redacted}, "X-Short": {Redacted},
				"Cookie": {Redacted}, "Set-Cookie": {Redacted, Redacted}, "X-Api-Key": {Redacted},
				"Proxy-Authorization": {Redacted}}},
		{name: "other headers keep their values unless they echo a secret",
			in:   http.Header{"Content-Type": {"application/json"}, "X-Echo": {"got tok-8f2e1c9a77d4"}, "Mcp-Session-Id": {"s1"}},
			want: http.Header{"Content-Type": {"application/json"}, "X-Echo": {"got " + Redacted}, "Mcp-Session-Id": {"s1"}}},
		{name: "names match whatever their case", in: http.Header{"x-tenant": {"v"}, "x-api-key": {"v"}},
			want: http.Header{"x-tenant": {Redacted}, "x-api-key": {Redacted}}},
	}
	for _, tc := range headers {
		t.Run(tc.name, func(t *testing.T) {
			if got := r.Header(tc.in); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}

	bodies := []struct {
		name, in, want string
	}{
		{name: "a whole value", in: `{"auth":"Bearer tok-8f2e1c9a77d4"}`, want: `{"auth":"[redacted]"}`},
		{name: "the credential part alone", in: `token tok-8f2e1c9a77d4 is invalid`, want: `token [redacted] is invalid`},
		{name: "every occurrence", in: `acme-corp-1/acme-corp-1`, want: `[redacted]/[redacted]`},
		{name: "short values stay", in: `{"state":"on"}`, want: `{"state":"on"}`},
		{name: "nothing to hide", in: `{"jsonrpc":"2.0"}`, want: `{"jsonrpc":"2.0"}`},
	}
	for _, tc := range bodies {
		t.Run(tc.name, func(t *testing.T) {
			if got := string(r.Bytes([]byte(tc.in))); got != tc.want {
				t.Errorf("Bytes: %s, want %s", got, tc.want)
			}
			if got := r.String(tc.in); got != tc.want {
				t.Errorf("String: %s, want %s", got, tc.want)
			}
		})
	}
}

// A command line's arguments are secrets but for plain lowercase words, which a report is
// full of ("stdio"); an option's value counts on its own, and whatever follows an option
// named like a credential counts whatever it looks like.
func TestArgumentSecrets(t *testing.T) {
	for _, tc := range []struct {
		args, want []string
	}{
		{[]string{"-y", "@modelcontextprotocol/server-everything@2026.8.31", "stdio"}, []string{"@modelcontextprotocol/server-everything@2026.8.31"}},
		{[]string{"serve", "--verbose", "--read-only"}, nil},
		{[]string{"--token=ghp_abc123", "--mode=fast", "--auth=plain"}, []string{"--token=ghp_abc123", "ghp_abc123", "--mode=fast", "--auth=plain", "plain"}},
		{[]string{"--password", "hunter", "--name", "plain"}, []string{"hunter"}},
		{[]string{"--API-KEY", "lowercase", "run"}, []string{"--API-KEY", "lowercase"}},
		{[]string{"sk-Live0123456789"}, []string{"sk-Live0123456789"}},
		{[]string{"/srv/data", "8080"}, []string{"/srv/data", "8080"}},
		{nil, nil},
	} {
		if got := ArgumentSecrets(tc.args); !slices.Equal(got, tc.want) {
			t.Errorf("ArgumentSecrets(%q) = %q, want %q", tc.args, got, tc.want)
		}
	}
}

// IsSecretHeader compares names in place; its answer is the rule's on the lower-cased name,
// whatever the bytes (letters next to the ones that fold, and letters outside ASCII).
func TestIsSecretHeaderAnswersAsOnTheLowerCasedName(t *testing.T) {
	for _, name := range []string{"Authorization", "AUTHORIZATION", "@uthorization", "Authorization2", "Proxy-Authorization",
		"proxy_authorization", "Cookie", "COOKIE", "Cookies", "Set-Cookie", "Set-Cookie2", "Set_Cookie", "X-Api-Key", "X-API-KEY",
		"X-Api-Kez", "X-Api-[ey", "K", "Ke", "KEY", "Monkey", "X-Token-Id", "X-T0ken", "Tok", "X-Client-SECRET", "Secre",
		"X-Api-\u212Aey", "X-Api-K\u00e9y", "\u00c9-Token", "Content-Type", "Mcp-Session-Id", "Keep-Alive", "",
		"ttoken", "TTOKEN", "sssecret", "kkey", "x-tokeN", "X-Tok", "X-Ke", "X-Secre", "Cookiz", "\u00e9cookie", "Secret\u00e9", "Mcp-Protocol-Version"} {
		if got, want := IsSecretHeader(name, nil), secretLower(strings.ToLower(name)); got != want {
			t.Errorf("IsSecretHeader(%q) = %v, want %v", name, got, want)
		}
	}
}

// A name answered without the scan is no secret by the rule itself, and a name the user
// calls secret stays one.
func TestCommonHeadersAreNoSecretsByTheRule(t *testing.T) {
	common := 0
	for _, name := range []string{"Accept", "Accept-Encoding", "Cache-Control", "Connection", "Content-Length",
		"Content-Type", "Date", "Mcp-Protocol-Version", "Mcp-Session-Id", "Transfer-Encoding", "User-Agent",
		"Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie", "X-Api-Key", "X-Auth-Token", "Client-Secret",
		"Location", "Origin", "Www-Authenticate", "Mcp-Method", "Mcp-Name", "Content-Encoding", "Server"} {
		if commonHeader(name) {
			common++
		}
		if got, want := IsSecretHeader(name, nil), secretLower(strings.ToLower(name)); got != want {
			t.Errorf("%s: secret %v, by the rule %v (common %v)", name, got, want, commonHeader(name))
		}
		if !IsSecretHeader(name, []string{strings.ToLower(name)}) {
			t.Errorf("%s named as secret is not one", name)
		}
	}
	if common != 11 {
		t.Errorf("%d of the names are common, want the 11 first", common)
	}
}
