package apiserver

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"net/url"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/store"
)

// awkwardStrings are strings whose encoding differs between careless encoders.
var awkwardStrings = []string{"", "plain", "<script>&amp;</script>", "quote \" and \\", "\n\t\x00\x1f\x7f",
	"\u2028\u2029", "\xff invalid \xe2\x80", "café ✓ 𝄞", "https://example.com/mcp?q=a&b=<c>"}

// awkwardFloats are numbers encoding/json writes in each of its forms.
var awkwardFloats = []float64{0, math.Copysign(0, -1), 1, 0.5, 123.456, 1e-6, 9.99e-7, 1e-7, 5e-324, 1e20, 1e21, 1.5e300,
	math.MaxFloat64, -2.25, 1.0 / 3}

func randomView(rng *rand.Rand) statusView {
	str := func() string { return awkwardStrings[rng.IntN(len(awkwardStrings))] }
	num := func() float64 { return awkwardFloats[rng.IntN(len(awkwardFloats))] }
	tm := func() time.Time {
		t := time.Unix(rng.Int64N(4e9), 0).UTC()
		switch rng.IntN(3) {
		case 0:
			return t.Add(time.Duration(rng.IntN(1e9)))
		case 1:
			return t.Add(time.Duration(rng.IntN(1000)) * time.Millisecond)
		}
		return t
	}
	maybe := func() bool { return rng.IntN(2) == 0 }
	fp := func() *float64 {
		if maybe() {
			return nil
		}
		v := num()
		return &v
	}
	ip := func() *int {
		if maybe() {
			return nil
		}
		v := rng.IntN(600) - 100
		return &v
	}
	i64p := func() *int64 {
		if maybe() {
			return nil
		}
		v := rng.Int64() - math.MaxInt64/2
		return &v
	}
	strs := func() []string {
		switch rng.IntN(3) {
		case 0:
			return nil
		case 1:
			return []string{}
		}
		return []string{str(), str()}
	}
	var labels map[string]string
	switch rng.IntN(3) {
	case 1:
		labels = map[string]string{}
	case 2:
		labels = map[string]string{str(): str(), "team": str(), "zone": str(), "a<b": str()}
	}
	win := func() windowView {
		return windowView{Uptime: fp(), Runs: rng.Int64N(1e6), Up: rng.Int64N(1e6), Degraded: rng.Int64N(9), Down: -rng.Int64N(3), MeanMs: fp()}
	}
	v := statusView{
		serverView: serverView{ID: rng.Int64(), Name: str(), Source: str(), Transport: str(), URL: str(), Headers: strs(),
			Schedule: str(), TimeoutMs: rng.Int64N(1e5), Labels: labels, Paused: maybe(), CreatedAt: tm(), UpdatedAt: tm()},
		State:   str(),
		Uptime:  windowsView{H24: win(), D7: win(), D30: win(), D90: win()},
		Latency: latencyView{Window: str(), Runs: rng.Int64N(100), P50Ms: fp(), P95Ms: fp(), P99Ms: fp(), MinMs: fp(), MaxMs: fp(), MeanMs: fp()},
		Links:   linksView{Self: str(), Dashboard: str()},
	}
	if maybe() {
		v.LastRun = &runView{ID: str(), ServerID: rng.Int64(), Region: str(), Worker: str(), StartedAt: tm(), DurationMs: num(),
			AnswerMs: fp(), Outcome: str(), ProtocolVersion: str(), ServerName: str(), ServerVersion: str(), ErrorCode: i64p(),
			HTTPStatus: ip(), ExitStatus: ip(), ToolCount: ip(), ToolFingerprint: str(), Error: str()}
	}
	if n := rng.IntN(4); n > 0 {
		v.Regions = []regionView{}
		for range n - 1 {
			v.Regions = append(v.Regions, regionView{Region: str(), State: str(), RunID: str(), At: tm(), DurationMs: num(),
				AnswerMs: fp(), ErrorCode: i64p(), HTTPStatus: ip(), ExitStatus: ip()})
		}
	}
	if maybe() {
		v.LastError = &lastErrorView{RunID: str(), At: tm(), Region: str(), Outcome: str(), ErrorCode: i64p(), HTTPStatus: ip(),
			ExitStatus: ip(), Message: str()}
	}
	if maybe() {
		v.Conformance = &conformanceView{Score: num(), RunID: str(), At: tm(), Pass: rng.IntN(50), Fail: rng.IntN(5), Warn: rng.IntN(5),
			Advice: rng.IntN(3), Untested: rng.IntN(3), Skip: rng.IntN(9), Info: rng.IntN(9), Failing: strs(), Warning: strs()}
	}
	if maybe() {
		v.Links.Runs, v.Links.Tools, v.Links.Alerts = str(), str(), str()
		if maybe() {
			v.Links.Badges = &badgeLinks{Status: str(), Uptime: str(), Latency: str(), Conformance: str()}
		}
	}
	return v
}

