package dashseed

import (
	"time"

	"github.com/mcpwatch/mcpwatch/store"
)

// DemoPlans is a small fleet with one server in each state the status page shows and the
// history that explains it:
//
//   - weather-tools is up in two regions, with a short outage three days ago and another
//     forty days ago;
//   - github-bridge changed its tools two days ago and fails a check since three hours ago
//     (degraded);
//   - billing-api answers initialize with an error since fifty minutes ago (down);
//   - search-index is down in eu since thirty minutes ago and up in us (degraded);
//   - archive-reader was paused ten days ago;
//   - notes-beta was just added and has no run yet.
func DemoPlans(s Samples, now time.Time) []Plan {
	ago := func(d time.Duration) time.Time { return now.Add(-d) }
	within := func(t, from, to time.Time) bool { return !t.Before(from) && t.Before(to) }
	day := 24 * time.Hour
	return []Plan{
		{
			Name: "weather-tools", Regions: []string{"eu", "us"}, Enabled: true, Latency: 180 * time.Millisecond, Answer: 48 * time.Millisecond,
			State: store.StateUp,
			Pick: func(t time.Time, region string) *store.RunRecord {
				switch {
				case region == "eu" && within(t, ago(3*day+2*time.Hour), ago(3*day-2*time.Hour)):
					return &s.Down
				case within(t, ago(40*day+5*time.Hour), ago(40*day)):
					return &s.Down
				}
				return &s.Up
			},
		},
		{
			Name: "github-bridge", Regions: []string{"eu", "us"}, Enabled: true, Latency: 320 * time.Millisecond, Answer: 85 * time.Millisecond,
			State: store.StateDegraded,
			Pick: func(t time.Time, _ string) *store.RunRecord {
				switch {
				case t.After(ago(3 * time.Hour)):
					return &s.Degraded
				case t.After(ago(2 * day)):
					return &s.Drifted
				}
				return &s.Up
			},
		},
		{
			Name: "billing-api", Regions: []string{"eu"}, Enabled: true, Latency: 95 * time.Millisecond, Answer: 22 * time.Millisecond,
			State: store.StateDown,
			Pick: func(t time.Time, _ string) *store.RunRecord {
				if t.After(ago(50 * time.Minute)) {
					return &s.Down
				}
				return &s.Up
			},
		},
		{
			Name: "search-index", Regions: []string{"eu", "us"}, Enabled: true, Latency: 240 * time.Millisecond, Answer: 61 * time.Millisecond,
			State: store.StateDegraded,
			Pick: func(t time.Time, region string) *store.RunRecord {
				if region == "eu" && t.After(ago(30*time.Minute)) {
					return &s.Down
				}
				return &s.Up
			},
		},
		{
			Name: "archive-reader", Regions: []string{"eu"}, Enabled: false, Latency: 410 * time.Millisecond, Answer: 104 * time.Millisecond,
			State: store.StatePaused, Until: ago(10 * day),
			Pick: func(time.Time, string) *store.RunRecord { return &s.Up },
		},
		{
			Name: "notes-beta", Regions: []string{"eu"}, Enabled: true, Latency: 100 * time.Millisecond, Answer: 25 * time.Millisecond,
			State: store.StateUnknown,
			Pick:  func(time.Time, string) *store.RunRecord { return nil },
		},
	}
}
