package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/mcpwatch/mcpwatch/alert"
	"github.com/mcpwatch/mcpwatch/monitor"
	"github.com/mcpwatch/mcpwatch/store"
)

// runAlertsStopTimeout bounds, at shutdown, the wait for a send under way (one attempt is
// bounded by the channel's delivery timeout, 10s by default).
const runAlertsStopTimeout = 15 * time.Second

// checkAlertSecrets makes sure, before anything else starts, that every alert channel finds
// its secret (webhook URL, token, header value) in the environment: a monitor that started
// without being able to page anyone would be found out at the first outage.
func (e environment) checkAlertSecrets(cfg *monitor.Config) error {
	if cfg.Alerts == nil {
		return nil
	}
	if _, err := alert.NewSenders(cfg.Alerts, e.lookupEnv, &http.Client{}); err != nil {
		return fmt.Errorf("%s: alerts: %w", cfg.Path, err)
	}
	return nil
}

// startAlerts starts judging runs and sending alerts when the file has an alerts section;
// it returns nil without one.
func (e environment) startAlerts(st *store.Store, cfg *monitor.Config, f *runFlags, worker string, log *slog.Logger) (*monitor.Alerting, error) {
	if cfg.Alerts == nil {
		if f.dashboardURL != "" {
			log.Warn("--dashboard-url is only used by alerts, and the configuration has no alerts section")
		}
		return nil, nil
	}
	a, err := monitor.StartAlerting(st, cfg.Alerts, alert.DispatcherOptions{
		Worker: worker, Logger: log.With("component", "alerts"), DashboardURL: f.dashboardURL, LookupEnv: e.lookupEnv,
	})
	if err != nil {
		return nil, fmt.Errorf("%s: alerts: %w", cfg.Path, err)
	}
	dashboard := f.dashboardURL
	if dashboard == "" {
		dashboard = cfg.Alerts.DashboardURL
	}
	channels := make([]string, 0, len(cfg.Alerts.Channels))
	for _, ch := range cfg.Alerts.Channels {
		channels = append(channels, ch.Name)
	}
	if len(channels) == 0 {
		log.Warn("the alerts section has no channels: alerts are kept in the history, none is sent")
	}
	if dashboard == "" {
		log.Warn("alert messages will not link to the dashboard: give --dashboard-url or alerts.dashboard-url")
	}
	log.Info("alerts on", "channels", channels, "dashboard", dashboard)
	return a, nil
}

// stopAlerts stops the dispatcher, after the worker: its last runs have been judged by then.
func stopAlerts(a *monitor.Alerting, log *slog.Logger) {
	if a != nil && !a.Stop(runAlertsStopTimeout) {
		log.Warn("the alert dispatcher did not stop in time; what it had not sent stays queued for the next start")
	}
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
