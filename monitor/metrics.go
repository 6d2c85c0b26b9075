package monitor

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/mcpwatch/mcpwatch/internal/metrics"
	"github.com/mcpwatch/mcpwatch/store"
)

// Metrics are the monitor's Prometheus metrics. Labels are bounded sets (regions, outcomes,
// the probe's step names), never server names: a monitor of 10,000 servers must not make
// 10,000 series per metric. A nil *Metrics records nothing.
type Metrics struct {
	probes         *metrics.CounterVec
	probeDuration  *metrics.HistogramVec
	stepLatency    *metrics.HistogramVec
	lag            *metrics.Histogram
	claimed        *metrics.Counter
	claimErrors    *metrics.Counter
	claimConflicts *metrics.Counter
	inFlight       *metrics.Gauge
	bufferRuns     *metrics.GaugeVec
	spoolBytes     *metrics.Gauge
	dropped        *metrics.Counter
	spoolCorrupt   *metrics.Counter
	spoolForeign   *metrics.Gauge
	written        *metrics.Counter
	alreadyStored  *metrics.Counter
	writeErrors    *metrics.Counter
	writeDuration  *metrics.Histogram
	judgements     *metrics.CounterVec
	configSyncs    *metrics.CounterVec
	configStale    *metrics.Gauge
}

// NewMetrics creates the metrics and registers them with reg.
func NewMetrics(reg *metrics.Registry) (*Metrics, error) {
	m := &Metrics{
		probes: metrics.NewCounterVec(metrics.Opts{
			Name: "mcpwatch_probes_total", Help: "Probes finished, by region and outcome (up, degraded, down).",
		}, []string{"region", "outcome"}),
		probeDuration: metrics.NewHistogramVec(metrics.HistogramOpts{
			Name: "mcpwatch_probe_duration_seconds", Help: "Duration of whole probes, by region and outcome.",
			Buckets: metrics.ExponentialBucketsRange(0.005, 600, 16),
		}, []string{"region", "outcome"}),
		stepLatency: metrics.NewHistogramVec(metrics.HistogramOpts{
			Name: "mcpwatch_probe_step_latency_seconds", Help: "Latency of probe steps (last byte sent to first byte of the answer), by step and outcome.",
			Buckets: metrics.ExponentialBucketsRange(0.0005, 60, 16),
		}, []string{"step", "outcome"}),
		lag: metrics.NewHistogram(metrics.HistogramOpts{
			Name: "mcpwatch_scheduling_lag_seconds", Help: "Time from a server's due time to the start of its probe.",
			Buckets: []float64{0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300, 3600},
		}),
		claimed: metrics.NewCounter(metrics.Opts{
			Name: "mcpwatch_claimed_total", Help: "Schedule slots this worker claimed.",
		}),
		claimErrors: metrics.NewCounter(metrics.Opts{
			Name: "mcpwatch_claim_errors_total", Help: "Claims that failed (the database did not answer).",
		}),
		claimConflicts: metrics.NewCounter(metrics.Opts{
			Name: "mcpwatch_claim_conflicts_total", Help: "Leases found taken over by another worker (or gone) when completing or releasing them.",
		}),
		inFlight: metrics.NewGauge(metrics.Opts{
			Name: "mcpwatch_probes_in_flight", Help: "Probes running now.",
		}),
		bufferRuns: metrics.NewGaugeVec(metrics.Opts{
			Name: "mcpwatch_buffer_runs", Help: "Runs waiting to be written to the database, in memory or in the spool file.",
		}, []string{"where"}),
		spoolBytes: metrics.NewGauge(metrics.Opts{
			Name: "mcpwatch_buffer_spool_bytes", Help: "Size of the runs in the spool file.",
		}),
		dropped: metrics.NewCounter(metrics.Opts{
			Name: "mcpwatch_buffer_dropped_runs_total", Help: "Runs dropped: the spool was full or unwritable, or the store refused them as invalid.",
		}),
		spoolCorrupt: metrics.NewCounter(metrics.Opts{
			Name: "mcpwatch_spool_corrupt_records_total", Help: "Damaged records found in spool files and skipped (the records after them are kept).",
		}),
		spoolForeign: metrics.NewGauge(metrics.Opts{
			Name: "mcpwatch_spool_foreign_files", Help: "Spool files of other databases (or not saying which) found in the spool directory and left alone.",
		}),
		written: metrics.NewCounter(metrics.Opts{
			Name: "mcpwatch_runs_written_total", Help: "Runs written to the database.",
		}),
		alreadyStored: metrics.NewCounter(metrics.Opts{
			Name: "mcpwatch_runs_already_stored_total", Help: "Runs the database had stored already, from a retried write or another probe of the same slot (not stored twice).",
		}),
		writeErrors: metrics.NewCounter(metrics.Opts{
			Name: "mcpwatch_store_write_errors_total", Help: "Batch writes to the database that failed.",
		}),
		writeDuration: metrics.NewHistogram(metrics.HistogramOpts{
			Name: "mcpwatch_store_write_duration_seconds", Help: "Duration of batch writes to the database.",
			Buckets: metrics.ExponentialBucketsRange(0.001, 30, 12),
		}),
		judgements: metrics.NewCounterVec(metrics.Opts{
			Name: "mcpwatch_alert_judgements_total",
			Help: "Runs handed to the alert engine, by result: ok, failed (an error or the timeout), invalid (the engine cannot read the run), skipped (the lease was ending), dropped (too many waited while the database was away).",
		}, []string{"result"}),
		configSyncs: metrics.NewCounterVec(metrics.Opts{
			Name: "mcpwatch_config_syncs_total",
			Help: "Syncs of the configuration file's servers into the database, by result: synced, forced (older than the one synced last, applied by --force-sync), refused (older than the one synced last), failed (the database did not take it).",
		}, []string{"result"}),
		configStale: metrics.NewGauge(metrics.Opts{
			Name: "mcpwatch_config_stale", Help: "1 while the configuration file this worker loaded last was refused as older than the one synced last, else 0.",
		}),
	}
	for _, c := range []metrics.Collector{m.probes, m.probeDuration, m.stepLatency, m.lag, m.claimed,
		m.claimErrors, m.claimConflicts, m.inFlight, m.bufferRuns, m.spoolBytes, m.dropped, m.spoolCorrupt, m.spoolForeign, m.written,
		m.alreadyStored, m.writeErrors, m.writeDuration, m.judgements, m.configSyncs, m.configStale} {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("monitor: %w", err)
		}
	}
	// Every result from the start, at 0: a refusal at start is then an increase to alert on.
	for _, r := range []string{syncSynced, syncForced, syncRefused, syncFailed} {
		m.configSyncs.WithLabelValues(r)
	}
	return m, nil
}

