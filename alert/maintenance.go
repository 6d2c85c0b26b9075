package alert

import (
	"errors"
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
)

var errBadTimeZone = errors.New("unknown time zone")

// windowParser reads the standard five fields and the descriptors (@daily, @weekly, ...).
var windowParser = cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)

// maintenance is a MaintenanceWindow ready to answer whether it is open.
type maintenance struct {
	name     string
	schedule cron.Schedule
	duration time.Duration
	loc      *time.Location
	servers  []string
}

func parseWindowSchedule(spec, zone string) (cron.Schedule, error) {
	if strings.TrimSpace(spec) == "" {
		return nil, errors.New("a window needs a schedule (a cron expression such as \"0 2 * * SUN\")")
	}
	if strings.HasPrefix(spec, "@every") {
		return nil, fmt.Errorf("%q: a window starts at times of day; use a cron expression", spec)
	}
	if strings.Contains(spec, "TZ=") {
		return nil, fmt.Errorf("%q: give the time zone in the timezone key", spec)
	}
	if zone != "" {
		if _, err := time.LoadLocation(zone); err != nil {
			return nil, fmt.Errorf("%w %q", errBadTimeZone, zone)
		}
	}
	s, err := windowParser.Parse(spec)
	if err != nil {
		return nil, fmt.Errorf("schedule %q: %w", spec, err)
	}
	return s, nil
}

func compileMaintenance(ws []MaintenanceWindow) ([]maintenance, error) {
	out := make([]maintenance, 0, len(ws))
	for _, w := range ws {
		s, err := parseWindowSchedule(w.Schedule, w.TimeZone)
		if err != nil {
			return nil, fmt.Errorf("maintenance window %s: %w", w.Name, err)
		}
		loc := time.UTC
		if w.TimeZone != "" {
			loc, _ = time.LoadLocation(w.TimeZone) // checked by parseWindowSchedule
		}
		out = append(out, maintenance{name: w.Name, schedule: s, duration: w.Duration, loc: loc, servers: w.Servers})
	}
	return out, nil
}

// openAt reports whether the window covers server at t, and when that opening ends: some
// start s of the schedule has s <= t < s+duration, that is, the first start after t-duration
// is not after t.
func (m maintenance) openAt(t time.Time, server string) (end time.Time, open bool) {
	if len(m.servers) > 0 && !matchesAny(m.servers, server) {
		return time.Time{}, false
	}
	// Next works to the second; a start exactly at t-duration has ended by t.
	first := m.schedule.Next(t.In(m.loc).Add(-m.duration))
	if first.IsZero() || first.After(t) {
		return time.Time{}, false
	}
	return first.Add(m.duration).UTC(), true
}

// activeMaintenance returns the name of a window covering server at t, "" when none does.
func activeMaintenance(ws []maintenance, t time.Time, server string) string {
	name, _ := maintenanceAt(ws, t, server)
	return name
}

// maintenanceAt returns the name of a window covering server at t and when it closes; of
// several, the one that stays open longest.
func maintenanceAt(ws []maintenance, t time.Time, server string) (name string, end time.Time) {
	for _, w := range ws {
		if e, ok := w.openAt(t, server); ok && (name == "" || e.After(end)) {
			name, end = w.name, e
		}
	}
	return name, end
}

func matchesAny(patterns []string, name string) bool {
	for _, p := range patterns {
		if ok, _ := path.Match(p, name); ok {
			return true
		}
	}
	return false
}

// MaintenanceCalendar says which maintenance window of a configuration is in force for a
// server at a time: what the pages show beside a server whose alerts a window holds back.
type MaintenanceCalendar struct {
	windows []maintenance
}

// NewMaintenanceCalendar compiles the maintenance windows of a configuration (nil: none).
func NewMaintenanceCalendar(c *Config) (*MaintenanceCalendar, error) {
	if c == nil {
		return &MaintenanceCalendar{}, nil
	}
	ws, err := compileMaintenance(c.Maintenance)
	if err != nil {
		return nil, err
	}
	return &MaintenanceCalendar{windows: ws}, nil
}

// At returns the window in force for server at t and when it closes (of several, the one that
// stays open longest); ok is false when none is.
func (c *MaintenanceCalendar) At(t time.Time, server string) (name string, end time.Time, ok bool) {
	if c == nil {
		return "", time.Time{}, false
	}
	name, end = maintenanceAt(c.windows, t, server)
	return name, end, name != ""
}
