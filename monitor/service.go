package monitor

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/mcpwatch/mcpwatch/alert"
	"github.com/mcpwatch/mcpwatch/internal/metrics"
	"github.com/mcpwatch/mcpwatch/internal/netguard"
	"github.com/mcpwatch/mcpwatch/internal/pgembed"
	"github.com/mcpwatch/mcpwatch/migrations"
	"github.com/mcpwatch/mcpwatch/store"
)

// Bounds of a service's start and stop beyond the configuration's shutdownGrace.
const (
	// connectTimeout bounds one attempt to open the database.
	connectTimeout = 15 * time.Second
	// completeTimeout bounds, at stop, making finished runs durable and completing their
	// leases.
	completeTimeout = 15 * time.Second
	// flushTimeout bounds, at stop, writing what the buffer holds; the rest stays spooled.
	flushTimeout = 30 * time.Second
	// alertsStopTimeout bounds, at stop, the wait for a send under way (one attempt is
	// bounded by the channel's delivery timeout, 10s by default).
	alertsStopTimeout = 15 * time.Second
	// metricsStopTimeout bounds, at stop, the wait for the scrapes under way.
	metricsStopTimeout = 5 * time.Second
	// maintainEvery is how often partitions are created and retention applied.
	maintainEvery = time.Hour
)

var (
	// ErrStoppedWaiting is Start's error when its context ended while it waited for the
	// database.
	ErrStoppedWaiting = errors.New("stopped before the database answered")
	// ErrNoSpoolDir is Start's error when neither the configuration nor the user's cache
	// directory gives a spool directory.
	ErrNoSpoolDir = errors.New("no spool directory: give --spool-dir or spool.dir")
)

// ServiceOptions is what a monitor process is started with besides its configuration file.
type ServiceOptions struct {
	// DatabaseURL is the Postgres database. Start waits for it, with backoff, while it does
	// not answer: a monitor started before its database waits, it does not exit. Empty, the
	// service runs a database of its own (package pgembed) in DataDir.
	DatabaseURL string
	// DataDir is the embedded database's directory when DatabaseURL is empty (default
	// pgembed.DefaultDataDir).
	DataDir string
	// Listen, when not empty, is the address the status site (status page, JSON API,
	// badges, /healthz, /readyz and /metrics, as the api command serves them) is served on
	// from this process; Site builds it.
	Listen string
	// Site builds the status site on the service's store and metrics registry (the command
	// passes statussite.New: the dashboard is not this package's to import).
	Site SiteFactory
	// Migrate applies the schema migrations at start.
	Migrate bool
	// Worker names this process in leases, runs and its spool file; required.
	Worker string
	// MetricsAddr, when not empty, is where Prometheus /metrics and /healthz are served.
	MetricsAddr string
	// DashboardURL, when not empty, is the dashboard alert messages link to, instead of the
	// alerts section's dashboard-url.
	DashboardURL string
	// MemoryBudget is what all probes together may read and hold (ProberConfig.MemoryBudget).
	MemoryBudget int64
	// AllowPrivate are the internal ranges that servers registered through the API may reach.
	AllowPrivate []netip.Prefix
	// LookupEnv reads the environment the servers and alert channels take secrets from.
	LookupEnv func(string) (string, bool)
	// Version is the prober's version, sent in the probes' client info.
	Version string
	// ForceSync syncs the file's servers at start even when the file is older than the one
	// synced last (--force-sync); reloads are judged as usual.
	ForceSync bool
	// Logger receives the service's logs; nil discards them.
	Logger *slog.Logger
}

// Site serves the status site on a listener until ctx ends (statussite.Site).
type Site interface {
	Serve(ctx context.Context, ln net.Listener) error
}

// SiteFactory builds the status site on the service's store, with the registry /metrics
// serves (the monitor's metrics in it) and the service's logger.
type SiteFactory func(st *store.Store, registry *metrics.Registry, log *slog.Logger) (Site, error)

// Service is a running monitor: its configuration synced into the database, a worker probing
// the servers on their schedules, a buffer between the worker and the database, the alert
// engine and dispatcher when the configuration has an alerts section, the hourly
// maintenance, and the metrics endpoint. Start starts it, Reload applies a new configuration,
// Stop stops it in order. Each part has a Run(ctx) that the service drives.
type Service struct {
	st       *store.Store
	db       *pgembed.Cluster // nil with an external database
	worker   *Worker
	buffer   *Buffer
	alerting *Alerting // nil without an alerts section
	metrics  *http.Server
	m        *Metrics
	log      *slog.Logger
	env      func(string) (string, bool)
	name     string // the worker's, in the generations it syncs

	// mu serializes Reload and the maintenance, which read cfg.
	mu  sync.Mutex
	cfg *Config

	stopWorker, stopAlerting, stopMaintain, stopSite context.CancelFunc
	workerDone, alertingDone, maintainDone, siteDone chan struct{}
	// siteAddr is where the status site listens ("" when it is not served).
	siteAddr   string
	bufferDone chan struct{}
	workerErr  error // set before workerDone is closed
	stopOnce   sync.Once
	stopErr    error
}

