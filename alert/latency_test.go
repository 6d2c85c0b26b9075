package alert

import (
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
	lat := func(at time.Duration, d time.Duration) Observation { return withLatency(obs(at, "eu", up), init, d) }
	bound := config(only(KindLatency), func(c *Config) {
		c.Latency.P95Above = 500 * ms
		c.Latency.BaselineRatio = floatp(0)
	})
	tests := []struct {
		name  string
		cfg   Config
		steps []simStep
	}{
		{"p95 over the window above the bound fires; resolves when the slow runs leave the window", bound, []simStep{
			{lat(0, 100*ms), none()},
			{lat(1*m, 100*ms), none()},
			{lat(2*m, 100*ms), none()},
			{lat(3*m, 900*ms), ev("fired latency initialize")},
			{lat(4*m, 100*ms), none()},
			{lat(10*m, 100*ms), none()},
			{lat(17*m, 100*ms), none()},
			{lat(18*m, 100*ms), ev("resolved latency initialize")},
		}},
		{"fewer than min-samples runs are not judged", config(only(KindLatency), func(c *Config) {
			c.Latency.P95Above = 500 * ms
			c.Latency.MinSamples = 3
		}), []simStep{
			{lat(0, 900*ms), none()},
			{lat(1*m, 900*ms), none()},
			{lat(2*m, 900*ms), ev("fired latency initialize")},
		}},
		{"a run without the step (down) says nothing", bound, []simStep{
			{lat(0, 900*ms), none()},
			{lat(1*m, 900*ms), none()},
			{lat(2*m, 900*ms), ev("fired latency initialize")},
			{obs(3*m, "eu", down), none()},
			{obs(19*m, "eu", down), none()},
		}},
		{"each watched step is an alert of its own", bound, []simStep{
			{withLatency(lat(0, 900*ms), "ping", 10*ms), none()},
			{withLatency(lat(1*m, 900*ms), "ping", 10*ms), none()},
			{withLatency(lat(2*m, 900*ms), "ping", 10*ms), ev("fired latency initialize")},
			{withLatency(withLatency(obs(3*m, "eu", up), init, 900*ms), "tools/list", 900*ms), none()},
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
			for i := 0; i < 3; i++ {
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
