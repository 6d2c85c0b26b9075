package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/mcpwatch/mcpwatch/internal/metrics"
	"github.com/mcpwatch/mcpwatch/internal/netguard"
	"github.com/mcpwatch/mcpwatch/migrations"
	"github.com/mcpwatch/mcpwatch/monitor"
	"github.com/mcpwatch/mcpwatch/store"
)

// Bounds of `prober run`'s shutdown beyond the configuration's shutdownGrace: the time to
// make finished runs durable and complete their leases, and to flush the buffer.
const (
	runCompleteTimeout = 15 * time.Second
	runFlushTimeout    = 30 * time.Second
	maintainEvery      = time.Hour
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
	f, err := parseRunArgs(args)
	if errors.Is(err, errHelpShown) {
		writeRunHelp(e.stdout)
		return exitOK
	}
	if err != nil {
		return e.commandUsageError("run", err)
	}
	cfg, err := f.load()
	if err == nil {
		err = e.checkAlertSecrets(cfg)
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "prober run: %v\n", err)
		return exitUsage
	}
	url, err := e.databaseURL(f.databaseURL)
	if err != nil {
		return e.commandUsageError("run", err)
	}
	if _, err := pgxpool.ParseConfig(url); err != nil {
		return e.commandUsageError("run", fmt.Errorf("--database-url: %w", err))
	}
	log := slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: f.level}))
	worker := f.worker
	if worker == "" {
		host, _ := os.Hostname()
		worker = fmt.Sprintf("%s-%d", host, os.Getpid())
	}
	log = log.With("worker", worker, "region", cfg.Region)
	for _, name := range cfg.MissingEnv(e.lookupEnv) {
		log.Warn("environment variable not set: probes of the servers that read it will be down", "variable", name)
	}

	st, err := connect(ctx, url, log)
	if err != nil {
		fmt.Fprintf(e.stderr, "prober run: %v\n", err)
		return exitInterrupted
	}
	defer st.Close()
	if f.migrate {
		report, err := migrations.Apply(ctx, st.Pool())
		if err != nil {
			fmt.Fprintf(e.stderr, "prober run: %v\n", err)
			return exitFailed
		}
		log.Info("database schema up to date", "version", report.Version, "applied", len(report.Applied))
	}
	maintain(ctx, st, cfg, log)
	if err := syncConfig(ctx, st, cfg, log); err != nil {
		fmt.Fprintf(e.stderr, "prober run: %v\n", err)
		return exitFailed
	}
	if err := st.RegisterRegion(ctx, cfg.Region); err != nil {
		fmt.Fprintf(e.stderr, "prober run: %v\n", err)
		return exitFailed
	}

	registry := metrics.NewRegistry()
	for _, c := range []metrics.Collector{metrics.NewRuntimeCollector(), metrics.NewProcessCollector()} {
		if err := registry.Register(c); err != nil {
			fmt.Fprintf(e.stderr, "prober run: metrics: %v\n", err)
			return exitFailed
		}
	}
	workerMetrics, err := monitor.NewMetrics(registry)
	if err != nil {
		fmt.Fprintf(e.stderr, "prober run: metrics: %v\n", err)
		return exitFailed
	}
	spoolDir := cfg.Spool.Dir
	if spoolDir == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			fmt.Fprintf(e.stderr, "prober run: no spool directory: give --spool-dir or spool.dir (%v)\n", err)
			return exitUsage
		}
		spoolDir = filepath.Join(cache, "mcpwatch", "spool")
	}
	database, err := st.Identity(ctx)
	if err != nil {
		fmt.Fprintf(e.stderr, "prober run: %v\n", err)
		return exitFailed
	}
	buffer, err := monitor.OpenBuffer(st, monitor.BufferConfig{
		Dir: spoolDir, Name: worker, Database: database, MaxSpoolBytes: cfg.Spool.MaxBytes, Logger: log, Metrics: workerMetrics,
	})
	if err != nil {
		fmt.Fprintf(e.stderr, "prober run: %v\n", err)
		return exitFailed
	}
	alerting, err := e.startAlerts(st, cfg, f, worker, log)
	if err != nil {
		closeCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), runFlushTimeout)
		defer cancel()
		_ = buffer.Close(closeCtx)
		fmt.Fprintf(e.stderr, "prober run: %v\n", err)
		return exitFailed
	}
	jitter := cfg.MaxJitter
	if jitter == 0 {
		jitter = -1 // the file turned it off
	}
	prober, err := monitor.NewProber(monitor.ProberConfig{
		LookupEnv: e.lookupEnv, Version: buildVersion(), Transcripts: cfg.Transcripts, RuleProbes: cfg.RuleProbes, Logger: log,
		Concurrency: cfg.Concurrency, MemoryBudget: f.memoryBudget,
		GuardedDial: netguard.New(netguard.Config{Allow: f.allowPrivate}).DialContext,
	})
	if err == nil {
		wcfg := monitor.WorkerConfig{
			Region: cfg.Region, Name: worker, Concurrency: cfg.Concurrency, MaxTimeout: cfg.MaxTimeout(),
			LeaseMargin: cfg.LeaseMargin, ShutdownGrace: cfg.ShutdownGrace, CompleteTimeout: runCompleteTimeout,
			MaxJitter: jitter, Logger: log, Metrics: workerMetrics,
		}
		if alerting != nil {
			wcfg.Alerts = alerting.Engine // not a nil *Engine in the interface: that would be called
		}
		var w *monitor.Worker
		w, err = monitor.NewWorker(st, prober, buffer, wcfg)
		if err == nil {
			return e.serve(ctx, serving{st: st, cfg: cfg, flags: f, worker: w, buffer: buffer, alerting: alerting, registry: registry, log: log}, reload)
		}
	}
	stopAlerts(alerting, log)
	closeCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), runFlushTimeout)
	defer cancel()
	_ = buffer.Close(closeCtx)
	fmt.Fprintf(e.stderr, "prober run: %v\n", err)
	return exitFailed
}

