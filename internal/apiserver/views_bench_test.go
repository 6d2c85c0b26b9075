package apiserver

import (
	"fmt"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/store"
)

// BenchmarkServerListJSON makes and encodes the views of 1,000 servers with two regions each
// (as each new reading is): the part of GET /api/v1/servers that does not wait for the database.
func BenchmarkServerListJSON(b *testing.B) {
	now := time.Now().UTC()
	code := int64(-32603)
	sts := make([]store.ServerStatus, 1000)
	for i := range sts {
		run := store.RunRecord{ID: store.NewRunID(now), ServerID: int64(i), Region: "eu", Start: now, Duration: 120 * time.Millisecond,
			Outcome: store.OutcomeDown, ErrorCode: &code, Error: "initialize failed", ProtocolVersion: "2025-06-18"}
		st := store.ServerStatus{Server: store.Server{ID: int64(i), Name: fmt.Sprintf("server-%04d", i), URL: "https://example.com/mcp",
			Transport: "http", Enabled: true, Labels: map[string]string{"team": "a"}}, State: store.StateDegraded, Latest: &run,
			Regions:     []store.RegionStatus{{Region: "eu", State: "down", Latest: run}, {Region: "us", State: "up", Latest: run}},
			Conformance: &store.Conformance{Pass: 20, Fail: 1, Failing: []string{"tools.list"}}}
		for _, w := range store.StatusWindows() {
			ws := store.WindowStats{Window: w, Stats: store.Stats{Runs: 1440, Up: 1400, Down: 40, LatencySum: time.Hour, LatencyMin: time.Millisecond, LatencyMax: time.Second}}
			if w.Name == "24h" {
				ws.Latency = make(store.Histogram, store.HistogramBuckets)
				ws.Latency[5] = 1400
			}
			st.Windows = append(st.Windows, ws)
		}
		sts[i] = st
	}
	s := &API{}
	var size int
	seq := uint64(0)
	for b.Loop() {
		seq++ // a new reading each time, as GET /api/v1/servers encodes one per reading
		body, err := s.list.get(store.Statuses{List: sts, AsOf: now, Seq: seq}, s.encodeListSized)
		if err != nil {
			b.Fatal(err)
		}
		size = len(body)
	}
	b.ReportMetric(float64(size), "bytes")
}
