// Package redact keeps secrets out of everything mcpwatch records or shows: the transcript a
// probe records, the reports built from it, the runs the monitor stores, alert messages and
// logs. One Redactor, one rule for what counts as a secret, so that a value hidden in one of
// them is hidden in all.
//
// A secret is a value the user gave (a header value, an environment value, a URL's
// credentials, a webhook token, a stdio command's arguments as ArgumentSecrets tells them) of
// at least four bytes. Besides the value itself a Redactor
// covers the credential part of a "Scheme credential" value and the forms the value takes when
// escaped inside a JSON string or a URL, since a server can echo a token back in any of them.
// Headers that carry credentials whoever set them (Authorization, Cookie, ...) and the
// headers the user set are hidden by name whatever their value.
package redact

import (
	"encoding/json"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"unicode/utf8"
)

// Redacted replaces a secret wherever it would have been shown.
const Redacted = "[redacted]"

// minSecretLen is the shortest value replaced wherever it occurs. Below it a value ("1",
// "on", "yes") is a flag, not a credential, and replacing it everywhere would garble every
// report it occurs in while protecting nothing; from four bytes on it may be a PIN or a short
// key, and leaking one is worse than a report with a few words blanked. Header values of any
// length are still hidden by name.
const minSecretLen = 4

// Redactor replaces secret values wherever they appear in text, and the values of secret
// headers in header maps. The zero value and nil redact only the headers that always carry
// credentials.
type Redactor struct {
	r     *strings.Replacer
	names []string // header names whose values are secret besides the well-known ones
}

// New builds a redactor for the given secret values.
func New(secrets ...string) *Redactor {
	return build(nil, secrets)
}

// ForHeaders builds a redactor for headers the user set on a request: each of them is secret
// by name, and each of its values wherever it is echoed.
func ForHeaders(user http.Header) *Redactor {
	var names, values []string
	for name, vs := range user {
		names = append(names, name)
		values = append(values, vs...)
	}
	return build(names, values)
}

