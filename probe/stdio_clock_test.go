package probe

import (
	"testing"
	"time"
)

func TestSendClockNeverStampsAnAnswerBeforeItsRequest(t *testing.T) {
	// Each step reads the clock at the given time; "W" starts a write, "D" ends it (its
	// result is the Out time), "F" ends it failed, "R" is a read (its result is the In time).
	type step struct {
		op   byte
		now  time.Duration
		want time.Duration
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{"quiet write then answer", []step{{'W', 0, 0}, {'D', 10, 10}, {'R', 25, 25}}},
		{"answer read while the writer was descheduled", []step{{'W', 3, 0}, {'R', 12, 12}, {'D', 15, 3}}},
		{"several reads during the write", []step{{'W', 3, 0}, {'R', 12, 12}, {'R', 13, 13}, {'D', 15, 3}}},
		{"read before the write is left alone", []step{{'R', 5, 5}, {'W', 6, 0}, {'D', 9, 9}}},
		{"failed write pulls nothing", []step{{'W', 0, 0}, {'R', 2, 2}, {'F', 3, 0}, {'W', 5, 0}, {'D', 8, 8}}},
		{"read never before the last Out", []step{{'W', 0, 0}, {'D', 10, 10}, {'R', 9, 10}}},
		{"write never starts before the last Out", []step{{'W', 0, 0}, {'D', 10, 10}, {'W', 9, 0}, {'R', 11, 11}, {'D', 12, 10}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var now time.Duration
			c := sendClock{now: func() time.Duration { return now }}
			for i, s := range tt.steps {
				now = s.now
				var got time.Duration
				switch s.op {
				case 'W':
					c.writeStarted()
				case 'D':
					got = c.writeDone()
				case 'F':
					c.writeFailed()
				case 'R':
					got = c.read()
				}
				if got != s.want {
					t.Errorf("step %d (%c at %v) = %v, want %v", i, s.op, s.now, got, s.want)
				}
			}
		})
	}
}