// Start connects to the database (waiting for it), migrates it when asked, applies the
// retention, syncs cfg's servers (unless its file is older than the one synced last: then it
// logs the refusal and goes on with the servers the database has), registers the region, opens the buffer and starts the
// alerting, the worker, the maintenance, the metrics endpoint and the status site. Without a
// DatabaseURL it first starts a database of its own in DataDir, which Stop stops last. ctx
// bounds the start only: the service runs until Stop.
//
// An error wraps ErrStoppedWaiting when ctx ended before the database answered, and
// ErrNoSpoolDir when no spool directory was found.
func Start(ctx context.Context, cfg *Config, opts ServiceOptions) (*Service, error) {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if opts.Worker == "" {
		return nil, errors.New("monitor: service needs a worker name")
	}
	// Every line of the service names the worker and its region, once.
	log = log.With("worker", opts.Worker, "region", cfg.Region)
	for _, name := range cfg.MissingEnv(opts.LookupEnv) {
		log.Warn("environment variable not set: probes of the servers whose headers or env read it will be down, and the tool calls whose arguments read it untested", "variable", name)
	}
	var db *pgembed.Cluster
	if opts.DatabaseURL == "" {
		var err error
		if db, err = startEmbedded(ctx, opts.DataDir, log); err != nil {
			return nil, err
		}
		opts.DatabaseURL = db.URL()
	}
	stopDB := func() {
		if db != nil {
			_ = db.Stop()
		}
	}
	st, err := connect(ctx, opts.DatabaseURL, log)
	if err != nil {
		stopDB()
		return nil, err
	}
	s, err := start(ctx, st, cfg, opts, log)
	if err != nil {
		st.Close()
		stopDB()
		return nil, err
	}
	if db != nil {
		s.db = db
		go s.watchEmbedded()
	}
	return s, nil
}

// startEmbedded starts the service's own database in dir (default pgembed.DefaultDataDir).
func startEmbedded(ctx context.Context, dir string, log *slog.Logger) (*pgembed.Cluster, error) {
	if dir == "" {
		var err error
		if dir, err = pgembed.DefaultDataDir(runtime.GOOS, os.Geteuid(), os.Getenv); err != nil {
			return nil, err
		}
	}
	db, err := pgembed.Start(ctx, pgembed.Options{DataDir: dir, Logger: log.With("component", "database")})
	if err != nil {
		return nil, fmt.Errorf("embedded database: %w", err)
	}
	return db, nil
}

// watchEmbedded says when the service's own database stops before the service does: the
// runs then wait in the buffer and the spool, as for an external database gone away, until
// the next start.
func (s *Service) watchEmbedded() {
	select {
	case <-s.db.Exited():
		s.log.Error("the embedded database stopped on its own; results wait in the spool until the next start", "dataDir", s.db.Dir())
	case <-s.workerDone:
	}
}

