package jsondoc

import "strings"

// PointerTokens splits a JSON Pointer (RFC 6901) into its reference tokens, unescaped (~1 is
// /, then ~0 is ~, in that order, as §4 requires, so "~01" reads "~1"). The pointer "" (the
// whole document) has no tokens; ok is false for a non-empty pointer that does not start
// with "/".
func PointerTokens(pointer string) (tokens []string, ok bool) {
	if pointer == "" {
		return nil, true
	}
	if pointer[0] != '/' {
		return nil, false
	}
	tokens = strings.Split(pointer[1:], "/")
	for i, t := range tokens {
		if strings.Contains(t, "~") {
			tokens[i] = strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
		}
	}
	return tokens, true
}

// PointerToken escapes a member name as a reference token of a JSON Pointer (RFC 6901 §3:
// ~ as ~0, / as ~1).
func PointerToken(name string) string {
	if !strings.ContainsAny(name, "~/") {
		return name
	}
	return strings.ReplaceAll(strings.ReplaceAll(name, "~", "~0"), "/", "~1")
}
