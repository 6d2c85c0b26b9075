// Package monitor turns one-shot probes into a monitor: `prober run` reads a configuration
// file of servers (config.go), shares their schedule slots with any number of other workers
// through Postgres (worker.go, on store's Claim/Complete leases), probes each slot once at
// its due time spread by a per-server offset (schedule.go), judges the probe with the checks
// and turns it into a run (prober.go, result.go), and writes runs in batches that survive the
// database going away (buffer.go, spool.go). Prometheus metrics and /healthz are in
// metrics.go.
//
// A monitor process is a Service (service.go): Start connects, migrates, syncs the file's
// servers and starts the parts, Reload applies a new file, Stop stops the parts in order.
// Each part (Worker, Buffer, Alerting and its alert.Dispatcher) has a Run(ctx) that the
// service drives; the command only parses flags and turns signals into Reload and Stop.
//
// Postgres is the only coordinator: there is no protocol between workers. A slot (server,
// region) is leased to one worker at a time; a worker completes the lease only once the run
// is durable (in the database or synced to the spool), so a run whose slot was completed is
// never lost with the process, and a killed worker's slots go to another worker when the
// leases expire.
package monitor
