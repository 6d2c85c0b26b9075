// Package dbenv says where the commands (prober and api) find the database when no
// --database-url is given: the same variables, in the same order, for both, so that one
// environment serves a monitor and its dashboard.
package dbenv

// The variables read, in order: the project's own, then the one hosting platforms set.
const (
	Primary  = "MCPWATCH_DATABASE_URL"
	Fallback = "DATABASE_URL"
)

// URL returns the value of the first of Primary and Fallback that getenv finds non-empty, and
// that variable's name; "", "" when neither is set.
func URL(getenv func(string) string) (url, from string) {
	for _, name := range []string{Primary, Fallback} {
		if v := getenv(name); v != "" {
			return v, name
		}
	}
	return "", ""
}