func build(names, secrets []string) *Redactor {
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
		// "Bearer abc": a server echoing the token alone must not reveal it either.
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
	x := &Redactor{names: names}
	if len(forms) == 0 {
		return x
	}
	// Longest first: where two forms start at the same byte the longer one wins.
	sort.SliceStable(forms, func(i, j int) bool { return len(forms[i]) > len(forms[j]) })
	pairs := make([]string, 0, 2*len(forms))
	for _, f := range forms {
		pairs = append(pairs, f, Redacted)
	}
	x.r = strings.NewReplacer(pairs...)
	return x
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

// Active reports whether there is any secret value to replace in text.
func (x *Redactor) Active() bool { return x != nil && x.r != nil }

// Header returns h with the values of secret headers replaced and secret values replaced in
// the others: a copy when anything changes, else h itself, which the caller then must not
// change (a request's or a response's header, done with once recorded).
func (x *Redactor) Header(h http.Header) http.Header {
	if h == nil || !x.changes(h) {
		return h
	}
	out := make(http.Header, len(h))
	for name, vs := range h {
		cp := make([]string, len(vs))
		secret := x.secretHeader(name)
		for i, v := range vs {
			if secret {
				cp[i] = Redacted
			} else {
				cp[i] = x.String(v)
			}
		}
		out[name] = cp
	}
	return out
}

// changes reports whether Header would change anything of h.
func (x *Redactor) changes(h http.Header) bool {
	for name, vs := range h {
		if x.secretHeader(name) {
			return true
		}
		for _, v := range vs {
			if x.String(v) != v {
				return true
			}
		}
	}
	return false
}

func (x *Redactor) secretHeader(name string) bool {
	if x == nil {
		return IsSecretHeader(name, nil)
	}
	return IsSecretHeader(name, x.names)
}

// IsSecretHeader reports whether the values of a header are never shown: the headers that
// carry credentials whoever set them (Authorization, cookies, and any name with token, key or
// secret in it, such as X-Auth-Token or X-Api-Key: the rule the GitHub Action masks by too),
// and those named (in any case).
func IsSecretHeader(name string, named []string) bool {
	for _, h := range named {
		if strings.EqualFold(h, name) {
			return true
		}
	}
	if commonHeader(name) {
		return false
	}
	// Compared without lowering a copy of name: the probe asks this of every header of
	// every request and response it records, and the copies were 230 of a probe's 7,000
	// allocations. One pass looks for the words at the letters they begin with: trying each
	// word at every offset took about 770 instructions a name, 2.4% of a probe.
	switch len(name) {
	case len("authorization"), len("proxy-authorization"), len("cookie"), len("set-cookie"):
		for _, h := range []string{"authorization", "proxy-authorization", "cookie", "set-cookie"} {
			if len(name) == len(h) && hasFoldAt(name, 0, h) {
				return true
			}
		}
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c >= utf8.RuneSelf {
			// A letter outside ASCII may lower to one inside (the Kelvin sign to k).
			return secretLower(strings.ToLower(name))
		}
		var word string
		switch c | 0x20 { // only 'T' and 't' give 't', and so on
		case 't':
			word = "token"
		case 'k':
			word = "key"
		case 's':
			word = "secret"
		default:
			continue
		}
		if i+len(word) <= len(name) && hasFoldAt(name, i, word) {
			return true
		}
	}
	return false
}

// commonHeader reports whether name is one of the headers (as net/http and the probe spell
// them) that nearly every exchange of a probe carries, none of them a secret by
// IsSecretHeader's rule: answered by one switch, they skip the scan for the words, a
// fifth of what recording an exchange's headers cost.
func commonHeader(name string) bool {
	switch name {
	case "Accept", "Accept-Encoding", "Cache-Control", "Connection", "Content-Length", "Content-Type",
		"Date", "Mcp-Protocol-Version", "Mcp-Session-Id", "Transfer-Encoding", "User-Agent":
		return true
	}
	return false
}

// secretLower is IsSecretHeader's rule for a name already in lower case.
func secretLower(lower string) bool {
	switch lower {
	case "authorization", "proxy-authorization", "cookie", "set-cookie":
		return true
	}
	for _, word := range []string{"token", "key", "secret"} {
		if strings.Contains(lower, word) {
			return true
		}
	}
	return false
}

// hasFoldAt reports whether the ASCII s has lower, ASCII in lower case, at offset i in any
// case.
func hasFoldAt(s string, i int, lower string) bool {
	for j := 0; j < len(lower); j++ {
		c, want := s[i+j], lower[j]
		if 'a' <= want && want <= 'z' {
			c |= 0x20 // upper to lower case; no other byte becomes a lower-case letter
		}
		if c != want {
			return false
		}
	}
	return true
}

// ArgumentSecrets lists the secrets of a command line's arguments, for a Redactor: every
// argument but a plain lowercase word (a subcommand such as "stdio" or "serve", a flag such as
// "--verbose"), which is the report's own vocabulary and too plain to be a credential, unless
// it follows an option named like a credential ("--password hunter"); and, by the same rule,
// the value of a "--name=value" option on its own, since a server may echo the value
// without its name.
func ArgumentSecrets(args []string) []string {
	var out []string
	afterCredential := false
	for _, a := range args {
		name, value, isOption := strings.Cut(a, "=")
		if !isOption || !strings.HasPrefix(name, "-") {
			name, value = a, ""
		}
		if afterCredential || !plainWord(a) {
			out = append(out, a)
		}
		if value != "" && (!plainWord(value) || credentialOption(strings.ToLower(name))) {
			out = append(out, value)
		}
		afterCredential = strings.HasPrefix(a, "-") && value == "" && credentialOption(strings.ToLower(name))
	}
	return out
}

// plainWord reports whether s is lowercase letters and hyphens only.
func plainWord(s string) bool {
	for _, r := range s {
		if (r < 'a' || r > 'z') && r != '-' {
			return false
		}
	}
	return true
}

// credentialOption reports whether an option's name (in lower case) says its value is a
// credential: --token, --api-key, --password, --auth, --credentials...
func credentialOption(lower string) bool {
	for _, word := range []string{"token", "key", "secret", "pass", "auth", "credential"} {
		if strings.Contains(lower, word) {
			return true
		}
	}
	return false
}

func jsonEscaped(s string, escapeHTML bool) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(escapeHTML)
	_ = enc.Encode(s)
	out := strings.TrimSuffix(b.String(), "\n")
	return strings.TrimSuffix(strings.TrimPrefix(out, `"`), `"`)
}
