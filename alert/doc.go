// Package alert turns probe runs into alerts: a state machine per (server, kind, key) whose
// state lives in Postgres, and delivery to Slack and generic webhooks through an outbox.
//
// Kinds (docs/alerts.md has the details and every configuration key):
//   - down: no successful initialize for failure-threshold runs in a row, in at least quorum
//     regions; resolved after success-threshold good runs;
//   - conformance (one alert per check): a check that passed in the previous run fails now;
//     resolved when it passes again;
//   - drift: the tool surface changed (tools added, removed, re-described, re-typed);
//   - latency (one alert per step, judged per region): the p95 over a window (or, with few
//     runs, N of the last M runs) above a bound or above a ratio of the region's own
//     baseline before the window;
//   - certificate: the TLS certificate expires within N days.
//
// Flap damping holds open an alert that resolved too often; maintenance windows and muting
// routes keep alerts out of channels, never out of the state or the history.
//
// Wiring, in a monitor process:
//
//	disp, err := alert.NewDispatcher(st, cfg.Alerts, alert.DispatcherOptions{Logger: log, DashboardURL: flagURL})
//	eng, err := alert.NewEngine(st, cfg.Alerts, alert.EngineOptions{Logger: log, OnNotify: disp.Wake})
//	go disp.Run(ctx)
//	// for every finished run, once it is written to the store, in the order of its region:
//	err = eng.Observe(ctx, monitor.ObservationOf(server, &record, result, findings))
//
// The package knows runs as the store keeps them, not the probe or the checks: FromRecord
// builds an observation from a stored run, and monitor.ObservationOf adds what only the probe
// result holds (the tool surface, the TLS certificate, each check's rule).
//
// monitor.NewAlerting does the first two for `prober run`, monitor.Service runs the
// dispatcher, and its worker does the last.
//
// Observe writes the transitions and their notifications in one transaction; the dispatcher
// sends them afterwards, so a slow or failing channel never slows probing, and a notification
// that could not be sent is retried, never lost, and never marked sent.
package alert
