package apiserver

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/mcpwatch/mcpwatch/internal/metrics"
)

// httpMetrics are the API's own metrics.
type httpMetrics struct {
	requests *metrics.CounterVec
	duration *metrics.HistogramVec
}

func newHTTPMetrics(reg *metrics.Registry, st Database, processWide bool) (*httpMetrics, error) {
	m := &httpMetrics{
		requests: metrics.NewCounterVec(metrics.Opts{
			Name: "mcpwatch_api_requests_total",
			Help: "HTTP requests answered, by route pattern, method and status code.",
		}, []string{"route", "method", "code"}),
		duration: metrics.NewHistogramVec(metrics.HistogramOpts{
			Name:    "mcpwatch_api_request_duration_seconds",
			Help:    "Time to answer an HTTP request, by route pattern.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"route"}),
	}
	pool := st.Pool()
	collectors := []metrics.Collector{
		m.requests, m.duration,
		metrics.NewGaugeFunc(metrics.Opts{Name: "mcpwatch_api_db_connections_in_use",
			Help: "Database connections the API holds in use."},
			func() float64 { return float64(pool.Stat().AcquiredConns()) }),
		metrics.NewGaugeFunc(metrics.Opts{Name: "mcpwatch_api_db_connections_idle",
			Help: "Idle database connections of the API's pool."},
			func() float64 { return float64(pool.Stat().IdleConns()) }),
	}
	if processWide {
		collectors = append(collectors, metrics.NewRuntimeCollector(), metrics.NewProcessCollector())
	}
	for _, c := range collectors {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("apiserver: %w", err)
		}
	}
	return m, nil
}

// recordingWriter remembers the status and size of an answer.
type recordingWriter struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (w *recordingWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *recordingWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += int64(n)
	return n, err
}

// Unwrap lets http.ResponseController reach the connection (flush, deadlines).
func (w *recordingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// accessLog logs one line per request and counts it in the metrics. Every label value is of a
// fixed set whatever the request holds: the route pattern, not the path; the method, or
// "other" for one no route knows; the status code. Query strings and headers are not logged:
// a token could be in them.
func (s *API) accessLog(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rw := &recordingWriter{ResponseWriter: w}
		next.ServeHTTP(rw, r)
		took := time.Since(start)
		if rw.status == 0 {
			rw.status = http.StatusOK
		}
		route := r.Pattern
		if route == "" {
			route = "unmatched"
		}
		s.metrics.requests.WithLabelValues(route, methodLabel(r.Method), codeLabel(rw.status)).Inc()
		s.metrics.duration.WithLabelValues(route).Observe(took.Seconds())
		level := slog.LevelInfo
		if rw.status >= 500 {
			level = slog.LevelError
		}
		s.log.LogAttrs(r.Context(), level, "request",
			slog.String("method", r.Method), slog.String("path", r.URL.Path), slog.String("route", route),
			slog.Int("status", rw.status), slog.Int64("bytes", rw.bytes),
			slog.Duration("took", took), slog.String("client", clientKey(r)))
	})
}

// healthz says the process serves.
func (s *API) healthz(w http.ResponseWriter, r *http.Request) error {
	s.writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	return nil
}

// readyz says the database answers.
func (s *API) readyz(w http.ResponseWriter, r *http.Request) error {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	if err := s.cfg.Store.Ping(ctx); err != nil {
		s.log.WarnContext(r.Context(), "not ready", slog.Any("err", err))
		return errorf(http.StatusServiceUnavailable, codeUnavailable, "the database does not answer")
	}
	s.writeJSON(w, http.StatusOK, map[string]string{"status": "ready"})
	return nil
}

// methodLabel is the method as a metric label: one of the methods of RFC 9110 section 9 (and
// PATCH), or "other". The method is whatever the client sent, and every distinct label value
// is a series kept for the life of the process.
func methodLabel(method string) string {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodConnect, http.MethodOptions, http.MethodTrace:
		return method
	}
	return "other"
}

// codeLabel is the status code as a metric label: the code when it is a valid one (100..599),
// "other" otherwise.
func codeLabel(status int) string {
	if status < 100 || status > 599 {
		return "other"
	}
	return strconv.Itoa(status)
}
