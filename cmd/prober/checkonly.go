//go:build checkonly

package main

import (
	"context"
	"fmt"
)

// A prober built with -tags checkonly (as the GitHub Action builds it) leaves out the
// monitor's commands and, with them, Postgres, Slack, cron and websocket code that `check`
// never runs: a smaller binary that builds in about half the time. The commands still
// answer, with how to get them.

func (e environment) monitorCommands(_ context.Context, name string, _ []string) int {
	return e.leftOut(name)
}

func (e environment) alerts(_ context.Context, _ []string) int {
	return e.leftOut("alerts")
}

func (e environment) leftOut(name string) int {
	fmt.Fprintf(e.stderr, "prober: this prober was built for check alone (-tags checkonly), without %q\n"+
		"Build the whole prober for it: CGO_ENABLED=0 go build -trimpath ./cmd/prober\n", name)
	return exitUsage
}
