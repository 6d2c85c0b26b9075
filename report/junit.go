package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/mcpwatch/mcpwatch/checks"
)

// The JUnit report is one test suite per probe and one test case per check, named by its id
// and classed by its area (mcpwatch.lifecycle), because that is how Jenkins, GitLab, Azure
// DevOps, CircleCI and the JUnit viewers on GitHub group and name tests.
//
// It mirrors the verdict, so that the test report and the exit code never disagree (a red
// test next to a green job teaches people to ignore both):
//   - a check that fails the verdict is a <failure>, its evidence and cited frames in the
//     body (every viewer shows a failure's body; few show system-out unasked);
//   - a warning below --fail-on passes, its evidence in <system-out>, where the viewers that
//     show output for passing tests (GitLab, Jenkins) put it;
//   - a skipped check is <skipped message="why">, and so is a failure the baseline accepts
//     (as pytest reports an expected failure), with its evidence in <system-out>;
//   - an untested check (it applies, but the probe could not judge it) is a
//     <skipped type="untested" message="untested: why">: JUnit has no "undecided", a failure
//     would contradict the exit code, and a pass it never is;
//   - a probe that could not finish is an <error> of an extra test case named "probe".

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Time       string          `xml:"time,attr"`
	Timestamp  string          `xml:"timestamp,attr,omitempty"`
	Properties []junitProperty `xml:"properties>property,omitempty"`
	Cases      []junitCase     `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitProblem `xml:"failure,omitempty"`
	Error     *junitProblem `xml:"error,omitempty"`
	Skipped   *junitSkipped `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Body    string `xml:",chardata"`
}

type junitSkipped struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
}

// junitMessageWidth bounds the message attribute, which viewers show on one line.
const junitMessageWidth = 500

// WriteJUnit writes the report as JUnit XML.
func WriteJUnit(w io.Writer, r *Report) error {
	suite := junitSuite{
		Name:       "MCP conformance: " + clip(r.Target, 200),
		Time:       seconds(r.DurationMs),
		Properties: junitProperties(r),
	}
	if !r.StartedAt.IsZero() {
		// The JUnit schema's timestamp has no zone; it is UTC here.
		suite.Timestamp = r.StartedAt.UTC().Format("2006-01-02T15:04:05")
	}
	for _, c := range r.Checks {
		tc := junitCase{Name: c.ID, Classname: junitClass(c.Area), Time: "0"}
		switch {
		case r.failsVerdict(c):
			typ := "error"
			if c.Severity != nil {
				typ = *c.Severity
			}
			tc.Failure = &junitProblem{Message: clip(withHint(c.Message, c.Hint), junitMessageWidth), Type: typ, Body: junitBody(r, c)}
			suite.Failures++
		case c.Baselined:
			msg := acceptedText(c) + ": " + c.Message
			tc.Skipped = &junitSkipped{Message: clip(msg, junitMessageWidth), Type: "baselined"}
			tc.SystemOut = junitBody(r, c)
			suite.Skipped++
		case c.Status == string(checks.StatusSkip):
			tc.Skipped = &junitSkipped{Message: clip(c.Message, junitMessageWidth)}
			suite.Skipped++
		case c.Status == string(checks.StatusUntested):
			tc.Skipped = &junitSkipped{Message: clip("untested: "+c.Message, junitMessageWidth), Type: "untested"}
			suite.Skipped++
		case c.advice():
			tc.SystemOut = "advice below the --fail-on threshold (" + r.FailOn + ")\n" + junitBody(r, c)
		case c.Status == string(checks.StatusWarn):
			tc.SystemOut = "warning below the --fail-on threshold (" + r.FailOn + "): " + withHint(c.Message, c.Hint) + "\n" + junitBody(r, c)
		case c.Status == string(checks.StatusInfo):
			tc.SystemOut = clip(c.Message, plainMessageWidth)
		}
		suite.Cases = append(suite.Cases, tc)
	}
	// What breaks only under other accepted revisions fails the verdict too: a case each,
	// so that the failures counted agree with it.
	for _, p := range r.revisionProblems() {
		c := p.check
		tc := junitCase{Name: c.ID + " under " + strings.Join(p.revisions, ", "), Classname: junitClass(c.Area), Time: "0"}
		body := junitBody(&Report{CitedFrames: p.frames}, c)
		if r.failsVerdict(c) {
			typ := "error"
			if c.Severity != nil {
				typ = *c.Severity
			}
			tc.Failure = &junitProblem{Message: clip(withHint(c.Message, c.Hint), junitMessageWidth), Type: typ, Body: body}
			suite.Failures++
		} else {
			tc.SystemOut = c.Status + " under " + strings.Join(p.revisions, ", ") + ": " + withHint(c.Message, c.Hint) + "\n" + body
		}
		suite.Cases = append(suite.Cases, tc)
	}
	if r.Error != "" {
		suite.Cases = append(suite.Cases, junitCase{
			Name: "probe", Classname: junitClass("probe"), Time: seconds(r.DurationMs),
			Error: &junitProblem{Message: clip(r.Error, junitMessageWidth), Type: "probe-error",
				Body: "the probe did not finish: " + clip(r.Error, plainMessageWidth)},
		})
		suite.Errors++
	}
	suite.Tests = len(suite.Cases)
	doc := junitSuites{
		Name: "mcpwatch", Tests: suite.Tests, Failures: suite.Failures, Errors: suite.Errors,
		Skipped: suite.Skipped, Time: suite.Time, Suites: []junitSuite{suite},
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return fmt.Errorf("report: writing junit: %w", err)
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("report: writing junit: %w", err)
	}
	if _, err := io.WriteString(w, "\n"); err != nil {
		return fmt.Errorf("report: writing junit: %w", err)
	}
	return nil
}