// start is Start once the database answers; on an error it has stopped what it started, and
// the caller closes st.
func start(ctx context.Context, st *store.Store, cfg *Config, opts ServiceOptions, log *slog.Logger) (*Service, error) {
	if opts.Migrate {
		report, err := migrations.Apply(ctx, st.Pool())
		if err != nil {
			return nil, err
		}
		log.Info("database schema up to date", "version", report.Version, "applied", len(report.Applied))
	}
	registry := metrics.NewRegistry()
	for _, c := range []metrics.Collector{metrics.NewRuntimeCollector(), metrics.NewProcessCollector()} {
		if err := registry.Register(c); err != nil {
			return nil, fmt.Errorf("metrics: %w", err)
		}
	}
	workerMetrics, err := NewMetrics(registry)
	if err != nil {
		return nil, fmt.Errorf("metrics: %w", err)
	}
	maintain(ctx, st, cfg, log)
	for _, note := range cfg.SkipMissingCommands(exec.LookPath) {
		log.Warn(note)
	}
	// A file older than the one synced last is refused (logged and counted): the worker
	// probes the servers the database has, which the newer file put there.
	if err := syncConfig(ctx, st, cfg, syncOptions{worker: opts.Worker, force: opts.ForceSync}, workerMetrics, log); err != nil &&
		!errors.Is(err, store.ErrStaleGeneration) {
		return nil, err
	}
	if err := st.RegisterRegion(ctx, cfg.Region); err != nil {
		return nil, err
	}
	spoolDir := cfg.Spool.Dir
	if spoolDir == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			return nil, fmt.Errorf("%w (%w)", ErrNoSpoolDir, err)
		}
		spoolDir = filepath.Join(cache, "mcpwatch", "spool")
	}
	database, err := st.Identity(ctx)
	if err != nil {
		return nil, err
	}
	buffer, err := OpenBuffer(st, BufferConfig{
		Dir: spoolDir, Name: opts.Worker, Database: database, MaxSpoolBytes: cfg.Spool.MaxBytes, Logger: log, Metrics: workerMetrics,
	})
	if err != nil {
		return nil, err
	}
	s := &Service{st: st, buffer: buffer, m: workerMetrics, log: log, cfg: cfg, env: opts.LookupEnv, name: opts.Worker}
	// From here on a failure stops what was started, as Stop does.
	s.bufferDone = make(chan struct{})
	bufferCtx := context.WithoutCancel(ctx) // Close ends its Run
	go func() {
		defer close(s.bufferDone)
		buffer.Run(bufferCtx)
	}()
	if err := s.startAlerting(ctx, cfg, opts); err != nil {
		s.shutdown(ctx)
		return nil, err
	}
	jitter := cfg.MaxJitter
	if jitter == 0 {
		jitter = -1 // the file turned it off
	}
	prober, err := NewProber(ProberConfig{
		LookupEnv: opts.LookupEnv, Version: opts.Version, Transcripts: cfg.Transcripts, RuleProbes: cfg.RuleProbes, Logger: log,
		Concurrency: cfg.Concurrency, MemoryBudget: opts.MemoryBudget,
		// No TCP keep-alive on the probes' sockets: they live seconds, and turning it on cost
		// four setsockopt calls per socket.
		GuardedDial: netguard.New(netguard.Config{Allow: opts.AllowPrivate, Dialer: &net.Dialer{Timeout: 10 * time.Second, KeepAlive: -1}}).DialContext,
	})
	if err != nil {
		s.shutdown(ctx)
		return nil, err
	}
	wcfg := WorkerConfig{
		Region: cfg.Region, Name: opts.Worker, Concurrency: cfg.Concurrency, MaxTimeout: cfg.MaxTimeout(),
		LeaseMargin: cfg.LeaseMargin, ShutdownGrace: cfg.ShutdownGrace, CompleteTimeout: completeTimeout,
		MaxJitter: jitter, Logger: log, Metrics: workerMetrics,
	}
	if s.alerting != nil {
		wcfg.Alerts = s.alerting.Engine // not a nil *Engine in the interface: that would be called
	}
	if s.worker, err = NewWorker(st, prober, buffer, wcfg); err != nil {
		s.shutdown(ctx)
		return nil, err
	}
	if opts.MetricsAddr != "" {
		if err := s.serveMetrics(opts.MetricsAddr, registry); err != nil {
			s.shutdown(ctx)
			return nil, err
		}
	}
	if opts.Listen != "" {
		if err := s.serveSite(ctx, opts, registry); err != nil {
			s.shutdown(ctx)
			return nil, err
		}
	}

	workerCtx, stopWorker := context.WithCancel(context.WithoutCancel(ctx))
	s.stopWorker, s.workerDone = stopWorker, make(chan struct{})
	go func() {
		defer close(s.workerDone)
		s.workerErr = s.worker.Run(workerCtx)
	}()
	maintainCtx, stopMaintain := context.WithCancel(context.WithoutCancel(ctx))
	s.stopMaintain, s.maintainDone = stopMaintain, make(chan struct{})
	go func() {
		defer close(s.maintainDone)
		s.maintainHourly(maintainCtx)
	}()
	log.Info("monitoring", "config", cfg.Path, "servers", len(cfg.Servers), "concurrency", cfg.Concurrency)
	return s, nil
}

