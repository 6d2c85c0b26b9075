package alert

import (
	"testing"
	"time"
)

// The pages ask which window is in force for a server: a window covers the servers its
// patterns name (every server when it names none) from each start of its schedule for its
// duration; of two, the one that stays open longer is named.
func TestTheCalendarNamesTheWindowInForce(t *testing.T) {
	cal, err := NewMaintenanceCalendar(&Config{Maintenance: []MaintenanceWindow{
		{Name: "nightly", Schedule: "0 2 * * *", Duration: time.Hour},
		{Name: "deploys", Schedule: "30 2 * * *", Duration: 2 * time.Hour, Servers: []string{"billing-*"}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	day := time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name   string
		at     time.Duration
		server string
		want   string
		end    time.Duration
	}{
		{"before every window", 90 * time.Minute, "weather", "", 0},
		{"in the nightly window", 2*time.Hour + 10*time.Minute, "weather", "nightly", 3 * time.Hour},
		{"both in force: the longer", 2*time.Hour + 40*time.Minute, "billing-api", "deploys", 4*time.Hour + 30*time.Minute},
		{"a server the window does not name", 3*time.Hour + 30*time.Minute, "weather", "", 0},
		{"its window still in force", 3*time.Hour + 30*time.Minute, "billing-api", "deploys", 4*time.Hour + 30*time.Minute},
		{"the end is not in force", 3 * time.Hour, "weather", "", 0},
	} {
		name, end, ok := cal.At(day.Add(tc.at), tc.server)
		if name != tc.want || ok != (tc.want != "") || (ok && !end.Equal(day.Add(tc.end))) {
			t.Errorf("%s: %q until %v (%v), want %q until %v", tc.name, name, end, ok, tc.want, day.Add(tc.end))
		}
	}
	var none *MaintenanceCalendar
	if _, _, ok := none.At(day, "weather"); ok {
		t.Error("a nil calendar has a window in force")
	}
	if cal, err := NewMaintenanceCalendar(nil); err != nil || cal == nil {
		t.Errorf("no alerts section: %v, %v", cal, err)
	}
}
