package apiserver

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
)

// seriesOf counts the series of the metric family name in a /metrics answer (histograms count
// their _bucket, _sum and _count lines).
func seriesOf(exposition []byte, name string) int {
	n := 0
	sc := bufio.NewScanner(bytes.NewReader(exposition))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, name+"{") || strings.HasPrefix(line, name+" ") {
			n++
		}
	}
	return n
}

// randomMethod is an HTTP method token (RFC 9110 section 9.1: a method is a token) that no
// route serves, as anyone may send.
func randomMethod(rng *rand.Rand) string {
	const letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	b := make([]byte, 4+rng.IntN(12))
	for i := range b {
		b[i] = letters[rng.IntN(len(letters))]
	}
	return string(b)
}

// sendRandomMethods sends n requests with random methods to paths of every kind (a route, a
// path of the API no route serves, the dashboard's root) straight to the server's handler.
func sendRandomMethods(s *API, rng *rand.Rand, n int) {
	paths := []string{"/api/v1/servers", "/api/v1/servers/alpha", "/api/v1/nothing", "/badge/alpha/status.svg", "/", "/metrics"}
	for i := range n {
		r := httptest.NewRequest("GET", paths[i%len(paths)], nil)
		r.Method = randomMethod(rng)
		s.ServeHTTP(httptest.NewRecorder(), r)
	}
}

// heapInUse is the live heap after a collection.
func heapInUse() int64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapInuse)
}

func scrape(t testing.TB, s *API) []byte {
	t.Helper()
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("/metrics answered %d", rec.Code)
	}
	return rec.Body.Bytes()
}

// Label values that come from a request are mapped onto a fixed set: a client sending
// thousands of made-up methods adds one series ("other"), not one per method, so that nobody
// can grow the server's memory and its /metrics answer without bound.
func TestRandomMethodsDoNotGrowMetricSeries(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	rng := rand.New(rand.NewPCG(17, 2))
	// The first scrape counts itself: its series are in the second.
	scrape(t, w.api)
	sendRandomMethods(w.api, rng, 100)
	before := scrape(t, w.api)
	sendRandomMethods(w.api, rng, 2000)
	after := scrape(t, w.api)
	for _, name := range []string{"mcpwatch_api_requests_total", "mcpwatch_api_request_duration_seconds_bucket"} {
		if b, a := seriesOf(before, name), seriesOf(after, name); a != b {
			t.Errorf("%s: %d series after 100 random methods, %d after 2,100", name, b, a)
		}
	}
	if !bytes.Contains(after, []byte(`method="other"`)) {
		t.Errorf("no method=\"other\" series:\n%.3000s", after)
	}
	// Known methods keep their own value.
	for _, m := range []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"} {
		r := httptest.NewRequest(m, "/api/v1/servers", nil)
		w.api.ServeHTTP(httptest.NewRecorder(), r)
		if !bytes.Contains(scrape(t, w.api), []byte(fmt.Sprintf(`method="%s"`, m))) {
			t.Errorf("no series of method %s", m)
		}
	}
}

func TestMethodLabel(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"GET": "GET", "POST": "POST", "DELETE": "DELETE", "PATCH": "PATCH", "HEAD": "HEAD", "OPTIONS": "OPTIONS",
		"PUT": "PUT", "CONNECT": "CONNECT", "TRACE": "TRACE",
		"get": "other", "PROPFIND": "other", "X7Q2": "other", "": "other",
	} {
		if got := methodLabel(in); got != want {
			t.Errorf("methodLabel(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[int]string{200: "200", 404: "404", 599: "599", 99: "other", 600: "other", 0: "other"} {
		if got := codeLabel(in); got != want {
			t.Errorf("codeLabel(%d) = %q, want %q", in, got, want)
		}
	}
}

// BenchmarkRandomMethodsMetrics measures what random methods cost the metrics: series of
// mcpwatch_api_requests_total and bytes of /metrics after b.N requests (go test -bench
// RandomMethodsMetrics -benchtime 20000x).
func BenchmarkRandomMethodsMetrics(b *testing.B) {
	w := newWorld(b)
	rng := rand.New(rand.NewPCG(17, 2))
	scrape(b, w.api)
	before := scrape(b, w.api)
	heapBefore := heapInUse()
	b.ResetTimer()
	sendRandomMethods(w.api, rng, b.N)
	b.StopTimer()
	after := scrape(b, w.api)
	b.ReportMetric(float64(heapInUse()-heapBefore)/(1<<20), "heap-growth-MiB")
	b.ReportMetric(float64(seriesOf(before, "mcpwatch_api_requests_total")), "series-before")
	b.ReportMetric(float64(seriesOf(after, "mcpwatch_api_requests_total")), "series-after")
	b.ReportMetric(float64(len(before)), "metrics-bytes-before")
	b.ReportMetric(float64(len(after)), "metrics-bytes-after")
}
