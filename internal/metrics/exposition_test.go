package metrics

import (
	"compress/gzip"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"testing"
)

// scrape is the body of a GET of r's handler without compression.
func scrape(t *testing.T, r *Registry) string {
	t.Helper()
	rec := httptest.NewRecorder()
	r.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("status %d", rec.Code)
	}
	return rec.Body.String()
}

func mustRegister(t *testing.T, r *Registry, cs ...Collector) {
	t.Helper()
	for _, c := range cs {
		if err := r.Register(c); err != nil {
			t.Fatal(err)
		}
	}
}

func TestExpositionWritesEachMetricTypeExactly(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		build func(t *testing.T, r *Registry)
		want  string
	}{
		{
			name: "counter",
			build: func(t *testing.T, r *Registry) {
				c := NewCounter(Opts{Name: "jobs_total", Help: "Jobs done."})
				mustRegister(t, r, c)
				c.Inc()
				c.Add(2.5)
			},
			want: "# HELP jobs_total Jobs done.\n# TYPE jobs_total counter\njobs_total 3.5\n",
		},
		{
			name: "counter vector with label names sorted and series sorted by their labels",
			build: func(t *testing.T, r *Registry) {
				c := NewCounterVec(Opts{Name: "b_total", Help: "B."}, []string{"zeta", "alpha"})
				mustRegister(t, r, c)
				c.WithLabelValues("z", "a").Add(3)
				c.WithLabelValues("a", "b").Add(1e6)
				c.WithLabelValues("a", "a").Add(1.5)
			},
			want: "# HELP b_total B.\n# TYPE b_total counter\n" +
				"b_total{alpha=\"a\",zeta=\"a\"} 1.5\n" +
				"b_total{alpha=\"a\",zeta=\"z\"} 3\n" +
				"b_total{alpha=\"b\",zeta=\"a\"} 1e+06\n",
		},
		{
			name: "gauge",
			build: func(t *testing.T, r *Registry) {
				g := NewGauge(Opts{Name: "in_flight", Help: "Running now."})
				mustRegister(t, r, g)
				g.Set(5)
				g.Inc()
				g.Dec()
				g.Dec()
				g.Add(-0.5)
			},
			want: "# HELP in_flight Running now.\n# TYPE in_flight gauge\nin_flight 3.5\n",
		},
		{
			name: "gauges of infinities and NaN, and one without help",
			build: func(t *testing.T, r *Registry) {
				lo, hi, nan := NewGauge(Opts{Name: "lo", Help: "x"}), NewGauge(Opts{Name: "hi", Help: "x"}), NewGauge(Opts{Name: "nan"})
				mustRegister(t, r, lo, hi, nan)
				lo.Set(math.Inf(-1))
				hi.Set(math.Inf(1))
				nan.Set(math.NaN())
			},
			want: "# HELP hi x\n# TYPE hi gauge\nhi +Inf\n" +
				"# HELP lo x\n# TYPE lo gauge\nlo -Inf\n" +
				"# HELP nan \n# TYPE nan gauge\nnan NaN\n",
		},
		{
			name: "gauge vector",
			build: func(t *testing.T, r *Registry) {
				g := NewGaugeVec(Opts{Name: "buffer_runs", Help: "Runs waiting."}, []string{"where"})
				mustRegister(t, r, g)
				g.WithLabelValues("spool").Set(2)
				g.WithLabelValues("memory").Set(7)
			},
			want: "# HELP buffer_runs Runs waiting.\n# TYPE buffer_runs gauge\n" +
				"buffer_runs{where=\"memory\"} 7\nbuffer_runs{where=\"spool\"} 2\n",
		},
		{
			name: "gauge function read at the scrape",
			build: func(t *testing.T, r *Registry) {
				n := 0.0
				mustRegister(t, r, NewGaugeFunc(Opts{Name: "conns", Help: "Connections."}, func() float64 { n++; return n }))
			},
			want: "# HELP conns Connections.\n# TYPE conns gauge\nconns 1\n",
		},
		{
			name: "histogram",
			build: func(t *testing.T, r *Registry) {
				h := NewHistogram(HistogramOpts{Name: "h_seconds", Help: "H.", Buckets: []float64{0.5, 1, 2.5}})
				mustRegister(t, r, h)
				h.Observe(0.5)
				h.Observe(3)
				h.Observe(1.25)
			},
			want: "# HELP h_seconds H.\n# TYPE h_seconds histogram\n" +
				"h_seconds_bucket{le=\"0.5\"} 1\n" +
				"h_seconds_bucket{le=\"1\"} 1\n" +
				"h_seconds_bucket{le=\"2.5\"} 2\n" +
				"h_seconds_bucket{le=\"+Inf\"} 3\n" +
				"h_seconds_sum 4.75\n" +
				"h_seconds_count 3\n",
		},
		{
			name: "histogram vector with le last",
			build: func(t *testing.T, r *Registry) {
				h := NewHistogramVec(HistogramOpts{Name: "hv", Help: "HV.", Buckets: []float64{1, math.Inf(1)}}, []string{"route", "code"})
				mustRegister(t, r, h)
				h.WithLabelValues("/b", "200").Observe(0.25)
				h.WithLabelValues("/a", "500").Observe(2)
			},
			want: "# HELP hv HV.\n# TYPE hv histogram\n" +
				"hv_bucket{code=\"200\",route=\"/b\",le=\"1\"} 1\n" +
				"hv_bucket{code=\"200\",route=\"/b\",le=\"+Inf\"} 1\n" +
				"hv_sum{code=\"200\",route=\"/b\"} 0.25\n" +
				"hv_count{code=\"200\",route=\"/b\"} 1\n" +
				"hv_bucket{code=\"500\",route=\"/a\",le=\"1\"} 0\n" +
				"hv_bucket{code=\"500\",route=\"/a\",le=\"+Inf\"} 1\n" +
				"hv_sum{code=\"500\",route=\"/a\"} 2\n" +
				"hv_count{code=\"500\",route=\"/a\"} 1\n",
		},
		{
			name: "vectors not used yet are left out",
			build: func(t *testing.T, r *Registry) {
				mustRegister(t, r,
					NewCounterVec(Opts{Name: "c_total", Help: "C."}, []string{"a"}),
					NewGaugeVec(Opts{Name: "g", Help: "G."}, []string{"a"}),
					NewHistogramVec(HistogramOpts{Name: "h", Help: "H.", Buckets: []float64{1}}, []string{"a"}),
					NewCounter(Opts{Name: "zero_total", Help: "Z."}))
			},
			want: "# HELP zero_total Z.\n# TYPE zero_total counter\nzero_total 0\n",
		},
		{
			name: "label values escape backslash, double quote and newline",
			build: func(t *testing.T, r *Registry) {
				c := NewCounterVec(Opts{Name: "e_total", Help: "E."}, []string{"v"})
				mustRegister(t, r, c)
				c.WithLabelValues("a\\b\"c\nd'e").Inc()
			},
			want: "# HELP e_total E.\n# TYPE e_total counter\ne_total{v=\"a\\\\b\\\"c\\nd'e\"} 1\n",
		},
		{
			name: "help escapes backslash and newline but not double quote",
			build: func(t *testing.T, r *Registry) {
				mustRegister(t, r, NewCounter(Opts{Name: "h_total", Help: "Back\\slash\nnewline \"q\"."}))
			},
			want: "# HELP h_total Back\\\\slash\\nnewline \"q\".\n# TYPE h_total counter\nh_total 0\n",
		},
		{
			name: "families sorted by name whatever the registration order",
			build: func(t *testing.T, r *Registry) {
				mustRegister(t, r, NewGauge(Opts{Name: "b", Help: "B."}), NewGauge(Opts{Name: "a", Help: "A."}), NewGauge(Opts{Name: "a_b", Help: "AB."}))
			},
			want: "# HELP a A.\n# TYPE a gauge\na 0\n# HELP a_b AB.\n# TYPE a_b gauge\na_b 0\n# HELP b B.\n# TYPE b gauge\nb 0\n",
		},
		{
			name:  "an empty registry serves an empty body",
			build: func(*testing.T, *Registry) {},
			want:  "",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := NewRegistry()
			tt.build(t, r)
			if got := scrape(t, r); got != tt.want {
				t.Errorf("exposition:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}

func TestAppendFloatWritesWhatPrometheusReads(t *testing.T) {
	t.Parallel()
	tests := []struct {
		v    float64
		want string
	}{
		{0, "0"},
		{3, "3"},
		{-2, "-2"},
		{0.25, "0.25"},
		{1e6, "1e+06"},
		{123456, "123456"},
		{1e-7, "1e-07"},
		{0.010903905711602171, "0.010903905711602171"},
		{math.Inf(1), "+Inf"},
		{math.Inf(-1), "-Inf"},
		{math.NaN(), "NaN"},
	}
	for _, tt := range tests {
		if got := string(appendFloat(nil, tt.v)); got != tt.want {
			t.Errorf("appendFloat(%v) = %q, want %q", tt.v, got, tt.want)
		}
	}
}

func TestHandlerAnswersTheTextFormatGzippedOnlyWhenAccepted(t *testing.T) {
	t.Parallel()
	r := NewRegistry()
	mustRegister(t, r, NewCounter(Opts{Name: "x_total", Help: "X."}))
	const want = "# HELP x_total X.\n# TYPE x_total counter\nx_total 0\n"
	tests := []struct {
		acceptEncoding string
		gzipped        bool
	}{
		{"", false},
		{"gzip", true},
		{"deflate, GZIP;q=0.5", true},
		{"gzip;q=0", false},
		{"br, identity", false},
	}
	for _, tt := range tests {
		t.Run(tt.acceptEncoding, func(t *testing.T) {
			t.Parallel()
			req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
			req.Header.Set("Accept-Encoding", tt.acceptEncoding)
			rec := httptest.NewRecorder()
			r.ServeHTTP(rec, req)
			if ct := rec.Header().Get("Content-Type"); ct != "text/plain; version=0.0.4; charset=utf-8" {
				t.Errorf("Content-Type %q", ct)
			}
			body := io.Reader(rec.Body)
			if gzipped := rec.Header().Get("Content-Encoding") == "gzip"; gzipped != tt.gzipped {
				t.Fatalf("gzipped %v, want %v", gzipped, tt.gzipped)
			}
			if tt.gzipped {
				gz, err := gzip.NewReader(body)
				if err != nil {
					t.Fatal(err)
				}
				body = gz
			}
			got, err := io.ReadAll(body)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != want {
				t.Errorf("body %q, want %q", got, want)
			}
		})
	}
}
