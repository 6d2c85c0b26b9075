package alert

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

func withLatency(o Observation, step string, d time.Duration) Observation {
	o.Steps = append(o.Steps, StepLatency{Name: step, Latency: d})
	return o
}

func TestLatencyAlert(t *testing.T) {
	t.Parallel()
	const init = "initialize"
	ms := time.Millisecond
	at := func(region string, when, d time.Duration) Observation {
		return withLatency(obs(when, region, up), init, d)
	}
	lat := func(when, d time.Duration) Observation { return at("eu", when, d) }
	bound := config(only(KindLatency), func(c *Config) {
		c.Latency.P95Above = 500 * ms
		c.Latency.BaselineRatio = floatp(0)
	})
	// Every 30 seconds, fast: a window of 15m then holds 30 runs.
	fastFor := func(from time.Duration, n int) []simStep {
		var out []simStep
		for i := range n {
			out = append(out, simStep{lat(from+time.Duration(i)*30*time.Second, 100*ms), none()})
		}
		return out
	}
	tests := []struct {
		name  string
		cfg   Config
		steps []simStep
	}{
		{"one slow run among few does not fire: it takes slow-runs of the last recent-runs", bound, []simStep{
			{lat(0, 900*ms), none()},
			{lat(1*m, 100*ms), none()},
			{lat(2*m, 100*ms), none()},
			{lat(3*m, 100*ms), none()},
			{lat(4*m, 100*ms), none()},
			{lat(5*m, 100*ms), none()},
		}},
		{"3 of the last 5 runs slower than the bound fire; fewer resolve", bound, []simStep{
			{lat(0, 100*ms), none()},
			{lat(1*m, 100*ms), none()},
			{lat(2*m, 900*ms), none()},
			{lat(3*m, 900*ms), none()},
			{lat(4*m, 900*ms), ev("fired latency initialize")},
			{lat(5*m, 100*ms), none()},
			{lat(6*m, 100*ms), none()},
			{lat(7*m, 100*ms), ev("resolved latency initialize")},
		}},
		{"fewer runs than recent-runs in the window are not judged", bound, []simStep{
			{lat(0, 900*ms), none()},
			{lat(1*m, 900*ms), none()},
			{lat(2*m, 900*ms), none()},
			{lat(3*m, 900*ms), none()},
			{lat(30*m, 900*ms), none()}, // the others left the window
		}},
		{"with min-samples runs in the window its p95 judges: one slow run does not fire, two do",
			bound, append(fastFor(0, 25),
				simStep{lat(13*m, 900*ms), none()},
				simStep{lat(13*m+30*time.Second, 900*ms), ev("fired latency initialize")},
			)},
		{"a run without the step (down) says nothing", bound, []simStep{
			{lat(0, 900*ms), none()},
			{lat(1*m, 900*ms), none()},
			{lat(2*m, 900*ms), none()},
			{lat(3*m, 900*ms), none()},
			{lat(4*m, 900*ms), ev("fired latency initialize")},
			{obs(5*m, "eu", down), none()},
			{obs(19*m, "eu", down), none()},
		}},
		{"each watched step is an alert of its own", bound, []simStep{
			{withLatency(lat(0, 900*ms), "ping", 10*ms), none()},
			{withLatency(lat(1*m, 900*ms), "ping", 10*ms), none()},
			{withLatency(lat(2*m, 900*ms), "ping", 10*ms), none()},
			{withLatency(lat(3*m, 900*ms), "ping", 10*ms), none()},
			{withLatency(lat(4*m, 900*ms), "ping", 10*ms), ev("fired latency initialize")},
			{withLatency(withLatency(obs(5*m, "eu", up), init, 900*ms), "tools/list", 900*ms), none()},
		}},
		{"a slow region and a fast one never take turns: one alert, open while the slow one is slow", bound, []simStep{
			{at("eu", 0, 100*ms), none()},
			{at("us", 10*time.Second, 900*ms), none()},
			{at("eu", 1*m, 100*ms), none()},
			{at("us", 70*time.Second, 900*ms), none()},
			{at("eu", 2*m, 100*ms), none()},
			{at("us", 130*time.Second, 900*ms), none()},
			{at("eu", 3*m, 100*ms), none()},
			{at("us", 190*time.Second, 900*ms), none()},
			{at("eu", 4*m, 100*ms), none()},
			{at("us", 250*time.Second, 900*ms), ev("fired latency initialize")},
			{at("eu", 5*m, 100*ms), none()},
			{at("us", 310*time.Second, 900*ms), none()},
			{at("eu", 6*m, 100*ms), none()},
			{at("us", 370*time.Second, 100*ms), none()},
			{at("eu", 7*m, 100*ms), none()},
			{at("us", 430*time.Second, 100*ms), none()},
			{at("eu", 8*m, 100*ms), none()},
			{at("us", 490*time.Second, 100*ms), ev("resolved latency initialize")},
			{at("eu", 9*m, 100*ms), none()},
		}},
		{"a second slow region updates the open alert", bound, []simStep{
			{at("eu", 0, 900*ms), none()},
			{at("eu", 1*m, 900*ms), none()},
			{at("eu", 2*m, 900*ms), none()},
			{at("eu", 3*m, 900*ms), none()},
			{at("eu", 4*m, 900*ms), ev("fired latency initialize")},
			{at("us", 4*m+10*time.Second, 900*ms), none()},
			{at("us", 4*m+20*time.Second, 900*ms), none()},
			{at("us", 4*m+30*time.Second, 900*ms), none()},
			{at("us", 4*m+40*time.Second, 900*ms), none()},
			{at("us", 4*m+50*time.Second, 900*ms), ev("changed latency initialize")},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			runScenario(t, tt.cfg, tt.steps)
		})
	}
}

