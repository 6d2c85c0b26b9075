package chart

import (
	"reflect"
	"testing"
	"time"
)

func TestValueTicksAreRound(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		lo, hi float64
		want   int
		ticks  []float64
	}{
		{0, 100, 4, []float64{0, 25, 50, 75, 100}},
		{0, 93, 4, []float64{0, 25, 50, 75, 100}},
		{12, 480, 5, []float64{0, 100, 200, 300, 400, 500}},
		{0, 0.3, 3, []float64{0, 0.1, 0.2, 0.3}},
		{0, 0, 4, []float64{0, 0.25, 0.5, 0.75, 1}},
		{0, 7, 2, []float64{0, 5, 10}},
		{-3, 3, 3, []float64{-4, -2, 0, 2, 4}},
	} {
		if got := valueTicks(tc.lo, tc.hi, tc.want); !reflect.DeepEqual(got, tc.ticks) {
			t.Errorf("valueTicks(%v, %v, %d) = %v, want %v", tc.lo, tc.hi, tc.want, got, tc.ticks)
		}
	}
}

func TestTimeTicksAlignToWholeUTCSteps(t *testing.T) {
	t.Parallel()
	at := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, tc := range []struct {
		name     string
		from, to time.Time
		max      int
		step     time.Duration
		labels   []string
	}{
		{
			name: "a day in 6 hour steps, midnight named by its date",
			from: at("2025-11-20T10:00:00Z"), to: at("2025-11-21T10:00:00Z"), max: 6,
			step: 6 * time.Hour, labels: []string{"12:00", "18:00", "Nov 21", "06:00"},
		},
		{
			name: "a week in days",
			from: at("2025-11-14T10:00:00Z"), to: at("2025-11-21T10:00:00Z"), max: 8,
			step: 24 * time.Hour, labels: []string{"Nov 15", "Nov 16", "Nov 17", "Nov 18", "Nov 19", "Nov 20", "Nov 21"},
		},
		{
			name: "three hours hourly, a tick on the start itself",
			from: at("2025-11-20T10:00:00Z"), to: at("2025-11-20T13:00:00Z"), max: 6,
			step: time.Hour, labels: []string{"10:00", "11:00", "12:00", "13:00"},
		},
		{
			name: "a non-UTC start still gets UTC ticks",
			from: at("2025-11-20T10:30:00+02:00"), to: at("2025-11-20T16:30:00+02:00"), max: 3,
			step: 2 * time.Hour, labels: []string{"10:00", "12:00", "14:00"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ticks, step := timeTicks(tc.from, tc.to, tc.max)
			if step != tc.step {
				t.Errorf("step %v, want %v", step, tc.step)
			}
			var labels []string
			for _, tick := range ticks {
				if tick.Before(tc.from) || tick.After(tc.to) {
					t.Errorf("tick %v outside [%v, %v]", tick, tc.from, tc.to)
				}
				labels = append(labels, timeLabel(tick, step))
			}
			if !reflect.DeepEqual(labels, tc.labels) {
				t.Errorf("labels %v, want %v", labels, tc.labels)
			}
		})
	}
}
