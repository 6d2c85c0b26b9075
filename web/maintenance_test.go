package web

import (
	"strings"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/alert"
)

// A maintenance window in force is on the status page and the server page of the servers it
// covers, whether or not it holds back an alert yet (the monitor's process has the alerts
// configuration; without it no window is shown).
func testMaintenanceInForce(t *testing.T, f *fleet) {
	cal, err := alert.NewMaintenanceCalendar(&alert.Config{Maintenance: []alert.MaintenanceWindow{
		// Starts every minute and lasts two hours: in force whenever the test runs.
		{Name: "billing freeze", Schedule: "* * * * *", Duration: 2 * time.Hour, Servers: []string{"billing-*"}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	h, err := New(Deps{Store: f.store, Checks: f.checks, Now: func() time.Time { return f.now }, Version: "test", StatusTTL: -1,
		Maintenance: cal.At})
	if err != nil {
		t.Fatal(err)
	}
	withWindow := &fleet{ctx: f.ctx, pool: f.pool, store: f.store, checks: f.checks, now: f.now, plans: f.plans, servers: f.servers, handler: h}
	const note = `<p class="maintenance-note"><span class="label">Maintenance</span> Maintenance window billing freeze in force until `
	page := withWindow.mustGet(t, "/")
	if row := rowOf(t, page, "billing-api"); !strings.Contains(row, note) {
		t.Errorf("billing-api's row does not name the window in force:\n%s", clipForLog(row))
	}
	if row := rowOf(t, page, "weather-tools"); strings.Contains(row, "maintenance-note") {
		t.Errorf("weather-tools, which the window does not cover, shows it:\n%s", clipForLog(row))
	}
	if server := withWindow.mustGet(t, "/servers/billing-api"); !strings.Contains(server, note) {
		t.Error("billing-api's page does not name the window in force")
	}
	// The fleet's own dashboard has no alerts configuration: no window anywhere.
	if strings.Contains(f.mustGet(t, "/"), "maintenance-note") {
		t.Error("a dashboard without a maintenance calendar shows a window")
	}
}
