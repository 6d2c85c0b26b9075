package monitor

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/mcpwatch/mcpwatch/alert"
	"github.com/mcpwatch/mcpwatch/store"
)

// Alerting is the alert side of one monitor process: the engine that its worker hands every
// run to (WorkerConfig.Alerts), and the dispatcher that sends what the engine queued. Its Run
// is stopped after the worker's, so that the dispatcher keeps sending while the worker's last
// runs are judged.
type Alerting struct {
	Engine *alert.Engine
	disp   *alert.Dispatcher
	log    *slog.Logger
}

// AlertStore is what alerting keeps in the database, the alert state and the outbox;
// *store.Store is one.
type AlertStore interface {
	alert.AlertUpdater
	alert.Outbox
}

var _ AlertStore = (*store.Store)(nil)

// NewAlerting builds the engine and the dispatcher of cfg (validated here if it was not).
// opts.Logger, when set, also becomes the engine's.
func NewAlerting(st AlertStore, cfg *alert.Config, opts alert.DispatcherOptions) (*Alerting, error) {
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
	return &Alerting{Engine: eng, disp: disp, log: logger}, nil
}

// Run sends what the engine queues until ctx ends; end it after the worker's Run. A send under
// way ends within the delivery timeout and is recorded; what is still queued stays
// in the outbox, for another process's dispatcher or this one's next start.
func (a *Alerting) Run(ctx context.Context) {
	if err := a.disp.Run(ctx); err != nil {
		a.log.Error("alert dispatcher stopped", "err", err)
	}
}

// CheckAlertSecrets makes sure that every alert channel of cfg finds its secret (webhook URL,
// token, header value) in the environment: a monitor that started without being able to page
// anyone would be found out at the first outage. Without an alerts section there is nothing
// to check.
func CheckAlertSecrets(cfg *Config, lookupEnv func(string) (string, bool)) error {
	if cfg.Alerts == nil {
		return nil
	}
	if _, err := alert.NewSenders(cfg.Alerts, lookupEnv, &http.Client{}); err != nil {
		return fmt.Errorf("%s: alerts: %w", cfg.Path, err)
	}
	return nil
}
