//go:build !checkonly

package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/mcpwatch/mcpwatch/alert"
	"github.com/mcpwatch/mcpwatch/internal/metrics"
	"github.com/mcpwatch/mcpwatch/internal/pgembed"
	"github.com/mcpwatch/mcpwatch/internal/statussite"
	"github.com/mcpwatch/mcpwatch/monitor"
	"github.com/mcpwatch/mcpwatch/store"
)

// monitorCommands dispatches the monitor's commands: run, migrate, servers.
func (e environment) monitorCommands(ctx context.Context, name string, args []string) int {
	switch name {
	case "run":
		return e.monitorCommand(ctx, args)
	case "migrate":
		return e.migrate(ctx, args)
	}
	return e.servers(ctx, args)
}

// monitorCommand runs `prober run`, reloading the configuration on SIGHUP.
func (e environment) monitorCommand(ctx context.Context, args []string) int {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	return e.runMonitor(ctx, args, hup)
}

// runMonitor is `prober run` with its reload signal given: tests send on it directly.
// Cancelling ctx (SIGTERM, Ctrl-C) shuts down gracefully.
func (e environment) runMonitor(ctx context.Context, args []string, reload <-chan os.Signal) int {
	f, err := parseMonitorArgs(args)
	if errors.Is(err, errHelpShown) {
		writeMonitorHelp(e.stdout)
		return exitOK
	}
	if err != nil {
		return e.commandUsageError("run", err)
	}
	cfg, err := f.load()
	if err == nil {
		err = monitor.CheckAlertSecrets(cfg, e.lookupEnv)
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "prober run: %v\n", err)
		return exitUsage
	}
	// No database given: the service runs one of its own (in --data-dir).
	url, _ := e.databaseURL(f.databaseURL)
	if url != "" && f.dataDir != "" {
		return e.commandUsageError("run", fmt.Errorf("--data-dir is the directory of the database prober runs itself, and a database is given ($%s or $%s): give one", envDatabaseURL, envDatabaseURLFallback))
	}
	if url != "" {
		if _, err := pgxpool.ParseConfig(url); err != nil {
			return e.commandUsageError("run", fmt.Errorf("--database-url: %w", err))
		}
	}
	worker := f.worker
	if worker == "" {
		host, _ := os.Hostname()
		worker = fmt.Sprintf("%s-%d", host, os.Getpid())
	}
	log := slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: f.level}))
	// The pages name the maintenance window in force as the alert engine sees it: the alerts
	// section read at start (a reload changes it only at the next start).
	calendar, err := alert.NewMaintenanceCalendar(cfg.Alerts)
	if err != nil {
		fmt.Fprintf(e.stderr, "prober run: %v\n", err)
		return exitUsage
	}

	if limit := monitor.TuneWorkerGC(f.memoryBudget, e.lookupEnv); limit > 0 {
		log.Debug("garbage collector tuned to the memory budget", "soft_limit_bytes", limit)
	}
	svc, err := monitor.Start(ctx, cfg, monitor.ServiceOptions{
		DatabaseURL: url, DataDir: f.dataDir, Listen: f.listen, Migrate: f.migrate,
		Site: func(st *store.Store, registry *metrics.Registry, log *slog.Logger) (monitor.Site, error) {
			return statussite.New(st, statussite.Options{
				AdminToken: f.adminToken, Private: f.private, DashboardURL: f.dashboardURL, Allow: f.allowPrivate,
				Registry: registry, Version: buildVersion(), Logger: log, Maintenance: calendar.At,
			})
		}, ForceSync: f.forceSync, Worker: worker, MetricsAddr: f.metricsAddr, DashboardURL: f.dashboardURL,
		MemoryBudget: f.memoryBudget, AllowPrivate: f.allowPrivate, LookupEnv: e.lookupEnv, Version: buildVersion(), Logger: log,
	})
	switch {
	case errors.Is(err, monitor.ErrStoppedWaiting):
		fmt.Fprintf(e.stderr, "prober run: %v\n", err)
		return exitInterrupted
	case errors.Is(err, monitor.ErrNoSpoolDir), errors.Is(err, pgembed.ErrNoBinaries), errors.Is(err, pgembed.ErrRootUser),
		errors.Is(err, pgembed.ErrDataDir), errors.Is(err, pgembed.ErrInUse):
		fmt.Fprintf(e.stderr, "prober run: %v\n", err)
		return exitUsage
	case err != nil:
		fmt.Fprintf(e.stderr, "prober run: %v\n", err)
		return exitFailed
	}
	code := e.serve(ctx, svc, f, reload, log)
	if err := svc.Stop(ctx); err != nil {
		code = exitFailed
	}
	return code
}

// serve reloads the configuration on the reload signal until ctx ends (exit 0) or the
// worker stops on its own (exit 1).
func (e environment) serve(ctx context.Context, svc *monitor.Service, f *monitorFlags, reload <-chan os.Signal, log *slog.Logger) int {
	for {
		select {
		case <-reload:
			// A file that does not load leaves the running configuration; a sync that fails
			// is logged by Reload.
			if cfg, err := f.load(); err != nil {
				log.Error("configuration not reloaded; the running one stays", "err", err)
			} else {
				_ = svc.Reload(ctx, cfg)
			}
		case <-svc.Done():
			log.Error("worker stopped on its own", "err", svc.Err())
			return exitFailed
		case <-ctx.Done():
			log.Info("shutting down")
			return exitOK
		}
	}
}
