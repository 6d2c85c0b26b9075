package main

import (
	"context"

	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/protocol"
	"github.com/mcpwatch/mcpwatch/report"
)

// revisionsRun is a --protocol-version all run: the probe of every revision the prober
// speaks, all at once, and which of them the report is about.
type revisionsRun struct {
	runs []report.RevisionRun
	main int
}

// probeTarget runs the probe the flags ask for: one probe, or (--protocol-version all) one per
// revision, returning the result the report is about (the newest revision the server
// accepted) and, for all, every revision (report.Judge judges them all at once).
func probeTarget(ctx context.Context, cfg *checkConfig, opts probe.Options) (*probe.Result, *revisionsRun, error) {
	if !cfg.allRevisions {
		res, err := probe.Run(ctx, cfg.target, opts)
		return res, nil, err
	}
	results, err := probe.RunRevisions(ctx, cfg.target, opts, protocol.Revisions())
	if err != nil {
		return nil, nil, err
	}
	rr := &revisionsRun{runs: make([]report.RevisionRun, len(results)), main: probe.NewestAccepted(results)}
	for i, res := range results {
		rr.runs[i].Result = res
	}
	return results[rr.main], rr, nil
}

// all are every revision's run and which one the report is about, for report.Judge (none
// without all).
func (rr *revisionsRun) all() ([]report.RevisionRun, int) {
	if rr == nil {
		return nil, 0
	}
	return rr.runs, rr.main
}
