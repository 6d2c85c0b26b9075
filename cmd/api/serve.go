package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"runtime/debug"
	"time"

	"github.com/mcpwatch/mcpwatch/internal/statussite"
	"github.com/mcpwatch/mcpwatch/migrations"
	"github.com/mcpwatch/mcpwatch/store"
)

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
	site, err := statussite.New(st, statussite.Options{
		AdminToken: cfg.adminToken, Private: cfg.private, DashboardURL: cfg.dashboardURL, Allow: cfg.allow,
		HeaderEnvPrefix: cfg.headerEnvPrefix, NoDashboard: cfg.noWeb, Version: buildVersion(), Logger: log,
	})
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
	return site.Serve(ctx, ln)
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
