// Package httptoken says whether text is an HTTP token (RFC 9110 section 5.6.2), the form of
// header field names and authentication schemes, for every place that checks one: the
// prober's --header flags, the monitor's and the alerts' configuration, the API, and the
// probe's reading of WWW-Authenticate.
package httptoken

import "strings"

// IsTokenChar reports whether c is a tchar: a letter, a digit or one of !#$%&'*+-.^_`|~.
func IsTokenChar(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

// Valid reports whether s is a token: one or more tchars.
func Valid(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !IsTokenChar(s[i]) {
			return false
		}
	}
	return true
}
