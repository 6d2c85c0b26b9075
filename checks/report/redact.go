package report

import (
	"encoding/json"
	"net/url"
	"sort"
	"strings"
)

// Redacted replaces a secret wherever it would have been shown.
const Redacted = "[redacted]"

// minSecretLen keeps a trivially short value (a header set to "1") from blanking every
// occurrence of that character sequence in a report; such a value protects nothing anyway.
const minSecretLen = 4

// Redactor replaces secret values wherever they appear in text. The probe already redacts
// the headers it sends, but a server can echo a token back in an error message, a body or
// its stderr, so every string a report carries passes through here.
type Redactor struct {
	r *strings.Replacer
}

// NewRedactor builds a redactor for the given secret values. Besides each value it covers
// the credential part of "Scheme credential" values and the forms the value takes when it is
// escaped inside a JSON string or a URL.
func NewRedactor(secrets ...string) *Redactor {
	seen := map[string]bool{}
	var forms []string
	add := func(s string) {
		if len(s) >= minSecretLen && !seen[s] {
			seen[s] = true
			forms = append(forms, s)
		}
	}
	for _, s := range secrets {
		s = strings.TrimSpace(s)
		variants := []string{s}
		if fields := strings.Fields(s); len(fields) > 1 {
			variants = append(variants, fields[len(fields)-1])
		}
		for _, v := range variants {
			add(v)
			add(jsonEscaped(v, true))
			add(jsonEscaped(v, false))
			add(url.QueryEscape(v))
			add(url.PathEscape(v))
		}
	}
	if len(forms) == 0 {
		return &Redactor{}
	}
	// Longest first: where two forms start at the same byte the longer one wins.
	sort.SliceStable(forms, func(i, j int) bool { return len(forms[i]) > len(forms[j]) })
	pairs := make([]string, 0, 2*len(forms))
	for _, f := range forms {
		pairs = append(pairs, f, Redacted)
	}
	return &Redactor{r: strings.NewReplacer(pairs...)}
}

// String returns s with every secret replaced.
func (x *Redactor) String(s string) string {
	if x == nil || x.r == nil || s == "" {
		return s
	}
	return x.r.Replace(s)
}

// Bytes returns b with every secret replaced (b itself when it holds none).
func (x *Redactor) Bytes(b []byte) []byte {
	if x == nil || x.r == nil || len(b) == 0 {
		return b
	}
	s := string(b)
	if r := x.r.Replace(s); r != s {
		return []byte(r)
	}
	return b
}

// Active reports whether there is anything to redact.
func (x *Redactor) Active() bool { return x != nil && x.r != nil }

func jsonEscaped(s string, escapeHTML bool) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(escapeHTML)
	_ = enc.Encode(s)
	out := strings.TrimSuffix(b.String(), "\n")
	return strings.TrimSuffix(strings.TrimPrefix(out, `"`), `"`)
}

// isSecretHeader reports whether the values of a header are never shown: the headers that
// carry credentials whoever set them, and those the user named.
func isSecretHeader(name string, extra []string) bool {
	switch strings.ToLower(name) {
	case "authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key", "api-key":
		return true
	}
	for _, h := range extra {
		if strings.EqualFold(h, name) {
			return true
		}
	}
	return false
}