// startAlerting starts judging runs and sending alerts when cfg has an alerts section.
func (s *Service) startAlerting(ctx context.Context, cfg *Config, opts ServiceOptions) error {
	if cfg.Alerts == nil {
		if opts.DashboardURL != "" {
			s.log.Warn("--dashboard-url is only used by alerts, and the configuration has no alerts section")
		}
		return nil
	}
	a, err := NewAlerting(s.st, cfg.Alerts, alert.DispatcherOptions{
		Worker: opts.Worker, Logger: s.log.With("component", "alerts"), DashboardURL: opts.DashboardURL, LookupEnv: opts.LookupEnv,
	})
	if err != nil {
		return fmt.Errorf("%s: alerts: %w", cfg.Path, err)
	}
	alertingCtx, stop := context.WithCancel(context.WithoutCancel(ctx))
	s.alerting, s.stopAlerting, s.alertingDone = a, stop, make(chan struct{})
	go func() {
		defer close(s.alertingDone)
		a.Run(alertingCtx)
	}()
	dashboard := opts.DashboardURL
	if dashboard == "" {
		dashboard = cfg.Alerts.DashboardURL
	}
	channels := make([]string, 0, len(cfg.Alerts.Channels))
	for _, ch := range cfg.Alerts.Channels {
		channels = append(channels, ch.Name)
	}
	if len(channels) == 0 {
		s.log.Warn("the alerts section has no channels: alerts are kept in the history, none is sent")
	}
	if dashboard == "" {
		s.log.Warn("alert messages will not link to the dashboard: give --dashboard-url or alerts.dashboard-url")
	}
	s.log.Info("alerts on", "channels", channels, "dashboard", dashboard)
	return nil
}

// serveMetrics serves /metrics and /healthz on addr.
func (s *Service) serveMetrics(addr string, registry *metrics.Registry) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("--metrics-addr: %w", err)
	}
	s.metrics = &http.Server{
		Handler:           Handler(registry, s.worker.Health),
		ReadHeaderTimeout: 10 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       time.Minute,
	}
	go func() {
		if err := s.metrics.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.log.Error("metrics server stopped", "err", err)
		}
	}()
	s.log.Info("serving /metrics and /healthz", "addr", ln.Addr().String())
	return nil
}

// serveSite serves the status site on opts.Listen from the service's store and registry.
func (s *Service) serveSite(ctx context.Context, opts ServiceOptions, registry *metrics.Registry) error {
	if opts.Site == nil {
		return errors.New("monitor: --listen needs a site to serve")
	}
	site, err := opts.Site(s.st, registry, s.log.With("component", "site"))
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", opts.Listen)
	if err != nil {
		return fmt.Errorf("--listen: %w", err)
	}
	s.siteAddr = ln.Addr().String()
	siteCtx, stop := context.WithCancel(context.WithoutCancel(ctx))
	s.stopSite, s.siteDone = stop, make(chan struct{})
	go func() {
		defer close(s.siteDone)
		if err := site.Serve(siteCtx, ln); err != nil {
			s.log.Error("status site stopped", "err", err)
		}
	}()
	return nil
}

// SiteAddr is the address the status site listens on, "" when it is not served.
func (s *Service) SiteAddr() string { return s.siteAddr }

// DataDir is the directory of the service's own database, "" with an external one.
func (s *Service) DataDir() string {
	if s.db == nil {
		return ""
	}
	return s.db.Dir()
}

// maintainHourly maintains the database every hour until ctx ends.
func (s *Service) maintainHourly(ctx context.Context) {
	ticker := time.NewTicker(maintainEvery)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
			s.mu.Lock()
			maintain(ctx, s.st, s.cfg, s.log)
			s.mu.Unlock()
		}
	}
}

// Done is closed when the worker stopped: after Stop, or on its own (Err says why).
func (s *Service) Done() <-chan struct{} { return s.workerDone }

// Err is what the worker stopped with, once Done is closed.
func (s *Service) Err() error {
	select {
	case <-s.workerDone:
		return s.workerErr
	default:
		return nil
	}
}

// Reload applies cfg: its servers are synced and their defaults and the retention take
// effect; the settings the running parts were built with (see Config.SameSettings) stay until
// the next start, which a warning says. When the sync fails, or is refused because cfg's
// file is older than the one synced last (the error wraps store.ErrStaleGeneration; a reload
// is never forced), the running configuration stays and the error is logged and returned.
func (s *Service) Reload(ctx context.Context, cfg *Config) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	old := s.cfg
	if !cfg.SameSettings(old) {
		s.log.Warn("settings other than servers, defaults and retention changed: they take effect at the next start")
	}
	for _, name := range cfg.MissingEnv(s.env) {
		s.log.Warn("environment variable not set: probes of the servers whose headers or env read it will be down, and the tool calls whose arguments read it untested", "variable", name)
	}
	for _, note := range cfg.SkipMissingCommands(exec.LookPath) {
		s.log.Warn(note)
	}
	if err := syncConfig(ctx, s.st, cfg, syncOptions{worker: s.name}, s.m, s.log); err != nil {
		if !errors.Is(err, store.ErrStaleGeneration) { // syncConfig said why
			s.log.Error("configuration not synced; the database keeps the servers it had", "err", err)
		}
		return err
	}
	cfg.keepRunning(old)
	s.cfg = cfg
	s.worker.SetMaxTimeout(cfg.MaxTimeout())
	s.worker.Wake()
	return nil
}

