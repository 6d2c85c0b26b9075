package apiserver

import (
	"encoding/xml"
	"strings"
	"testing"
)

func readBadgesShowTheStatusWithCachingHeaders(t *testing.T, w *world) {
	for _, tc := range []struct {
		path  string
		texts []string
	}{
		{"/badge/alpha/status.svg", []string{"mcp", "degraded"}},
		{"/badge/alpha/uptime.svg", []string{"uptime 30d", "%"}},
		{"/badge/alpha/uptime.svg?window=24h", []string{"uptime 24h", "%"}},
		// The answer time, a fifth of the runs' durations: some 290 ms, green (the whole
		// probes' 1.4 s would be yellow).
		{"/badge/alpha/latency.svg", []string{"p95 answer time", "#1a7f37"}},
		{"/badge/alpha/latency.svg?quantile=p50", []string{"p50 answer time"}},
		{"/badge/alpha/conformance.svg", []string{"MCP conformance", "failing"}},
		{"/badge/beta/status.svg", []string{"mcp", "paused"}},
		{"/badge/beta/uptime.svg", []string{"no data"}},
	} {
		resp := w.get(t, tc.path)
		if resp.status != 200 || resp.header.Get("Content-Type") != "image/svg+xml; charset=utf-8" {
			t.Errorf("%s: %d %s", tc.path, resp.status, resp.header.Get("Content-Type"))
			continue
		}
		if err := xml.Unmarshal(resp.body, new(struct{})); err != nil {
			t.Errorf("%s: not XML: %v", tc.path, err)
		}
		for _, text := range tc.texts {
			if !strings.Contains(string(resp.body), text) {
				t.Errorf("%s: no %q in %s", tc.path, text, resp.body)
			}
		}
		etag := resp.header.Get("ETag")
		if !strings.HasPrefix(resp.header.Get("Cache-Control"), "public, max-age=") || etag == "" {
			t.Errorf("%s: caching headers %v", tc.path, resp.header)
		}
		again := w.do(t, req{method: "GET", path: tc.path, header: map[string]string{"If-None-Match": etag}})
		if again.status != 304 || len(again.body) != 0 {
			t.Errorf("%s with If-None-Match: %d", tc.path, again.status)
		}
	}
	resp := w.get(t, "/badge/nope/status.svg")
	if resp.status != 404 || !strings.Contains(string(resp.body), "not found") || resp.header.Get("Content-Type") != "image/svg+xml; charset=utf-8" {
		t.Errorf("missing server: %d %s", resp.status, resp.body)
	}
	for _, p := range []string{"/badge/alpha/uptime.svg?window=1y", "/badge/alpha/latency.svg?quantile=p42"} {
		if r := w.get(t, p); r.status != 400 {
			t.Errorf("%s: %d", p, r.status)
		}
	}
}

func TestFormatPercentNeverRoundsUpTo100(t *testing.T) {
	t.Parallel()
	for in, want := range map[float64]string{100: "100%", 99.999: "99.99%", 99.95: "99.95%", 97: "97%", 0: "0%", 12.345: "12.34%"} {
		if got := formatPercent(in); got != want {
			t.Errorf("formatPercent(%v) = %s, want %s", in, got, want)
		}
	}
}
