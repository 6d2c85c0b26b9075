// Command dashdemo serves the dashboard over a demo fleet, to look at it while working on it:
// it migrates the database it is given, seeds the fleet of dashseed.DemoPlans (probing real
// fixture servers on loopback for the recent runs) and serves web on a loopback address.
//
//	go run ./internal/testkit/dashseed/cmd/dashdemo --database-url 'postgres://…?search_path=demo' --listen 127.0.0.1:8088
//
// Use a database or schema of its own: the fleet's servers are upserted by name.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"time"

	"github.com/mcpwatch/mcpwatch/checks"
	"github.com/mcpwatch/mcpwatch/internal/testkit/dashseed"
	"github.com/mcpwatch/mcpwatch/migrations"
	"github.com/mcpwatch/mcpwatch/store"
	"github.com/mcpwatch/mcpwatch/web"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stderr))
}

func run(ctx context.Context, args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("dashdemo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dbURL := fs.String("database-url", "", "Postgres URL (required; give it a schema of its own with search_path)")
	listen := fs.String("listen", "127.0.0.1:8088", "loopback address to serve on")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *dbURL == "" {
		fmt.Fprintln(stderr, "dashdemo: --database-url is required")
		return 2
	}
	log := slog.New(slog.NewTextHandler(stderr, nil))
	if err := serve(ctx, *dbURL, *listen, log); err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintf(stderr, "dashdemo: %v\n", err)
		return 1
	}
	return 0
}

func serve(ctx context.Context, dbURL, listen string, log *slog.Logger) error {
	s, err := store.Open(ctx, dbURL)
	if err != nil {
		return err
	}
	defer s.Close()
	if _, err := migrations.Apply(ctx, s.Pool()); err != nil {
		return err
	}
	reg, err := checks.Default()
	if err != nil {
		return err
	}
	now := time.Now().UTC()
	samples, err := dashseed.ProbeSamples(ctx, reg)
	if err != nil {
		return err
	}
	servers, err := dashseed.Seed(ctx, s, now, dashseed.DemoPlans(samples, now))
	if err != nil {
		return err
	}
	if err := dashseed.SeedAlerts(ctx, s, now, servers); err != nil {
		return err
	}
	h, err := web.New(web.Deps{Store: s, Logger: log, Checks: reg, Version: "demo"})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return err
	}
	if addr, ok := ln.Addr().(*net.TCPAddr); !ok || !addr.IP.IsLoopback() {
		ln.Close()
		return fmt.Errorf("%s is not a loopback address", listen)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdown)
	}()
	log.Info("serving the dashboard", "url", "http://"+ln.Addr().String()+"/")
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
