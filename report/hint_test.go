package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"strings"
	"testing"

	"github.com/mcpwatch/mcpwatch/checks"
)

// Every finding that is not a pass carries its check's usual fix, and every format shows it:
// a reader of any of them learns what to change, not only what broke.
func TestEveryNonPassFindingShowsItsHintInEveryFormat(t *testing.T) {
	reg, err := checks.Default()
	if err != nil {
		t.Fatal(err)
	}
	res := stdioResult()
	r := Build(res, reg.Evaluate(res), BuildOptions{Catalog: reg})
	var problems []Check
	for _, c := range r.Checks {
		if c.Status == string(checks.StatusFail) || c.Status == string(checks.StatusWarn) {
			problems = append(problems, c)
			if c.Hint == "" {
				t.Errorf("%s (%s) has no hint", c.ID, c.Status)
			}
		}
	}
	if len(problems) < 2 {
		t.Fatalf("the fixture should break several rules, got %d", len(problems))
	}
	for _, f := range Formats() {
		var b bytes.Buffer
		if err := f.Write(&b, r, WriteOptions{}); err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		out := b.String()
		for _, c := range problems {
			if !hintShown(t, f.Name, out, c) {
				t.Errorf("%s: the hint of %s (%q) is not shown", f.Name, c.ID, c.Hint)
			}
		}
	}
}

// hintShown decodes what the format escapes before looking for the hint.
func hintShown(t *testing.T, format, out string, c Check) bool {
	t.Helper()
	switch format {
	case "json":
		var doc struct {
			Checks []Check `json:"checks"`
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatalf("json: %v", err)
		}
		for _, d := range doc.Checks {
			if d.ID == c.ID {
				return d.Hint == c.Hint
			}
		}
		return false
	case "junit":
		var suites struct {
			Suites []struct {
				Cases []struct {
					Name      string `xml:"name,attr"`
					SystemOut string `xml:"system-out"`
					Failure   *struct {
						Message string `xml:"message,attr"`
					} `xml:"failure"`
				} `xml:"testcase"`
			} `xml:"testsuite"`
		}
		if err := xml.Unmarshal([]byte(out), &suites); err != nil {
			t.Fatalf("junit: %v", err)
		}
		for _, s := range suites.Suites {
			for _, tc := range s.Cases {
				if tc.Name != c.ID {
					continue
				}
				if tc.Failure != nil {
					return strings.Contains(tc.Failure.Message, c.Hint)
				}
				return strings.Contains(tc.SystemOut, c.Hint)
			}
		}
		return false
	case "sarif":
		var log struct {
			Runs []struct {
				Tool struct {
					Driver struct {
						Rules []struct {
							ID   string `json:"id"`
							Help struct {
								Text string `json:"text"`
							} `json:"help"`
						} `json:"rules"`
					} `json:"driver"`
				} `json:"tool"`
				Results []struct {
					RuleID  string `json:"ruleId"`
					Message struct {
						Text string `json:"text"`
					} `json:"message"`
				} `json:"results"`
			} `json:"runs"`
		}
		if err := json.Unmarshal([]byte(out), &log); err != nil {
			t.Fatalf("sarif: %v", err)
		}
		help, msg := false, false
		for _, run := range log.Runs {
			for _, rule := range run.Tool.Driver.Rules {
				help = help || rule.ID == c.ID && strings.Contains(rule.Help.Text, c.Hint)
			}
			for _, res := range run.Results {
				msg = msg || res.RuleID == c.ID && strings.Contains(res.Message.Text, c.Hint)
			}
		}
		return help && msg
	case "text":
		// The text report wraps prose at the terminal's width: the hint may span lines.
		words := func(s string) string { return strings.Join(strings.Fields(s), " ") }
		return strings.Contains(words(out), words("hint: "+c.Hint))
	}
	return strings.Contains(out, "hint: "+c.Hint)
}
