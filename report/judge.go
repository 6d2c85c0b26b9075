package report

import (
	"fmt"
	"slices"
	"sync"

	"github.com/mcpwatch/mcpwatch/checks"
	"github.com/mcpwatch/mcpwatch/checks/mcpschema"
	"github.com/mcpwatch/mcpwatch/probe"
)

// JudgeOptions say how Judge judges a probe result and builds its report.
type JudgeOptions struct {
	// Checks judge the result; required unless Findings are given.
	Checks *checks.Registry
	// Findings, when not nil, are the result's verdicts already given by Checks (a
	// --protocol-version all run judges every revision at once); Judge does not evaluate
	// the checks again.
	Findings []checks.Finding
	// Official, when set, cross-checks what the checks validate by schema against the
	// specification's own schema files (see checks.CrossCheckOfficial); Schemas is this
	// project's validator to compare with (default mcpschema.New()).
	Official *mcpschema.Official
	Schemas  *mcpschema.Validator
	// Build tunes the report; Build.Baseline is the baseline the run is judged by.
	Build BuildOptions
	// RenewBaseline, when set, is given the baseline of this run's failures (NewBaseline,
	// with the reasons of Build.Baseline) before the verdict is reached, to save it and set
	// its File; the report is then judged by that baseline rather than Build.Baseline. An
	// error from it is Judge's.
	RenewBaseline func(b *Baseline, r *Report) error
	// Revisions, with Main, are the probes of every revision of a --protocol-version all
	// run, Revisions[Main] being the result judged; they complete the report as
	// AddRevisions says, judged by Build.Baseline. Those without findings are judged by
	// Checks, all at once.
	Revisions []RevisionRun
	Main      int
}

// Findings judges a probe result: the checks' verdicts, with what the official schemas add
// when JudgeOptions.Official is set. Judge gives its report; the monitor, which stores
// findings rather than reports, calls this.
func Findings(res *probe.Result, o JudgeOptions) ([]checks.Finding, error) {
	findings := o.Findings
	if findings == nil {
		if o.Checks == nil {
			return nil, fmt.Errorf("report: judging needs the checks or their findings")
		}
		findings = o.Checks.Evaluate(res)
	}
	if o.Official != nil {
		ours := o.Schemas
		if ours == nil {
			var err error
			if ours, err = mcpschema.New(); err != nil {
				return nil, fmt.Errorf("report: official schemas: %w", err)
			}
		}
		findings = checks.CrossCheckOfficial(res, findings, ours, o.Official)
	}
	return findings, nil
}

// Judge judges a probe result and builds its report, once: the findings (see Findings), the
// report's checks and verdict by the baseline (the renewed one with RenewBaseline), and the
// other revisions of a --protocol-version all run.
func Judge(res *probe.Result, o JudgeOptions) (*Report, error) {
	var wg sync.WaitGroup
	if len(o.Revisions) > 0 && o.Checks != nil {
		// On two cores judging every revision at once takes the time of the slowest.
		o.Revisions = slices.Clone(o.Revisions)
		for i := range o.Revisions {
			if i != o.Main && o.Revisions[i].Findings == nil {
				wg.Go(func() { o.Revisions[i].Findings = o.Checks.Evaluate(o.Revisions[i].Result) })
			}
		}
	}
	findings, err := Findings(res, o)
	wg.Wait()
	if err != nil {
		return nil, err
	}
	rep := Build(res, findings, o.Build)
	if o.RenewBaseline != nil {
		nb := NewBaseline(rep, o.Build.Baseline)
		if err := o.RenewBaseline(nb, rep); err != nil {
			return rep, err
		}
		rep.rejudge(nb)
	}
	if o.Revisions != nil {
		AddRevisions(rep, o.Revisions, o.Main, o.Build)
	}
	return rep, nil
}
