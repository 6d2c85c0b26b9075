package checks

import (
	"fmt"
	"testing"
)

func TestSettleDerivesStatusSeverityAndMessage(t *testing.T) {
	tests := []struct {
		name     string
		record   func(f *Finding)
		status   Status
		severity Severity
		message  string
	}{
		{"nothing recorded passes", func(f *Finding) {}, StatusPass, SeverityNone, "ok"},
		{"a pass keeps its message", func(f *Finding) { f.Pass("answered") }, StatusPass, SeverityNone, "answered"},
		{"an error fails", func(f *Finding) { f.Fail(nil, "bad") }, StatusFail, SeverityError, "bad"},
		{"a warning warns", func(f *Finding) { f.Warn(nil, "meh") }, StatusWarn, SeverityWarning, "meh"},
		{"advice alone warns with severity advice", func(f *Finding) { f.Advise(nil, "no description") },
			StatusWarn, SeverityAdvice, "no description"},
		{"advice about a tool is advice", func(f *Finding) { f.AdviseTool("t", nil, "no description") },
			StatusWarn, SeverityAdvice, "no description"},
		{"a warning outweighs advice and names itself", func(f *Finding) {
			f.Advise(nil, "hint")
			f.Warn(nil, "should")
		}, StatusWarn, SeverityWarning, "should (and 1 more)"},
		{"an error outweighs warning and advice", func(f *Finding) {
			f.Advise(nil, "hint")
			f.Warn(nil, "should")
			f.Fail(nil, "must")
		}, StatusFail, SeverityError, "must (and 2 more)"},
		{"untested gives its reason", func(f *Finding) { f.Untested("the server exited (%s)", "status 1") },
			StatusUntested, SeverityNone, "the server exited (status 1)"},
		{"untested is not a skip even when a skip was also recorded", func(f *Finding) {
			f.Skip("not applicable")
			f.Untested("initialize did not succeed")
		}, StatusUntested, SeverityNone, "initialize did not succeed"},
		{"evidence outweighs untested", func(f *Finding) {
			f.Fail(nil, "bad first page")
			f.Untested("the second page never came")
		}, StatusFail, SeverityError, "bad first page"},
		{"a skip gives its reason", func(f *Finding) { f.Skip("no tools capability") }, StatusSkip, SeverityNone, "no tools capability"},
		{"a fact is info", func(f *Finding) { f.Info("3 tools") }, StatusInfo, SeverityNone, "3 tools"},
		{"notJudged untested", func(f *Finding) { f.notJudged(true, "stopped") }, StatusUntested, SeverityNone, "stopped"},
		{"notJudged skip", func(f *Finding) { f.notJudged(false, "elsewhere") }, StatusSkip, SeverityNone, "elsewhere"},
		{"a dropped warning still counts past advice", func(f *Finding) {
			for i := 0; i < maxEvidence; i++ {
				f.Advise(nil, "hint %d", i)
			}
			f.Warn(nil, "dropped")
		}, StatusWarn, SeverityWarning, fmt.Sprintf("hint 0 (and %d more)", maxEvidence)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := Finding{ID: "x.y"}
			tt.record(&f)
			f.settle()
			if f.Status != tt.status || f.Severity != tt.severity || f.Message != tt.message {
				t.Errorf("got %s/%q %q, want %s/%q %q", f.Status, f.Severity, f.Message, tt.status, tt.severity, tt.message)
			}
		})
	}
}

func TestSeverityRankOrdersErrorWarningAdvice(t *testing.T) {
	if !(SeverityRank(SeverityError) > SeverityRank(SeverityWarning) &&
		SeverityRank(SeverityWarning) > SeverityRank(SeverityAdvice) &&
		SeverityRank(SeverityAdvice) > SeverityRank(SeverityNone)) {
		t.Error("want error > warning > advice > none")
	}
}
