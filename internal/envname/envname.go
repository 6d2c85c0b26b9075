// Package envname says whether a string may name an environment variable in the monitor's
// and the alerts' configuration: the portable shell form, so that an operator can export it.
package envname

// Valid reports whether name is a letter or underscore followed by letters, digits and
// underscores (ASCII only).
func Valid(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c == '_', 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		case '0' <= c && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}