func TestLatencyBaselineRatio(t *testing.T) {
	t.Parallel()
	ms := time.Millisecond
	tests := []struct {
		name      string
		usual     time.Duration
		slow      time.Duration
		wantFired bool
	}{
		{"four times the baseline fires", 100 * ms, 400 * ms, true},
		{"twice the baseline does not", 100 * ms, 200 * ms, false},
		{"a fast server slowing down below the floor does not", 5 * ms, 40 * ms, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newSim(t, config(only(KindLatency), func(c *Config) {
				c.Latency.BaselineMinSamples = 60
				c.Latency.Steps = []string{"ping"}
			}))
			at := time.Duration(0)
			// Two days of usual latency at one run every 10 minutes.
			for ; at < 48*time.Hour; at += 10 * m {
				if got := s.observe(withLatency(obs(at, "eu", up), "ping", tt.usual)); len(got) > 0 {
					t.Fatalf("usual latency at +%v: events %q", at, eventTexts(got))
				}
			}
			var fired []string
			for range 4 {
				at += m
				fired = append(fired, eventTexts(s.observe(withLatency(obs(at, "eu", up), "ping", tt.slow)))...)
			}
			if want := tt.wantFired; (len(fired) == 1 && fired[0] == "fired latency ping") != want {
				t.Fatalf("events %q, want fired: %v", fired, want)
			}
			if tt.wantFired {
				st, _ := s.state(KindLatency, "ping")
				if !strings.Contains(string(st.Details), "its baseline of") {
					t.Errorf("details %s do not name the baseline", st.Details)
				}
			}
		})
	}
}

// TestLatencyBaselineExcludesTheWindowAndStatesItsSpan: the baseline is made of the runs
// before the window it is compared with, and says the span those runs cover, not the days
// configured.
func TestLatencyBaselineExcludesTheWindowAndStatesItsSpan(t *testing.T) {
	t.Parallel()
	ms := time.Millisecond
	tests := []struct {
		name     string
		usual    time.Duration // every 30s for `span`
		span     time.Duration
		slowRuns int // then, every 30s, at 900ms
		want     []string
	}{
		{"five minutes of data say five minutes", 100 * ms, 5 * m, 2,
			[]string{"baseline: p95 100ms over 5m0s (11 runs before the window)", "2 of the last 2 runs of ping slower than 3× its baseline of 100ms"}},
		{"slow runs that left the window join the baseline, those in it never do", 100 * ms, 2 * time.Hour, 6,
			[]string{"baseline: p95 100ms over 2h2m0s (245 runs before the window)", "slower than 3× its baseline of 100ms"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newSim(t, config(only(KindLatency), func(c *Config) {
				c.Latency.Steps = []string{"ping"}
				c.Latency.Window = time.Minute
				c.Latency.RecentRuns, c.Latency.SlowRuns = 2, 2
				c.Latency.BaselineMinSamples = 5
			}))
			at := time.Duration(0)
			for ; at <= tt.span; at += 30 * time.Second {
				s.observe(withLatency(obs(at, "eu", up), "ping", tt.usual))
			}
			for range tt.slowRuns {
				s.observe(withLatency(obs(at, "eu", up), "ping", 900*ms))
				at += 30 * time.Second
			}
			st, ok := s.state(KindLatency, "ping")
			if !ok || st.Status != "firing" {
				t.Fatalf("state %+v, want firing", st)
			}
			for _, w := range tt.want {
				if !strings.Contains(string(st.Details), w) {
					t.Errorf("evidence lacks %q: %s", w, st.Details)
				}
			}
			if strings.Contains(string(st.Details), "day") {
				t.Errorf("evidence speaks of days: %s", st.Details)
			}
		})
	}
}

// TestLatencyMemoryKeptBeforeRegionsLoads: the memory of a step kept before regions were told
// apart (the samples of every region together) still loads; its days become the baseline of
// the first region observed.
func TestLatencyMemoryKeptBeforeRegionsLoads(t *testing.T) {
	t.Parallel()
	s := newSim(t, config(only(KindLatency), func(c *Config) { c.Latency.BaselineMinSamples = 5 }))
	day := t0.Unix() / 86400
	hist := make([]int64, 23)
	hist[10] = 50
	s.snap.Memory[partLatency] = []byte(`{"initialize":{"samples":[{"t":` + itoa(t0.Add(-time.Minute).UnixMilli()) + `,"us":100000}],` +
		`"days":[{"day":` + itoa(day) + `,"hist":` + intsJSON(hist) + `,"min":90000,"max":110000}]}}`)
	s.observe(withLatency(obs(0, "us", up), "initialize", 100*time.Millisecond))
	mem, err := decodeMemory(s.snap.Memory)
	if err != nil {
		t.Fatal(err)
	}
	l := mem.latency["initialize"]
	if l == nil || l.Regions["us"] == nil || len(l.Regions["us"].Days) != 1 || l.Days != nil || l.Samples != nil {
		t.Fatalf("memory %+v, want the old days adopted by us", l)
	}
	if _, n, _ := l.Regions["us"].baseline(t0, 7); n != 50 {
		t.Errorf("baseline of %d runs, want the 50 kept before", n)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func intsJSON(ns []int64) string {
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = itoa(n)
	}
	return "[" + strings.Join(parts, ",") + "]"
}
