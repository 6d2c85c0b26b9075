package alert

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/mcpwatch/mcpwatch/store"
)

// Engine judges runs and keeps the alert state in Postgres. It holds no state of its own, so
// any number of engines (one per monitor process) may observe the same servers: the runs of
// one server are judged one at a time under a database lock, and a restarted engine carries
// on exactly where the last one stopped.
type Engine struct {
	store  AlertUpdater
	eval   *evaluator
	logger *slog.Logger
	notify func()
}

// EngineOptions are the optional parts of an Engine.
type EngineOptions struct {
	Logger *slog.Logger
	// OnNotify is called after an observation queued notifications; give it the Wake of a
	// Dispatcher in the same process so that it sends them without waiting for its next poll.
	OnNotify func()
}

// NewEngine makes an engine. cfg is validated (and given its defaults) if it was not.
func NewEngine(st AlertUpdater, cfg *Config, opts EngineOptions) (*Engine, error) {
	if err := cfg.ValidateAndSetDefaults(); err != nil {
		return nil, err
	}
	ev, err := newEvaluator(cfg)
	if err != nil {
		return nil, err
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	return &Engine{store: st, eval: ev, logger: opts.Logger, notify: opts.OnNotify}, nil
}

// Observe judges one finished run: it updates the server's alerts and queues the
// notifications their transitions call for, in one transaction. Runs of one region must come
// in order; a run not after the last one observed from its region is ignored, so a failed
// Observe can simply be retried. An error wrapping ErrInvalidObservation will fail again.
func (e *Engine) Observe(ctx context.Context, obs Observation) error {
	if err := obs.Validate(); err != nil {
		return err
	}
	// The store keeps microseconds; judging with the same precision keeps a run's time
	// equal to itself once written and read back.
	obs.At = obs.At.Truncate(time.Microsecond).UTC()
	changes, err := e.store.UpdateAlerts(ctx, obs.ServerID, func(snap store.AlertSnapshot) (store.AlertChanges, error) {
		return e.eval.decide(&obs, snap)
	})
	if err != nil {
		return fmt.Errorf("alert: observe run of %s from %s: %w", obs.Server, obs.Region, err)
	}
	for _, ev := range changes.Events {
		e.logger.Info("alert "+ev.Event, "server", ev.Server, "kind", ev.Kind, "key", ev.Key,
			"incident", ev.Incident, "notifications", len(ev.Outbox), "muted", ev.Muted, "summary", ev.Summary)
	}
	if changes.Notifications() > 0 && e.notify != nil {
		e.notify()
	}
	return nil
}