// serving is a started monitor.
type serving struct {
	st       *store.Store
	cfg      *monitor.Config
	flags    *runFlags
	worker   *monitor.Worker
	buffer   *monitor.Buffer
	alerting *monitor.Alerting // nil without an alerts section
	registry *metrics.Registry
	log      *slog.Logger
}

// serve runs the worker until ctx ends, reloading on the reload signal and maintaining the
// partitions hourly, then shuts down in order: no more claims, in-flight probes finish (within
// the grace), runs made durable and leases completed, the buffer flushed.
func (e environment) serve(ctx context.Context, s serving, reload <-chan os.Signal) int {
	log := s.log
	var metricsServer *http.Server
	if s.flags.metricsAddr != "" {
		ln, err := net.Listen("tcp", s.flags.metricsAddr)
		if err != nil {
			fmt.Fprintf(e.stderr, "prober run: --metrics-addr: %v\n", err)
			return e.shutdown(ctx, s, nil, nil, nil, exitFailed)
		}
		metricsServer = &http.Server{
			Handler:           monitor.Handler(s.registry, s.worker.Health),
			ReadHeaderTimeout: 10 * time.Second,
			WriteTimeout:      30 * time.Second,
			IdleTimeout:       time.Minute,
		}
		go func() {
			if err := metricsServer.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
				log.Error("metrics server stopped", "err", err)
			}
		}()
		log.Info("serving /metrics and /healthz", "addr", ln.Addr().String())
	}

	// The worker's own context is cancelled only to cut a shutdown that overran its bounds;
	// the signal's context starts the graceful stop.
	workCtx, kill := context.WithCancel(context.WithoutCancel(ctx))
	defer kill()
	stop := make(chan struct{})
	done := make(chan error, 1)
	go func() { done <- s.worker.Run(workCtx, stop) }()
	log.Info("monitoring", "config", s.cfg.Path, "servers", len(s.cfg.Servers), "concurrency", s.cfg.Concurrency)

	ticker := time.NewTicker(maintainEvery)
	defer ticker.Stop()
	for {
		select {
		case <-reload:
			if cfg := e.reload(ctx, s, log); cfg != nil {
				s.cfg = cfg
			}
		case <-ticker.C:
			maintain(ctx, s.st, s.cfg, log)
		case err := <-done:
			log.Error("worker stopped on its own", "err", err)
			return e.shutdown(ctx, s, metricsServer, nil, kill, exitFailed)
		case <-ctx.Done():
			log.Info("shutting down")
			close(stop)
			return e.shutdown(ctx, s, metricsServer, done, kill, exitOK)
		}
	}
}