// Stop shuts the service down in order: the status site closed, no more claims, in-flight probes finish (within the
// shutdownGrace), their runs made durable and leases completed, the alerts of the last runs
// handed to the dispatcher, the buffer flushed (what it cannot write stays in the spool for
// the next start), the metrics endpoint closed, the database let go and the service's own
// database, if it runs one, stopped. Each step is
// bounded; ctx only carries values. Stop returns the buffer's error, when it lost runs or
// could not keep its spool; calling it again returns the same.
func (s *Service) Stop(ctx context.Context) error {
	s.stopOnce.Do(func() {
		s.stopErr = s.shutdown(ctx)
		s.st.Close()
		if s.db != nil {
			// Last: everything before it may still write.
			if err := s.db.Stop(); err != nil {
				s.log.Error("embedded database", "err", err)
			}
		}
		s.log.Info("stopped")
	})
	return s.stopErr
}

// shutdown stops what was started, in order, all but the database.
func (s *Service) shutdown(ctx context.Context) error {
	bg := context.WithoutCancel(ctx)
	if s.stopSite != nil {
		s.stopSite()
		<-s.siteDone // Site.Serve bounds its shutdown
	}
	if s.stopMaintain != nil {
		s.stopMaintain()
		<-s.maintainDone
	}
	if s.stopWorker != nil {
		s.stopWorker()
		<-s.workerDone // Worker.Run bounds its stop
	}
	if s.alerting != nil {
		s.stopAlerting()
		timer := time.NewTimer(alertsStopTimeout)
		select {
		case <-s.alertingDone:
		case <-timer.C:
			s.log.Warn("the alert dispatcher did not stop in time; what it had not sent stays queued for the next start")
		}
		timer.Stop()
	}
	flushCtx, cancel := context.WithTimeout(bg, flushTimeout)
	defer cancel()
	err := s.buffer.Close(flushCtx)
	if err != nil {
		s.log.Error("buffer", "err", err)
	}
	<-s.bufferDone
	if s.metrics != nil {
		shutCtx, cancel := context.WithTimeout(bg, metricsStopTimeout)
		defer cancel()
		_ = s.metrics.Shutdown(shutCtx)
	}
	return err
}

// connect opens the database, waiting for it (with backoff) while it does not answer.
func connect(ctx context.Context, url string, log *slog.Logger) (*store.Store, error) {
	backoff := 500 * time.Millisecond
	for {
		st, err := openDatabase(ctx, url)
		if err == nil {
			return st, nil
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%w: %w", ErrStoppedWaiting, err)
		}
		log.Warn("waiting for the database", "err", err, "retryIn", backoff)
		select {
		case <-time.After(backoff):
		case <-ctx.Done():
			return nil, fmt.Errorf("%w: %w", ErrStoppedWaiting, err)
		}
		backoff = min(2*backoff, 15*time.Second)
	}
}

// openDatabase makes one attempt to open the database.
func openDatabase(ctx context.Context, url string) (*store.Store, error) {
	ctx, cancel := context.WithTimeout(ctx, connectTimeout)
	defer cancel()
	return store.Open(ctx, url)
}

// maintain creates the coming days' partitions and applies retention, to the runs, the
// rollups and the alert history; a failure is logged (the write path creates a missing
// partition itself, and the next hour tries again).
func maintain(ctx context.Context, st *store.Store, cfg *Config, log *slog.Logger) {
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

// maintainAlerts deletes the alert history older than the configured retention, keeping open
// incidents and messages still to send; a failure is logged (the next hour tries again).
func maintainAlerts(ctx context.Context, st *store.Store, retention time.Duration, log *slog.Logger) {
	mctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	n, err := st.DeleteAlertHistoryBefore(mctx, time.Now().Add(-retention))
	if err != nil {
		log.Warn("alert history retention failed; retrying in an hour", "err", err)
		return
	}
	if n > 0 {
		log.Info("alert history retention applied", "transitionsDeleted", n)
	}
}