func junitFormat() Format {
	return Format{
		Name:        "junit",
		Description: "JUnit XML: a test case per check, failures with evidence",
		Write:       func(w io.Writer, r *Report, _ WriteOptions) error { return WriteJUnit(w, r) },
	}
}

func junitClass(area string) string {
	if area == "" {
		area = "other"
	}
	return "mcpwatch." + area
}

// withHint appends the usual fix to a one-line message, for formats whose viewers show only
// that line.
func withHint(msg, hint string) string {
	if hint == "" {
		return msg
	}
	return msg + " (hint: " + hint + ")"
}

// junitBody is the evidence of a check with what the rule requires and where it is written.
func junitBody(r *Report, c Check) string {
	var lines []string
	if c.Title != "" {
		lines = append(lines, "rule: "+clip(c.Title, plainMessageWidth))
	}
	if c.Rule != "" {
		lines = append(lines, "rule letters: "+c.Rule)
	}
	lines = append(lines, evidenceLines(r, c)...)
	return strings.Join(lines, "\n")
}

func junitProperties(r *Report) []junitProperty {
	props := []junitProperty{
		{"target", r.Target},
		{"transport", r.Transport},
		{"requestedVersion", r.RequestedVersion},
		{"evaluatedVersion", r.EvaluatedVersion},
		{"failOn", r.FailOn},
		{"verdict", r.Verdict},
	}
	if r.ProtocolVersion != nil {
		props = append(props, junitProperty{"protocolVersion", *r.ProtocolVersion})
	}
	if name, version := r.ServerName(); name != "" || version != "" {
		props = append(props, junitProperty{"server", strings.TrimSpace(name + " " + version)})
	}
	if r.Generator.Name != "" {
		props = append(props, junitProperty{"generator", strings.TrimSpace(r.Generator.Name + " " + r.Generator.Version)})
	}
	for i := range props {
		props[i].Value = clip(props[i].Value, 300)
	}
	return props
}

// seconds renders milliseconds as the seconds JUnit's time attributes hold.
func seconds(ms float64) string { return fmt.Sprintf("%.3f", ms/1000) }
