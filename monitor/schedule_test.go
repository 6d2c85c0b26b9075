package monitor

import (
	"errors"
	"fmt"
	"testing"
	"time"
)

func mustSchedule(t *testing.T, spec string, jitter time.Duration) Schedule {
	t.Helper()
	s, err := ParseSchedule(spec, jitter)
	if err != nil {
		t.Fatalf("ParseSchedule(%q): %v", spec, err)
	}
	return s
}

func TestParseScheduleAcceptsCronAndEvery(t *testing.T) {
	t.Parallel()
	tests := []struct {
		spec string
		ok   bool
	}{
		{"@every 1m", true},
		{"@every 90s", true},
		{"@every 1d", true},
		{"@every 1h30m", true},
		// What docs/monitor.md says is allowed: @every from 1s to 31d, to the millisecond.
		{"@every 10s", true},
		{"@every 1s", true},
		{"@every 1.5s", true},
		{"@every 31d", true},
		{"@every 744h1s", false}, // 31 days and a second
		{"@every 999ms", false},
		{"0 9 * * MON-FRI", true},
		{"0 0 1 JAN,JUL *", true},
		{"TZ=America/New_York 30 8 * * *", true},
		{"CRON_TZ=Nowhere/Atlantis 0 9 * * *", false},
		{"@weekly", true},
		{"@monthly", true},
		{"@yearly", true},
		{"@annually", true},
		{"@midnight", true},
		{"*/5 * * * *", true},
		{"0 9 * * 1-5", true},
		{"@hourly", true},
		{"@daily", true},
		{"CRON_TZ=Europe/Paris 0 9 * * *", true},
		{"", false},
		{"@every", false},
		{"@every 500ms", false}, // below a second
		{"@every 40d", false},   // beyond a month
		{"@every soon", false},
		{"every 5m", false},
		{"* * * *", false},      // four fields
		{"0 0 0 * * *", false},  // six fields: no seconds
		{"0 0 30 2 *", false},   // February 30th never comes
		{"61 * * * *", false},   // minute out of range
		{"@fortnightly", false}, // no such descriptor
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			_, err := ParseSchedule(tt.spec, time.Hour)
			if (err == nil) != tt.ok {
				t.Fatalf("ParseSchedule(%q) = %v, want ok %v", tt.spec, err, tt.ok)
			}
			if err != nil && !errors.Is(err, ErrBadSchedule) {
				t.Errorf("error %v does not wrap ErrBadSchedule", err)
			}
		})
	}
}

func TestEverySlotsSitOnAFixedGridPerServer(t *testing.T) {
	t.Parallel()
	s := mustSchedule(t, "@every 1m", DefaultMaxJitter)
	base := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, key := range []string{"a", "weather", "srv-000042"} {
		first := s.Next(key, base)
		if !first.After(base) || first.Sub(base) > time.Minute {
			t.Fatalf("%s: Next(%v) = %v, want within the next minute", key, base, first)
		}
		// From anywhere inside a slot, Next gives the same following slot.
		for _, d := range []time.Duration{0, time.Millisecond, 17 * time.Second, time.Minute - time.Millisecond} {
			if got := s.Next(key, first.Add(-time.Minute).Add(d)); !got.Equal(first) {
				t.Errorf("%s: Next(slot start + %v) = %v, want %v", key, d, got, first)
			}
		}
		// Next is strictly after: from a due time it is the following one.
		if got := s.Next(key, first); !got.Equal(first.Add(time.Minute)) {
			t.Errorf("%s: Next(due) = %v, want %v", key, got, first.Add(time.Minute))
		}
		if first.Nanosecond()%int(time.Millisecond) != 0 {
			t.Errorf("%s: due time %v is not whole milliseconds (the database keeps microseconds)", key, first)
		}
	}
}

func TestJitterSpreadsServersAcrossTheInterval(t *testing.T) {
	t.Parallel()
	s := mustSchedule(t, "@every 1m", DefaultMaxJitter)
	base := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	const servers, buckets = 6000, 60
	count := make([]int, buckets)
	for i := range servers {
		next := s.Next(fmt.Sprintf("srv-%06d", i), base)
		count[int(next.Sub(base)/time.Second)%buckets]++
	}
	for sec, n := range count {
		// 100 expected per second of the minute; a hash that clumps would leave some
		// seconds crowded and others empty.
		if n < 60 || n > 140 {
			t.Errorf("second %d of the minute has %d of %d servers due, want about %d", sec, n, servers, servers/buckets)
		}
	}
	// Deterministic: the same key gets the same slot from another Schedule value.
	again := mustSchedule(t, "@every 1m", DefaultMaxJitter)
	if a, b := s.Next("srv-000001", base), again.Next("srv-000001", base); !a.Equal(b) {
		t.Errorf("same key, two schedules: %v and %v", a, b)
	}
}

