package monitor

import (
	"context"
	"log/slog"
	"time"

	"github.com/mcpwatch/mcpwatch/alert"
	"github.com/mcpwatch/mcpwatch/store"
)

// Alerting is the alert side of one monitor process: the engine that its worker hands every
// run to (WorkerConfig.Alerts), and the dispatcher that sends what the engine queued. The
// dispatcher runs on a context of its own, stopped by Stop after the worker, so that it keeps
// sending while the worker's last runs are judged.
type Alerting struct {
	Engine *alert.Engine
	disp   *alert.Dispatcher
	cancel context.CancelFunc
	done   chan struct{}
}

// StartAlerting builds the engine and the dispatcher of cfg (validated here if it was not)
// and starts the dispatcher. opts.Logger, when set, also becomes the engine's.
func StartAlerting(st *store.Store, cfg *alert.Config, opts alert.DispatcherOptions) (*Alerting, error) {
	disp, err := alert.NewDispatcher(st, cfg, opts)
	if err != nil {
		return nil, err
	}
	eng, err := alert.NewEngine(st, cfg, alert.EngineOptions{Logger: opts.Logger, OnNotify: disp.Wake})
	if err != nil {
		return nil, err
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(context.Background())
	a := &Alerting{Engine: eng, disp: disp, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(a.done)
		if err := disp.Run(ctx); err != nil {
			logger.Error("alert dispatcher stopped", "err", err)
		}
	}()
	return a, nil
}

// Stop stops the dispatcher; call it once the worker has stopped. A send under way ends
// within the delivery timeout and is recorded; what is still queued stays in the outbox, for
// another process's dispatcher or this one's next start. It waits at most within, and
// reports whether the dispatcher stopped in time.
func (a *Alerting) Stop(within time.Duration) bool {
	a.cancel()
	timer := time.NewTimer(within)
	defer timer.Stop()
	select {
	case <-a.done:
		return true
	case <-timer.C:
		return false
	}
}
