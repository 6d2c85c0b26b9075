// Command api serves the status of the monitored MCP servers: the JSON API under /api/v1/,
// README badges under /badge/, the dashboard at /, and /healthz, /readyz and /metrics. It
// reads the database `prober run` writes; run it next to the monitor.
package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// Exit codes.
const (
	exitOK    = 0
	exitError = 1
	exitUsage = 2
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is the command without the process around it: tests call it directly. It serves until
// ctx ends, then shuts down gracefully.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cfg, code, ok := parseFlags(args, stdout, stderr, os.Getenv)
	if !ok {
		return code
	}
	return serve(ctx, cfg, stderr)
}
