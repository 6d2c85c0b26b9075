package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"time"

	"github.com/mcpwatch/mcpwatch/checks"
	"github.com/mcpwatch/mcpwatch/internal/redact"
	"github.com/mcpwatch/mcpwatch/protocol"
	"github.com/mcpwatch/mcpwatch/report"
)

// check runs `prober check`: parse, probe, judge, report, and turn the verdict into the
// exit code.
func (e environment) check(ctx context.Context, args []string) int {
	cfg, err := parseCheckArgs(args)
	if errors.Is(err, flag.ErrHelp) {
		writeCheckHelp(e.stdout)
		return exitOK
	}
	if err == nil {
		err = cfg.bearer.apply(cfg, e.lookupEnv)
	}
	if err == nil {
		err = cfg.applyCalls(e.lookupEnv)
	}
	if err != nil {
		return e.usageError(err)
	}
	catalog, err := checks.Default()
	if err != nil {
		fmt.Fprintf(e.stderr, "prober check: %v\n", err)
		return exitFailed
	}
	selected, err := catalog.Select(cfg.include, cfg.exclude)
	if err != nil {
		return e.usageError(fmt.Errorf("--checks/--skip: %w", err))
	}
	ci, err := loadCIInputs(cfg.ci, catalog)
	if err != nil {
		return e.usageError(err)
	}
	red := redact.New(cfg.secrets...)
	revisionCount := 0
	if cfg.allRevisions {
		revisionCount = len(protocol.Revisions())
	}
	prog := newProgress(progressModeFor(cfg.progress, isTerminal(e.stderr)), e.stderr, red, terminalWidth(e.stderr), revisionCount, time.Now)
	logger := newLogger(prog, cfg.level, red)
	sink, err := openSink(cfg.output, e.stdout)
	if err != nil {
		return e.usageError(err)
	}
	defer sink.abort()

	version := buildVersion()
	opts := cfg.options
	opts.Logger = logger
	opts.ClientVersion = version
	logger.Info("probing", "target", cfg.target.String(), "transport", cfg.target.Kind(), "checks", len(selected.Checks()))
	stopProgress := make(chan struct{})
	progressDone := make(chan struct{})
	go func() {
		defer close(progressDone)
		prog.run(ctx, stopProgress)
	}()
	res, revisions, err := probeTarget(ctx, cfg, prog.options(opts))
	close(stopProgress)
	<-progressDone
	prog.stop()
	if err != nil {
		fmt.Fprintf(e.stderr, "prober check: %s\n", red.String(err.Error()))
		return exitFailed
	}
	diag := diagnose(res, opts.InitTimeout)
	if diag.hint != "" {
		res.Err += "; " + diag.hint
	}
	interrupted := ctx.Err() != nil
	if interrupted && res.Interrupted == 0 {
		// The interrupt came as the probe ended: nothing it judged was cut short.
		res.Err = "interrupted before the report was written"
	}
	jo := ci.judgeOptions(cfg.ci)
	jo.Checks = selected
	jo.Revisions, jo.Main = revisions.all()
	jo.Build.FailOn, jo.Build.Verbose, jo.Build.Catalog = cfg.failOn, cfg.verbose, catalog
	jo.Build.Generator = report.Generator{Name: "mcpwatch prober", Version: version}
	jo.Build.Redactor, jo.Build.SecretHeaders = red, cfg.headerNames
	rep, err := report.Judge(res, jo)
	if err != nil {
		fmt.Fprintf(e.stderr, "prober check: %s\n", red.String(err.Error()))
		return exitFailed
	}
	wo := report.WriteOptions{Color: useColor(cfg.noColor, e.lookupEnv, sink.w, sink.toFile), Verbose: cfg.verbose,
		SARIFArtifact: cfg.ci.sarifArtifact, Width: e.reportWidth(sink)}
	err = cfg.format.Write(sink.w, rep, wo)
	if err == nil {
		err = sink.commit()
	}
	if err == nil {
		err = cfg.ci.writeOutputs(rep, wo)
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "prober check: %s\n", red.String(err.Error()))
		return exitFailed
	}
	// Said on stderr too, whatever the report's format and destination: the first thing a
	// user needs when the server could not be talked to at all.
	diag.write(e, red.String)
	starterFailed := false
	switch {
	case cfg.writeCalls.path == "":
	case interrupted:
		fmt.Fprintln(e.stderr, "prober check: --write-calls: interrupted, no file written")
	default:
		msg, err := cfg.writeCalls.writeStarter(res, e.stdout, red.String)
		if err != nil {
			msg, starterFailed = err.Error(), true
		}
		fmt.Fprintf(e.stderr, "prober check: %s\n", red.String(msg))
	}
	logger.Info("probe finished", "verdict", rep.Verdict, "failing", rep.Summary.Failing, "durationMs", rep.DurationMs)
	switch {
	case interrupted:
		return exitInterrupted
	case rep.Failed(), starterFailed:
		return exitFailed
	}
	return exitOK
}
