package report

import (
	"errors"
	"reflect"
	"testing"

	"github.com/mcpwatch/mcpwatch/checks"
)

// Judge evaluates the checks when it is not given their findings, and then builds the same
// report as Build does from those findings.
func TestJudgeEvaluatesTheChecksItIsGiven(t *testing.T) {
	catalog, err := checks.Default()
	if err != nil {
		t.Fatal(err)
	}
	opts := BuildOptions{Catalog: catalog, Verbose: true}
	got, err := Judge(stdioResult(), JudgeOptions{Checks: catalog, Build: opts})
	if err != nil {
		t.Fatal(err)
	}
	want := Build(stdioResult(), catalog.Evaluate(stdioResult()), opts)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Judge differs from Build of the evaluated findings:\n got %+v\nwant %+v", got.Summary, want.Summary)
	}
	// Findings already judged are taken as they are: the checks do not run again.
	given, err := Judge(stdioResult(), JudgeOptions{Findings: toolFindings(), Build: opts})
	if err != nil {
		t.Fatal(err)
	}
	if want := Build(stdioResult(), toolFindings(), opts); !reflect.DeepEqual(given, want) {
		t.Errorf("Judge of given findings differs from Build of them: got %+v, want %+v", given.Summary, want.Summary)
	}
	if _, err := Judge(stdioResult(), JudgeOptions{}); err == nil {
		t.Error("Judge without checks or findings gave no error")
	}
}

// With RenewBaseline the report is built once and judged by the baseline it renews: the same
// report as a second Build by that baseline would be, the reasons of the old one kept.
func TestJudgeByARenewedBaselineBuildsOnceWhatTwoBuildsGave(t *testing.T) {
	previous := &Baseline{File: "old.yaml", Entries: []BaselineEntry{
		{Check: "lifecycle.ping", Reason: "upstream SDK bug"},
		{Check: "jsonrpc.parse", Reason: "fixed since"},
		{Check: "tools.name-format", Tool: "legacy tool", Reason: "renamed in v2"},
	}}
	for _, failOn := range []checks.Severity{checks.SeverityError, checks.SeverityWarning} {
		t.Run(string(failOn), func(t *testing.T) {
			opts := BuildOptions{FailOn: failOn, Baseline: previous}
			var renewed *Baseline
			calls := 0
			got, err := Judge(stdioResult(), JudgeOptions{Findings: toolFindings(), Build: opts,
				RenewBaseline: func(nb *Baseline, r *Report) error {
					calls++
					if r.Baseline == nil || r.Baseline.File != "old.yaml" {
						t.Errorf("the report to save with is judged by %+v, want the previous baseline", r.Baseline)
					}
					nb.File = "new.yaml"
					renewed = nb
					return nil
				}})
			if err != nil {
				t.Fatal(err)
			}
			if calls != 1 {
				t.Fatalf("RenewBaseline called %d times, want once", calls)
			}
			first := Build(stdioResult(), toolFindings(), opts)
			want := NewBaseline(first, previous)
			want.File = "new.yaml"
			if !reflect.DeepEqual(renewed, want) {
				t.Errorf("renewed baseline %+v, want %+v", renewed, want)
			}
			again := Build(stdioResult(), toolFindings(), BuildOptions{FailOn: failOn, Baseline: want})
			if !reflect.DeepEqual(got, again) {
				t.Errorf("report judged by the renewed baseline:\n got %+v %+v\nwant %+v %+v", got.Verdict, got.Summary, again.Verdict, again.Summary)
			}
			if got.Verdict != VerdictPass || got.Summary.Baselined == 0 || got.Baseline.File != "new.yaml" {
				t.Errorf("verdict %s, %d baselined, by %+v; want a pass by new.yaml", got.Verdict, got.Summary.Baselined, got.Baseline)
			}
		})
	}
	failed := errors.New("disk full")
	_, err := Judge(stdioResult(), JudgeOptions{Findings: toolFindings(),
		RenewBaseline: func(*Baseline, *Report) error { return failed }})
	if !errors.Is(err, failed) {
		t.Errorf("error %v, want the one saving the baseline gave", err)
	}
}

// The other revisions of a --protocol-version all run are judged by the checks when they
// come without findings, and complete the report as AddRevisions does.
func TestJudgeJudgesTheOtherRevisions(t *testing.T) {
	catalog, err := checks.Default()
	if err != nil {
		t.Fatal(err)
	}
	other := stdioResult()
	other.Requested, other.Negotiated, other.ProtocolVersion = "2025-03-26", "2025-03-26", "2025-03-26"
	opts := BuildOptions{Catalog: catalog}
	got, err := Judge(stdioResult(), JudgeOptions{Checks: catalog, Build: opts,
		Revisions: []RevisionRun{{Result: stdioResult()}, {Result: other}}, Main: 0})
	if err != nil {
		t.Fatal(err)
	}
	want := Build(stdioResult(), catalog.Evaluate(stdioResult()), opts)
	AddRevisions(want, []RevisionRun{{Result: stdioResult()}, {Result: other, Findings: catalog.Evaluate(other)}}, 0, opts)
	if len(got.Revisions) != 2 || !reflect.DeepEqual(got, want) {
		t.Errorf("revisions\n got %+v\nwant %+v", got.Revisions, want.Revisions)
	}
}