func TestListEncodingMatchesReflection(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(24, 10000))
	for i := range 3000 {
		v := randomView(rng)
		want, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		var e listEncoder
		e.status(&v)
		if e.err != nil {
			t.Fatalf("view %d: %v", i, e.err)
		}
		if !bytes.Equal(e.b, want) {
			t.Fatalf("view %d:\n got %s\nwant %s", i, e.b, want)
		}
	}
}

// The list as a whole, from statuses as the store reads them: the bytes the reflective
// encoding of the same views gave.
func TestServerListBodyMatchesReflection(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 4, 5, 6, 7, 891_000_000, time.UTC)
	code, status := int64(-32603), 502
	up := store.RunRecord{ID: store.NewRunID(now), ServerID: 1, Region: "eu", Worker: "w<1>", Start: now.Add(-time.Minute),
		Duration: 123456 * time.Microsecond, AnswerTime: 98765 * time.Microsecond, Outcome: store.OutcomeUp, ProtocolVersion: "2025-06-18"}
	down := up
	down.Region, down.Outcome, down.ErrorCode, down.HTTPStatus, down.Error, down.AnswerTime = "us", store.OutcomeDown, &code, &status, "bad gateway & \"more\"", 0
	windows := func(withLatency bool) []store.WindowStats {
		var out []store.WindowStats
		for _, w := range store.StatusWindows() {
			ws := store.WindowStats{Window: w, Stats: store.Stats{Runs: 1440, Up: 1390, Degraded: 10, Down: 40, LatencySum: 1400 * 87 * time.Millisecond,
				LatencyMin: 3 * time.Millisecond, LatencyMax: 2 * time.Second}}
			if w.Name == "24h" && withLatency {
				ws.Latency = make(store.Histogram, store.HistogramBuckets)
				ws.Latency[4], ws.Latency[9] = 1000, 400
			}
			out = append(out, ws)
		}
		return out
	}
	sts := []store.ServerStatus{
		{Server: store.Server{ID: 1, Name: "a<b>", Source: "config", Transport: "http", URL: "https://u:p@a.example/mcp?token=x&q=1",
			Headers: []store.HeaderRef{{Name: "Authorization", FromEnv: "T"}}, Schedule: "@every 1m", Timeout: 10 * time.Second,
			Labels: map[string]string{"z": "1", "a": "<2>"}, Enabled: true, CreatedAt: now, UpdatedAt: now.Add(time.Second)},
			State: store.StateDegraded, Latest: &down, Regions: []store.RegionStatus{{Region: "eu", State: up.Outcome, Latest: up}, {Region: "us", State: down.Outcome, Latest: down}},
			Windows: windows(true), Conformance: &store.Conformance{RunID: down.ID, At: now, Pass: 40, Fail: 2, Warn: 3, Advice: 1, Untested: 1,
				Failing: []string{"tools.list", "http.status"}, Warning: []string{"lifecycle.ping"}}},
		{Server: store.Server{ID: 2, Name: "stdio", Source: "api", Transport: "stdio", Command: "npx", Schedule: "@every 5m"},
			State: store.StateUnknown, Windows: windows(false)},
		{Server: store.Server{ID: 3, Name: "paused", Transport: "sse", URL: "https://p.example/sse"}, State: store.StatePaused,
			Latest: &up, Regions: []store.RegionStatus{{Region: "eu", State: up.Outcome, Latest: up}}, Windows: windows(true)},
	}
	for _, tc := range []struct {
		name string
		list []store.ServerStatus
	}{{"three servers", sts}, {"no server", []store.ServerStatus{}}} {
		for _, s := range []*API{{}, {dashboard: &url.URL{Scheme: "https", Host: "status.example.com", Path: "/base/"}}} {
			snap := store.Statuses{List: tc.list, AsOf: now, Seq: 1}
			got, err := s.encodeList(snap)
			if err != nil {
				t.Fatal(err)
			}
			views := make([]statusView, 0, len(tc.list))
			for _, st := range tc.list {
				views = append(views, s.toStatusView(st))
			}
			want, err := json.Marshal(struct {
				Servers []statusView `json:"servers"`
				AsOf    time.Time    `json:"asOf"`
			}{views, now})
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, append(want, '\n')) {
				t.Errorf("%s:\n got %s\nwant %s", tc.name, got, want)
			}
		}
	}
}

func TestListEncodingRefusesWhatJSONCannotHold(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		v    statusView
	}{
		{"a NaN", statusView{Conformance: &conformanceView{Score: math.NaN()}}},
		{"an infinite latency", statusView{Latency: latencyView{P50Ms: new(math.Inf(1))}}},
		{"a year beyond 9999", statusView{serverView: serverView{CreatedAt: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}}},
	} {
		_, jsonErr := json.Marshal(tc.v)
		var e listEncoder
		e.status(&tc.v)
		if e.err == nil || jsonErr == nil {
			t.Errorf("%s: encoder error %v, encoding/json error %v; want both to fail", tc.name, e.err, jsonErr)
		}
	}
}
