package probe

import (
	"net/http"
	"reflect"
	"testing"
)

func TestRedactorHidesSecretHeadersAndEchoes(t *testing.T) {
	user := http.Header{"Authorization": {"Bearer tok-8f2e1c9a77d4"}, "X-Tenant": {"acme-corp-1"}, "X-Short": {"on"}}
	r := newRedactor(user)

	headers := []struct {
		name string
		in   http.Header
		want http.Header
	}{
		{name: "user headers and well-known credential headers are redacted",
			in: http.Header{"Authorization": {"Bearer x"}, "X-Tenant": {"other"}, "X-Short": {"on"},
				"Cookie": {"a=b"}, "Set-Cookie": {"c=d", "e=f"}, "X-Api-Key": {"k"}, "Proxy-Authorization": {"p"}},
			want: http.Header{"Authorization": {redactedValue}, "X-Tenant": {redactedValue}, "X-Short": {redactedValue},
				"Cookie": {redactedValue}, "Set-Cookie": {redactedValue, redactedValue}, "X-Api-Key": {redactedValue},
				"Proxy-Authorization": {redactedValue}}},
		{name: "other headers keep their values unless they echo a secret",
			in:   http.Header{"Content-Type": {"application/json"}, "X-Echo": {"got tok-8f2e1c9a77d4"}, "Mcp-Session-Id": {"s1"}},
			want: http.Header{"Content-Type": {"application/json"}, "X-Echo": {"got " + redactedValue}, "Mcp-Session-Id": {"s1"}}},
		{name: "names match whatever their case", in: http.Header{"x-tenant": {"v"}, "x-api-key": {"v"}},
			want: http.Header{"x-tenant": {redactedValue}, "x-api-key": {redactedValue}}},
	}
	for _, tc := range headers {
		t.Run(tc.name, func(t *testing.T) {
			if got := r.header(tc.in); !reflect.DeepEqual(got, tc.want) {
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
			if got := string(r.bytes([]byte(tc.in))); got != tc.want {
				t.Errorf("bytes: %s, want %s", got, tc.want)
			}
			if got := r.text(tc.in); got != tc.want {
				t.Errorf("text: %s, want %s", got, tc.want)
			}
		})
	}
}
