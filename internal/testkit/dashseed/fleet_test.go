package dashseed

import (
	"reflect"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/store"
)

func TestRunTimesAreDenseRecentlyAndSparseBefore(t *testing.T) {
	t.Parallel()
	now := time.Date(2025, 11, 20, 12, 34, 56, 0, time.UTC)
	times := RunTimes(now)
	if first := times[0]; now.Sub(first) > historyDays*24*time.Hour || now.Sub(first) < (historyDays-1)*24*time.Hour {
		t.Errorf("history starts %v before now", now.Sub(first))
	}
	if last := times[len(times)-1]; last.After(now) || now.Sub(last) >= recentEvery {
		t.Errorf("history ends %v before now", now.Sub(last))
	}
	for i := 1; i < len(times); i++ {
		gap := times[i].Sub(times[i-1])
		want := olderEvery
		if now.Sub(times[i]) <= 24*time.Hour {
			want = recentEvery
		}
		if gap <= 0 || gap > want {
			t.Fatalf("gap of %v before %v (want at most %v)", gap, times[i], want)
		}
	}
}

func TestHistoryIsTheSameAtEverySeeding(t *testing.T) {
	t.Parallel()
	now := time.Date(2025, 11, 20, 12, 0, 0, 0, time.UTC)
	up := store.RunRecord{Outcome: store.OutcomeUp, Transcript: []byte("{}"), Steps: []store.StepRecord{{Name: "initialize"}}}
	down := store.RunRecord{Outcome: store.OutcomeDown, Transcript: []byte("{}"), Steps: []store.StepRecord{{Name: "initialize"}}}
	p := Plan{Name: "x", Regions: []string{"eu", "us"}, Latency: 100 * time.Millisecond, Answer: 25 * time.Millisecond,
		Pick: func(t time.Time, region string) *store.RunRecord {
			if region == "us" && t.After(now.Add(-time.Hour)) {
				return &down
			}
			return &up
		}}
	a, b := History(7, p, now), History(7, p, now)
	want := 0
	for _, at := range RunTimes(now) {
		for ri := range p.Regions {
			// Regions start a few seconds apart; a run that would start after now does not.
			if !at.Add(time.Duration(ri)*7*time.Second + 3*time.Second).After(now) {
				want++
			}
		}
	}
	if len(a) != len(b) || len(a) != want {
		t.Fatalf("%d and %d runs, want %d", len(a), len(b), want)
	}
	for i := range a {
		a[i].ID, b[i].ID = store.RunID{}, store.RunID{} // ids are random by design
		if !reflect.DeepEqual(a[i], b[i]) {
			t.Fatalf("run %d differs between two seedings:\n%+v\n%+v", i, a[i], b[i])
		}
		r := a[i]
		if r.ServerID != 7 || r.Start.After(now) {
			t.Errorf("run %d: %+v", i, r)
		}
		if old := now.Sub(r.Start) > detailAge; old != (r.Transcript == nil && r.Steps == nil) {
			t.Errorf("run %d, %v old: details kept %v", i, now.Sub(r.Start), !old)
		}
		if r.Region == "us" && r.Start.After(now.Add(-time.Hour)) && r.Outcome != store.OutcomeDown {
			t.Errorf("run %d should be the down sample", i)
		}
		// A run that reached the server answered within its probe; a down one did not answer.
		if reached := r.Outcome != store.OutcomeDown; reached != (r.AnswerTime > 0) || r.AnswerTime > r.Duration {
			t.Errorf("run %d (%s): answer time %v of a probe of %v", i, r.Outcome, r.AnswerTime, r.Duration)
		}
	}
}