// shutdown waits for the worker (when done is not nil), stops sending alerts, flushes the
// buffer and stops serving metrics, each within its bound.
func (e environment) shutdown(ctx context.Context, s serving, metricsServer *http.Server, done <-chan error, kill context.CancelFunc, code int) int {
	bg := context.WithoutCancel(ctx)
	if done != nil {
		timer := time.NewTimer(s.cfg.ShutdownGrace + runCompleteTimeout + 5*time.Second)
		select {
		case <-done:
		case <-timer.C:
			s.log.Error("worker did not stop in time; abandoning its probes (their leases expire)")
			kill()
			<-done
		}
		timer.Stop()
	}
	stopAlerts(s.alerting, s.log)
	flushCtx, cancel := context.WithTimeout(bg, runFlushTimeout)
	defer cancel()
	if err := s.buffer.Close(flushCtx); err != nil {
		s.log.Error("buffer", "err", err)
		code = exitFailed
	}
	if metricsServer != nil {
		shutCtx, cancel := context.WithTimeout(bg, 5*time.Second)
		defer cancel()
		_ = metricsServer.Shutdown(shutCtx)
	}
	s.log.Info("stopped")
	return code
}

// reload reads the configuration again and syncs its servers; settings other than the
// servers and their defaults take effect at the next start. It returns nil when the file is
// invalid (the running configuration stays).
func (e environment) reload(ctx context.Context, s serving, log *slog.Logger) *monitor.Config {
	cfg, err := s.flags.load()
	if err != nil {
		log.Error("configuration not reloaded; the running one stays", "err", err)
		return nil
	}
	old := s.cfg
	if cfg.Region != old.Region || cfg.Concurrency != old.Concurrency || cfg.Spool != old.Spool ||
		cfg.ShutdownGrace != old.ShutdownGrace || cfg.LeaseMargin != old.LeaseMargin || cfg.MaxJitter != old.MaxJitter ||
		cfg.Transcripts != old.Transcripts || cfg.RuleProbes != old.RuleProbes || !cfg.Alerts.SameSettings(old.Alerts) {
		log.Warn("settings other than servers, defaults and retention changed: they take effect at the next start")
	}
	for _, name := range cfg.MissingEnv(e.lookupEnv) {
		log.Warn("environment variable not set: probes of the servers that read it will be down", "variable", name)
	}
	if err := syncConfig(ctx, s.st, cfg, log); err != nil {
		log.Error("configuration not synced; the database keeps the servers it had", "err", err)
		return nil
	}
	// What the running parts were built with stays until the next start.
	cfg.Region, cfg.Concurrency, cfg.Spool, cfg.Alerts = old.Region, old.Concurrency, old.Spool, old.Alerts
	s.worker.SetMaxTimeout(cfg.MaxTimeout())
	s.worker.Wake()
	return cfg
}

// connect opens the database, waiting for it (with backoff) while it does not answer: a
// monitor started before its database should wait, not exit.
func connect(ctx context.Context, url string, log *slog.Logger) (*store.Store, error) {
	backoff := 500 * time.Millisecond
	for {
		st, err := openDatabase(ctx, url)
		if err == nil {
			return st, nil
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("stopped before the database answered: %w", err)
		}
		log.Warn("waiting for the database", "err", err, "retryIn", backoff)
		select {
		case <-time.After(backoff):
		case <-ctx.Done():
			return nil, fmt.Errorf("stopped before the database answered: %w", err)
		}
		backoff = min(2*backoff, 15*time.Second)
	}
}

// syncConfig makes the database's configuration servers those of cfg.
func syncConfig(ctx context.Context, st *store.Store, cfg *monitor.Config, log *slog.Logger) error {
	report, err := st.SyncServers(ctx, store.SourceConfig, cfg.StoreServers())
	if errors.Is(err, store.ErrNameTaken) {
		return fmt.Errorf("%s: %w (registered with 'prober servers add'; rename one of them)", cfg.Path, err)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", cfg.Path, err)
	}
	log.Info("configuration synced", "config", cfg.Path, "servers", report.Upserted, "disabled", report.Disabled)
	return nil
}

// maintain creates the coming days' partitions and applies retention, to the runs, the
// rollups and the alert history; a failure is logged (the write path creates a missing
// partition itself, and the next hour tries again).
func maintain(ctx context.Context, st *store.Store, cfg *monitor.Config, log *slog.Logger) {
	mctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	report, err := st.Maintain(mctx, time.Now(), cfg.Retention)
	switch {
	case err != nil:
		log.Warn("maintenance failed; retrying in an hour", "err", err)
	case len(report.Dropped) > 0 || report.RollupsDeleted > 0:
		log.Info("retention applied", "droppedPartitions", report.Dropped, "rollupsDeleted", report.RollupsDeleted)
	}
	// Even without an alerts section: an earlier configuration may have had one.
	maintainAlerts(ctx, st, cfg.AlertRetention, log)
}
