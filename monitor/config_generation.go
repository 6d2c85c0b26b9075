package monitor

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"

	"github.com/mcpwatch/mcpwatch/store"
)

// Generation is the configuration's generation as the store judges it: a hash of its servers
// as they are synced (after the defaults are applied, in name order) and the time the file
// was written. The rest of the file (the region, the concurrency, the alerts, comments) is not
// hashed: workers of several regions, whose files differ there, sync the same servers.
func (c *Config) Generation() (store.Generation, error) {
	servers := c.StoreServers()
	slices.SortFunc(servers, func(a, b store.Server) int { return cmp.Compare(a.Name, b.Name) })
	h := sha256.New()
	if err := json.NewEncoder(h).Encode(servers); err != nil {
		return store.Generation{}, fmt.Errorf("config: hash the servers: %w", err)
	}
	return store.Generation{Hash: hex.EncodeToString(h.Sum(nil)), Time: c.ModTime, Path: c.Path}, nil
}

// syncOptions is how a worker syncs its file: under its name, and forced or not.
type syncOptions struct {
	worker string
	// force syncs a file older than the one synced last (--force-sync).
	force bool
}

// syncConfig makes the database's configuration servers those of cfg, unless cfg's file is
// older than the one synced last (another worker synced a newer file) and opts does not
// force it: then the database keeps its servers, the refusal is logged and counted, and the
// error wraps store.ErrStaleGeneration.
func syncConfig(ctx context.Context, st *store.Store, cfg *Config, opts syncOptions, m *Metrics, log *slog.Logger) error {
	gen, err := cfg.Generation()
	if err != nil {
		m.configSynced(syncFailed)
		return err
	}
	gen.Worker = opts.worker
	report, err := st.SyncGeneration(ctx, store.SourceConfig, cfg.StoreServers(), gen, opts.force)
	var stale *store.StaleGenerationError
	switch {
	case errors.As(err, &stale):
		m.configSynced(syncRefused)
		log.Error("configuration not synced: the file is older than the one synced last, so the servers stay as the database has them; "+
			"bring this file up to date (or edit it) and send SIGHUP, or restart with --force-sync to apply it anyway",
			"config", cfg.Path, "written", stale.Offered.Time, "servers", store.ShortHash(stale.Offered.Hash),
			"synced.config", stale.Synced.Path, "synced.written", stale.Synced.Time, "synced.servers", store.ShortHash(stale.Synced.Hash),
			"synced.worker", stale.Synced.Worker, "synced.at", stale.Synced.SyncedAt)
		return fmt.Errorf("%s: %w", cfg.Path, err)
	case errors.Is(err, store.ErrNameTaken):
		m.configSynced(syncFailed)
		return fmt.Errorf("%s: %w (registered with 'prober servers add'; rename one of them)", cfg.Path, err)
	case err != nil:
		m.configSynced(syncFailed)
		return fmt.Errorf("%s: %w", cfg.Path, err)
	}
	if report.Forced {
		m.configSynced(syncForced)
		log.Warn("configuration synced although older than the one synced last (--force-sync)",
			"config", cfg.Path, "written", gen.Time, "servers", store.ShortHash(gen.Hash), "disabled", report.Disabled,
			"replaced.config", report.Previous.Path, "replaced.written", report.Previous.Time,
			"replaced.servers", store.ShortHash(report.Previous.Hash), "replaced.worker", report.Previous.Worker)
		return nil
	}
	m.configSynced(syncSynced)
	log.Info("configuration synced", "config", cfg.Path, "servers", report.Upserted, "disabled", report.Disabled,
		"written", gen.Time, "generation", store.ShortHash(gen.Hash))
	return nil
}
