package alert

import "strings"

// These are written out rather than as package-level regexps: `prober check` links this
// package and would pay for compiling them at every start.

// validChannelName: a letter or digit, then up to 63 letters, digits, '_', '.' or '-'.
func validChannelName(s string) bool {
	if s == "" || len(s) > 64 || !isAlnum(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if c := s[i]; !isAlnum(c) && c != '_' && c != '.' && c != '-' {
			return false
		}
	}
	return true
}

// validCheckPattern: "*", a check id (dot-separated segments of a-z, 0-9 and '-'), or a
// check id prefix ending in ".*".
func validCheckPattern(p string) bool {
	if p == "*" {
		return true
	}
	p = strings.TrimSuffix(p, ".*")
	for seg := range strings.SplitSeq(p, ".") {
		if seg == "" {
			return false
		}
		for i := 0; i < len(seg); i++ {
			if c := seg[i]; !('a' <= c && c <= 'z') && !('0' <= c && c <= '9') && c != '-' {
				return false
			}
		}
	}
	return true
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}
