package monitor

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/robfig/cron/v3"

	"github.com/mcpwatch/mcpwatch/internal/units"
	"github.com/mcpwatch/mcpwatch/store"
)

// Bounds of a schedule.
const (
	minEvery = time.Second
	maxEvery = store.MaxScheduleEvery
	// maxCronSteps bounds the fires a cron schedule walks to find one due time: a minutely
	// schedule with an hour of jitter walks about 60.
	maxCronSteps = 100_000
)

// DefaultMaxJitter caps the offset that spreads servers of one schedule: @every 1m spreads
// them over the whole minute, a daily cron over its first hour.
const DefaultMaxJitter = time.Hour

// ErrBadSchedule is wrapped by every error of ParseSchedule.
var ErrBadSchedule = errors.New("not a schedule")

// Schedule says when a server is due: robfig/cron/v3 syntax, either five cron fields
// ("*/5 * * * *", optionally prefixed "CRON_TZ=Europe/Paris"), a descriptor ("@hourly"), or
// "@every 1m".
//
// Servers on the same schedule are not all due at the same instant: each server's due times
// are shifted by an offset that is a fixed fraction (hashed from its key, the server's name)
// of the interval, capped at the maximum jitter. The offset is deterministic, so every
// worker and every restart agrees on a server's slots, and @every slots sit on a fixed grid
// rather than drifting with probe durations.
type Schedule struct {
	spec      string
	every     time.Duration // for @every; 0 for cron schedules
	cron      cron.Schedule
	maxJitter time.Duration
}

// ParseSchedule parses a schedule; maxJitter caps the per-server offset (0 turns it off).
func ParseSchedule(spec string, maxJitter time.Duration) (Schedule, error) {
	s := Schedule{spec: strings.TrimSpace(spec), maxJitter: max(maxJitter, 0)}
	if s.spec == "" {
		return Schedule{}, fmt.Errorf("%w: empty", ErrBadSchedule)
	}
	if rest, ok := strings.CutPrefix(s.spec, "@every"); ok {
		d, err := units.ParseDuration(strings.TrimSpace(rest))
		if err != nil {
			return Schedule{}, fmt.Errorf("%w: %q: %v", ErrBadSchedule, spec, err)
		}
		if d < minEvery || d > maxEvery {
			return Schedule{}, fmt.Errorf("%w: %q: the interval must be between %v and %v", ErrBadSchedule, spec, minEvery, maxEvery)
		}
		s.every = d.Truncate(time.Millisecond)
		return s, nil
	}
	parser := cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)
	c, err := parser.Parse(s.spec)
	if err != nil {
		return Schedule{}, fmt.Errorf("%w: %q: %v", ErrBadSchedule, spec, err)
	}
	// A date that never comes ("0 0 30 2 *") makes Next return the zero time.
	if c.Next(time.Now()).IsZero() {
		return Schedule{}, fmt.Errorf("%w: %q never fires", ErrBadSchedule, spec)
	}
	s.cron = c
	return s, nil
}

// fraction maps a key to [0, 1), the same on every machine. A cryptographic hash because
// names differ in a digit or two ("srv-000041", "srv-000042"), and FNV's high bits, say, do
// not spread those evenly.
func fraction(key string) float64 {
	sum := sha256.Sum256([]byte(key))
	return float64(binary.BigEndian.Uint64(sum[:8])>>11) / (1 << 53)
}

// offset is the key's shift within a span, to the millisecond (the database keeps due times
// to the microsecond, so a due time read back is exactly the one computed).
func offset(key string, span time.Duration) time.Duration {
	return time.Duration(fraction(key) * float64(span)).Truncate(time.Millisecond)
}

// Next returns the key's first due time strictly after t (the zero time if the schedule
// never fires again).
func (s Schedule) Next(key string, t time.Time) time.Time {
	if s.every > 0 {
		phase := offset(key, min(s.every, s.maxJitter))
		// Slots are phase + k*every from the Unix epoch.
		since := t.Sub(time.Unix(0, 0).Add(phase))
		k := since / s.every
		if since < 0 && since%s.every != 0 {
			k-- // floor, not truncation, before the epoch
		}
		next := time.Unix(0, 0).Add(phase).Add((k + 1) * s.every)
		for !next.After(t) { // durations overflow nowhere near; this only guards rounding
			next = next.Add(s.every)
		}
		return next.In(t.Location())
	}
	// A fire c is due at c + offset(min(gap after c, maxJitter)); the offset is at most
	// maxJitter, so the first fire that can be due after t comes after t - maxJitter.
	frac := fraction(key)
	c := s.cron.Next(t.Add(-s.maxJitter))
	for range maxCronSteps {
		if c.IsZero() {
			return time.Time{}
		}
		following := s.cron.Next(c)
		span := s.maxJitter
		if !following.IsZero() {
			span = min(following.Sub(c), s.maxJitter)
		}
		due := c.Add(time.Duration(frac * float64(span)).Truncate(time.Millisecond))
		if due.After(t) {
			return due
		}
		c = following
	}
	return time.Time{}
}

// NextDue returns when a server is next due after the slot due at due, whose probe started
// at started, was done at now.
//
// Slots are windows: a slot lasts from its due time to the next one, and a probe that
// started in a window is that window's probe. So the next due time is the first slot after
// the one the probe started in (a first probe, due off the grid when its server was added,
// does not make the window it ran in due again), unless that slot has passed whole by now (a
// probe that outlasted its interval, a worker that fell behind): then it is the slot now is
// in, so that a late worker probes each server once now rather than once for every slot it
// missed.
func (s Schedule) NextDue(key string, due, started, now time.Time) time.Time {
	from := due
	if started.After(from) {
		from = started
	}
	next := s.Next(key, from)
	if next.IsZero() {
		return next
	}
	if s.every > 0 {
		if !next.Add(s.every).After(now) {
			next = s.Next(key, now.Add(-s.every)) // the slot start in (now-every, now]
		}
		return next
	}
	for range maxCronSteps {
		after := s.Next(key, next)
		if after.IsZero() || after.After(now) {
			return next
		}
		next = after
	}
	return s.Next(key, now)
}

// Interval is the time between two slots around t: the @every interval, or the gap between
// the cron fires around t.
func (s Schedule) Interval(t time.Time) time.Duration {
	if s.every > 0 {
		return s.every
	}
	c := s.cron.Next(t)
	following := s.cron.Next(c)
	if c.IsZero() || following.IsZero() {
		return 0
	}
	return following.Sub(c)
}
