// Command prober checks MCP servers for conformance to the Model Context Protocol
// specification. `prober check` probes one server once and exits non-zero when it fails,
// which makes it a CI gate.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/mcpwatch/mcpwatch/internal/process"
)

// Exit codes.
const (
	exitOK          = 0
	exitFailed      = 1
	exitUsage       = 2
	exitInterrupted = 130
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		// After the first Ctrl-C the probe winds down (shutting the server down); a second
		// one gets the default behaviour and ends prober at once.
		<-ctx.Done()
		stop()
	}()
	if len(os.Args) > 1 && os.Args[1] == "check" {
		// Here, not in check: the collector's settings are the process's, and tests run
		// check in theirs.
		tuneCheckGC(os.LookupEnv)
	}
	if len(os.Args) > 1 && (os.Args[1] == "check" || os.Args[1] == "run") {
		// The commands that start stdio servers become the subreaper of what those servers
		// leave behind, so that the probe can reap the orphans it kills instead of leaving
		// zombies to a PID 1 that may never reap them. Once, here: it is a property of the
		// whole process, shared by every probe it runs; which orphan belongs to which probe
		// the probe tells by the mark in the orphan's environment, not by its parent. Where
		// it fails (not Linux), killed orphans go to PID 1 as usual.
		_ = process.AdoptOrphans()
	}
	code := dispatch(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// dispatch is prober without the process around it: tests call it directly.
func dispatch(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	env := environment{stdout: stdout, stderr: stderr, lookupEnv: os.LookupEnv}
	if len(args) == 0 {
		writeMainHelp(stderr)
		return exitUsage
	}
	switch args[0] {
	case "check":
		return env.check(ctx, args[1:])
	case "run", "migrate", "servers": // the monitor's commands (run.go, migrate.go, servers.go)
		return env.monitorCommands(ctx, args[0], args[1:])
	case "checks":
		return env.catalogue(args[1:])
	case "alerts":
		return env.alerts(ctx, args[1:])
	case "version", "--version", "-version":
		return runVersion(stdout)
	case "help", "-h", "-help", "--help":
		if len(args) > 1 && args[1] == "check" {
			writeCheckHelp(stdout)
		} else {
			writeMainHelp(stdout)
		}
		return exitOK
	}
	fmt.Fprintf(stderr, "prober: unknown command %q\nRun 'prober --help' for usage.\n", args[0])
	return exitUsage
}

// environment is what prober gets from the process: its output streams and environment.
type environment struct {
	stdout, stderr io.Writer
	lookupEnv      func(string) (string, bool)
}

func (e environment) usageError(err error) int {
	fmt.Fprintf(e.stderr, "prober check: %v\nRun 'prober check --help' for usage.\n", err)
	return exitUsage
}
