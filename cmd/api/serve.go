package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"runtime/debug"
	"time"

	"github.com/mcpwatch/mcpwatch/checks"
	"github.com/mcpwatch/mcpwatch/internal/apiserver"
	"github.com/mcpwatch/mcpwatch/internal/netguard"
	"github.com/mcpwatch/mcpwatch/migrations"
	"github.com/mcpwatch/mcpwatch/store"
	"github.com/mcpwatch/mcpwatch/web"
)

// shutdownGrace is how long requests in flight get to finish after a stop signal.
const shutdownGrace = 10 * time.Second

// listening, when set, is told the address the server listens on (tests listen on port 0).
type listenHook func(addr string)

func serve(ctx context.Context, cfg config, stderr io.Writer) int {
	return serveWith(ctx, cfg, stderr, nil)
}

func serveWith(ctx context.Context, cfg config, stderr io.Writer, listening listenHook) int {
	var h slog.Handler = slog.NewJSONHandler(stderr, nil)
	if cfg.logFormat == "text" {
		h = slog.NewTextHandler(stderr, nil)
	}
	log := slog.New(h)
	if err := serveErr(ctx, cfg, log, listening); err != nil {
		log.Error("api stopped", slog.Any("err", err))
		return exitError
	}
	return exitOK
}

func serveErr(ctx context.Context, cfg config, log *slog.Logger, listening listenHook) error {
	openCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	st, err := store.Open(openCtx, cfg.databaseURL)
	if err != nil {
		return err
	}
	defer st.Close()
	if cfg.migrate {
		rep, err := migrations.Apply(openCtx, st.Pool())
		if err != nil {
			return err
		}
		if len(rep.Applied) > 0 {
			log.Info("migrated the database", slog.Int("version", rep.Version), slog.Int("applied", len(rep.Applied)))
		}
	}
	catalog, err := checks.Default()
	if err != nil {
		return err
	}
	version := buildVersion()
	// One reading of every server's status serves both the JSON API's list and the status
	// page: the database pays for it once per period whichever readers come.
	statuses := store.NewStatusSnapshot(st.ServerStatuses, store.DefaultStatusTTL, store.DefaultStatusStale)
	apiCfg := apiserver.Config{
		Store: st, Guard: netguard.New(netguard.Config{Allow: cfg.allow}), Statuses: statuses,
		AdminToken: cfg.adminToken, Private: cfg.private, DashboardURL: cfg.dashboardURL,
		Catalog: catalog, Logger: log, HeaderEnvPrefix: cfg.headerEnvPrefix, Version: version,
	}
	if !cfg.noWeb {
		dash, err := web.New(web.Deps{Store: st, Logger: log, Checks: catalog, Version: version, Statuses: statuses})
		if err != nil {
			return err
		}
		apiCfg.Web = dash
	}
	api, err := apiserver.New(apiCfg)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", cfg.listen)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	if listening != nil {
		listening(ln.Addr().String())
	}
	hs := &http.Server{
		Handler:           api,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	bg, stopBG := context.WithCancel(ctx)
	defer stopBG()
	go api.RefreshLoop(bg)
	log.Info("serving", slog.String("addr", ln.Addr().String()), slog.Bool("writes", cfg.adminToken != ""),
		slog.Bool("private", cfg.private), slog.String("version", version))
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	select {
	case err := <-served:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	log.Info("shutting down", slog.Duration("grace", shutdownGrace))
	downCtx, cancelDown := context.WithTimeout(context.WithoutCancel(ctx), shutdownGrace)
	defer cancelDown()
	if err := hs.Shutdown(downCtx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve: %w", err)
	}
	return nil
}

// buildVersion is the module version of an installed build, or "dev" with the VCS revision.
func buildVersion() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "dev"
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			return "dev+" + s.Value[:12]
		}
	}
	return "dev"
}