func TestZeroJitterKeepsTheScheduleItself(t *testing.T) {
	t.Parallel()
	base := time.Date(2026, 3, 1, 12, 0, 30, 0, time.UTC)
	every := mustSchedule(t, "@every 1m", 0)
	if got, want := every.Next("x", base), time.Date(2026, 3, 1, 12, 1, 0, 0, time.UTC); !got.Equal(want) {
		t.Errorf("@every 1m without jitter: %v, want %v", got, want)
	}
	cron := mustSchedule(t, "*/5 * * * *", 0)
	if got, want := cron.Next("x", base), time.Date(2026, 3, 1, 12, 5, 0, 0, time.UTC); !got.Equal(want) {
		t.Errorf("*/5 without jitter: %v, want %v", got, want)
	}
}

func TestCronJitterStaysWithinItsCap(t *testing.T) {
	t.Parallel()
	tests := []struct {
		spec   string
		jitter time.Duration
		// span is what the jitter may add to a fire: the smaller of the gap and the cap.
		span time.Duration
	}{
		{"*/5 * * * *", time.Hour, 5 * time.Minute},
		{"*/5 * * * *", time.Minute, time.Minute},
		{"0 * * * *", time.Hour, time.Hour},
		{"0 9 * * *", 10 * time.Minute, 10 * time.Minute},
	}
	base := time.Date(2026, 3, 2, 8, 7, 0, 0, time.UTC)
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s cap %v", tt.spec, tt.jitter), func(t *testing.T) {
			s := mustSchedule(t, tt.spec, tt.jitter)
			plain := mustSchedule(t, tt.spec, 0)
			for i := range 200 {
				key := fmt.Sprintf("k%d", i)
				prev := base
				for range 3 {
					due := s.Next(key, prev)
					if !due.After(prev) {
						t.Fatalf("%s: Next(%v) = %v is not after it", key, prev, due)
					}
					// The fire it belongs to is the latest plain fire at or before it.
					fire := plain.Next(key, due.Add(-tt.span-time.Second))
					for n := plain.Next(key, fire); !n.After(due); n = plain.Next(key, n) {
						fire = n
					}
					if off := due.Sub(fire); off < 0 || off >= tt.span {
						t.Fatalf("%s: due %v is %v after its fire %v, want within [0, %v)", key, due, off, fire, tt.span)
					}
					prev = due
				}
			}
		})
	}
}

func TestNextDueCountsASlotByWhenItsProbeStarted(t *testing.T) {
	t.Parallel()
	s := mustSchedule(t, "@every 1m", DefaultMaxJitter)
	base := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	due := s.Next("srv", base)
	sec := time.Second
	tests := []struct {
		name         string
		due          time.Time
		started, now time.Duration // after due
		want         time.Duration // after due
	}{
		{"on time: the next slot", due, 0, 2 * sec, time.Minute},
		{"late but within its slot: the next slot", due, 30 * sec, 32 * sec, time.Minute},
		{"started in the next slot (a slow claim): the slot after it", due, time.Minute + 10*sec, time.Minute + 12*sec, 2 * time.Minute},
		{"finished a whole slot late: the current slot, at once", due, 5 * sec, 2*time.Minute + 10*sec, 2 * time.Minute},
		{"down for an hour: the current slot", due, 0, time.Hour + 5*sec, time.Hour},
		// A first probe is due when its server was added, off the grid; its window is the one
		// it ran in.
		{"a first probe, off the grid", due.Add(-20 * sec), 10 * sec, 12 * sec, time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := s.NextDue("srv", tt.due, due.Add(tt.started), due.Add(tt.now))
			if want := due.Add(tt.want); !got.Equal(want) {
				t.Errorf("NextDue = due+%v, want due+%v", got.Sub(due), tt.want)
			}
		})
	}
	cron := mustSchedule(t, "*/5 * * * *", time.Minute)
	cdue := cron.Next("srv", base)
	if got := cron.NextDue("srv", cdue, cdue, cdue.Add(sec)); !got.After(cdue) || got.Sub(cdue) > 6*time.Minute {
		t.Errorf("cron on time: %v after due, want about 5m", got.Sub(cdue))
	}
	late := cdue.Add(time.Hour + 30*sec)
	if got := cron.NextDue("srv", cdue, cdue, late); got.After(late) || late.Sub(got) > 5*time.Minute {
		t.Errorf("cron an hour late: next due %v before now, want the current slot (within 5m before now)", late.Sub(got))
	}
}
