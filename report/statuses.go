package report

import "github.com/mcpwatch/mcpwatch/checks"

// The untested status and the advice severity, as every format counts and names them.

// untestedChecks are the checks of a report the probe could not judge.
func untestedChecks(r *Report) []Check {
	var out []Check
	for _, c := range r.Checks {
		if c.Status == string(checks.StatusUntested) {
			out = append(out, c)
		}
	}
	return out
}

// untestedNote tells the verdict line that some checks were not judged: a pass with untested
// checks is not a pass of every check.
func untestedNote(s Summary) string {
	if s.Untested == 0 {
		return ""
	}
	return "; " + plural(s.Untested, "check", "checks") + " untested, not passed"
}

// severity is the check's severity; a warning when a warn check carries none (reports
// written before advice existed).
func (c Check) severity() checks.Severity {
	switch {
	case c.Severity != nil:
		return checks.Severity(*c.Severity)
	case c.Status == string(checks.StatusWarn):
		return checks.SeverityWarning
	case c.Status == string(checks.StatusFail):
		return checks.SeverityError
	}
	return checks.SeverityNone
}

// advice reports whether a check only advises (warn of severity advice).
func (c Check) advice() bool {
	return c.Status == string(checks.StatusWarn) && c.severity() == checks.SeverityAdvice
}