func (m *Metrics) probeStarted(lag time.Duration) {
	if m == nil {
		return
	}
	m.lag.Observe(max(lag, 0).Seconds())
	m.inFlight.Inc()
}

func (m *Metrics) probeEnded() {
	if m == nil {
		return
	}
	m.inFlight.Dec()
}

func (m *Metrics) probeFinished(rec *store.RunRecord) {
	if m == nil {
		return
	}
	m.probes.WithLabelValues(rec.Region, rec.Outcome).Inc()
	m.probeDuration.WithLabelValues(rec.Region, rec.Outcome).Observe(rec.Duration.Seconds())
	for _, st := range rec.Steps {
		m.stepLatency.WithLabelValues(st.Name, st.Outcome).Observe(st.Latency.Seconds())
	}
}

func (m *Metrics) claims(n int) {
	if m == nil {
		return
	}
	m.claimed.Add(float64(n))
}

func (m *Metrics) claimFailed() {
	if m == nil {
		return
	}
	m.claimErrors.Inc()
}

func (m *Metrics) leaseLost() {
	if m == nil {
		return
	}
	m.claimConflicts.Inc()
}

func (m *Metrics) bufferDepth(s BufferStats) {
	if m == nil {
		return
	}
	m.bufferRuns.WithLabelValues("memory").Set(float64(s.Memory))
	m.bufferRuns.WithLabelValues("spool").Set(float64(s.Spooled))
	m.spoolBytes.Set(float64(s.SpoolBytes))
	m.spoolForeign.Set(float64(s.Foreign))
}

func (m *Metrics) spoolCorruptRecord() {
	if m == nil {
		return
	}
	m.spoolCorrupt.Inc()
}

func (m *Metrics) runDropped() {
	if m == nil {
		return
	}
	m.dropped.Inc()
}

func (m *Metrics) runsWritten(fresh, already int, took time.Duration) {
	if m == nil {
		return
	}
	m.written.Add(float64(fresh))
	m.alreadyStored.Add(float64(already))
	m.writeDuration.Observe(took.Seconds())
}

func (m *Metrics) writeFailed() {
	if m == nil {
		return
	}
	m.writeErrors.Inc()
}

// Health is what /healthz reports.
type Health struct {
	// OK is false when the worker's loop has stopped turning (or the worker is stopping).
	OK bool `json:"ok"`
	// Database is "ok" or "unreachable" as the last claim found it.
	Database string    `json:"database"`
	LastLoop time.Time `json:"lastLoop"`
	InFlight int       `json:"inFlight"`
	Buffered int       `json:"buffered"`
	Spooled  int       `json:"spooled"`
	Dropped  int64     `json:"dropped"`
}

// Handler serves /metrics from reg and /healthz from health: 200 while the worker works (a
// database that is away does not make it unhealthy: it buffers), 503 otherwise.
func Handler(reg *metrics.Registry, health func() Health) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", reg)
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		h := health()
		w.Header().Set("Content-Type", "application/json")
		if !h.OK {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
		_ = json.NewEncoder(w).Encode(h)
	})
	return mux
}

// Results of a judgement by the alert engine.
const (
	judgedOK      = "ok"
	judgedFailed  = "failed"
	judgedInvalid = "invalid"
	judgedSkipped = "skipped"
	judgedDropped = "dropped"
)

func (m *Metrics) judged(result string) {
	if m == nil {
		return
	}
	m.judgements.WithLabelValues(result).Inc()
}

// Results of a configuration sync, the values of mcpwatch_config_syncs_total's label.
const (
	syncSynced  = "synced"
	syncForced  = "forced"
	syncRefused = "refused"
	syncFailed  = "failed"
)

func (m *Metrics) configSynced(result string) {
	if m == nil {
		return
	}
	m.configSyncs.WithLabelValues(result).Inc()
	switch result {
	case syncRefused:
		m.configStale.Set(1)
	case syncSynced, syncForced:
		m.configStale.Set(0)
	}
}
