package probe

import (
	"bytes"
	"net/http"
	"strings"
)

// redactedValue replaces a secret in anything the probe records.
const redactedValue = "[redacted]"

// alwaysSecret reports whether a header (canonical name) carries credentials whoever set it.
func alwaysSecret(name string) bool {
	switch name {
	case "Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie", "X-Api-Key":
		return true
	}
	return false
}

// minScrubLen keeps a short header value ("1", "prod") from being blanked out of every body
// it happens to occur in; values that short protect nothing anyway and are still redacted
// in the recorded headers.
const minScrubLen = 6

// redactor keeps secrets out of the transcript: the values of secret headers in recorded
// header maps, and those values wherever a server echoes them (a body, an error message).
type redactor struct {
	names  map[string]bool // canonical header names whose values are secret
	values [][]byte        // the user's secret values (and their credential parts), longest first
	texts  []string        // values as strings
}

// newRedactor treats every header the user gave as secret, besides alwaysSecret.
func newRedactor(user http.Header) *redactor {
	r := &redactor{names: map[string]bool{}}
	seen := map[string]bool{}
	add := func(v string) {
		v = strings.TrimSpace(v)
		if len(v) >= minScrubLen && !seen[v] {
			seen[v] = true
			r.values = append(r.values, []byte(v))
		}
	}
	for name, vs := range user {
		r.names[http.CanonicalHeaderKey(name)] = true
		for _, v := range vs {
			add(v)
			// "Bearer abc": a server echoing the token alone must not reveal it either.
			if f := strings.Fields(v); len(f) > 1 {
				add(f[len(f)-1])
			}
		}
	}
	// Longest first, so that a value containing another is replaced whole.
	for i := 1; i < len(r.values); i++ {
		for j := i; j > 0 && len(r.values[j]) > len(r.values[j-1]); j-- {
			r.values[j], r.values[j-1] = r.values[j-1], r.values[j]
		}
	}
	for _, v := range r.values {
		r.texts = append(r.texts, string(v))
	}
	return r
}

// header returns h with the values of secret headers replaced (and secret values scrubbed
// from the others): a copy when anything is secret, else h itself, which the caller then
// must not change (a request's or a response's header, done with once recorded).
func (r *redactor) header(h http.Header) http.Header {
	if h == nil || !r.holdsSecret(h) {
		return h
	}
	out := make(http.Header, len(h))
	for name, vs := range h {
		cp := make([]string, len(vs))
		for i, v := range vs {
			if key := http.CanonicalHeaderKey(name); r.names[key] || alwaysSecret(key) {
				cp[i] = redactedValue
			} else {
				cp[i] = r.text(v)
			}
		}
		out[name] = cp
	}
	return out
}

// holdsSecret reports whether header would change anything of h.
func (r *redactor) holdsSecret(h http.Header) bool {
	for name, vs := range h {
		if key := http.CanonicalHeaderKey(name); r.names[key] || alwaysSecret(key) {
			return true
		}
		for _, v := range vs {
			if r.text(v) != v {
				return true
			}
		}
	}
	return false
}

// bytes returns b with every secret value replaced (b itself when it holds none).
func (r *redactor) bytes(b []byte) []byte {
	for _, v := range r.values {
		if bytes.Contains(b, v) {
			b = bytes.ReplaceAll(b, v, []byte(redactedValue))
		}
	}
	return b
}

// text is bytes for strings.
func (r *redactor) text(s string) string {
	for _, v := range r.texts {
		if strings.Contains(s, v) {
			s = strings.ReplaceAll(s, v, redactedValue)
		}
	}
	return s
}
