package store

import (
	"slices"
	"testing"
	"time"
)

func TestWriteRunsStoresWhatRunsShareOnce(t *testing.T) {
	t.Parallel()
	s, ctx := newTestStore(t)
	start := time.Now().UTC().Add(-time.Hour)
	a := sampleRun(1, "eu", start, OutcomeDegraded, time.Second)
	b := sampleRun(2, "us", start.Add(time.Second), OutcomeDegraded, 2*time.Second)
	// Latencies and the order of the steps are the run's own: the concurrent rule probes of
	// a probe finish in any order.
	b.Steps = []StepRecord{b.Steps[2], b.Steps[0], b.Steps[1]}
	b.Steps[1].Latency = 40 * time.Millisecond
	c := sampleRun(3, "eu", start.Add(2*time.Second), OutcomeDegraded, time.Second)
	c.Findings = slices.Clone(c.Findings)
	c.Findings[1].Message = "tools/list failed differently"
	c.Transcript = []byte(`{"frames":["another"]}`)
	// Written by two Stores, as two monitor processes would: neither knows what the other wrote.
	if _, err := s.WriteRuns(ctx, []RunRecord{a, b}); err != nil {
		t.Fatal(err)
	}
	if _, err := New(s.Pool()).WriteRuns(ctx, []RunRecord{c}); err != nil {
		t.Fatal(err)
	}
	for query, want := range map[string]int{
		`SELECT count(*) FROM step_shapes`:    1,
		`SELECT count(*) FROM finding_shapes`: 1,
		// a and b share both their messages; c, from a Store that never saw a message,
		// keeps both in its run.
		`SELECT count(*) FROM finding_messages`: 2,
		`SELECT count(*) FROM run_finding_refs WHERE own_messages[1] IS NOT NULL AND own_messages[2] IS NOT NULL`: 1,
		`SELECT count(*) FROM transcripts`:     2,
		`SELECT count(*) FROM run_steps`:       9,
		`SELECT count(*) FROM run_transcripts`: 3,
	} {
		if got := count(t, ctx, s, query); got != want {
			t.Errorf("%s = %d, want %d", query, got, want)
		}
	}
	for _, want := range []RunRecord{a, b, c} {
		got, err := s.Run(ctx, want.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.EqualFunc(got.Steps, want.Steps, sameStep) || !slices.Equal(got.Findings, want.Findings) {
			t.Errorf("run %s read back steps %+v findings %+v, want %+v %+v", want.ID, got.Steps, got.Findings, want.Steps, want.Findings)
		}
		raw, err := s.Transcript(ctx, want.ID)
		if err != nil || string(raw) != string(want.Transcript) {
			t.Errorf("transcript of %s = %q, %v; want %q", want.ID, raw, err, want.Transcript)
		}
	}
}

func sameStep(x, y StepRecord) bool {
	eqInt := func(a, b *int) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }
	eqInt64 := func(a, b *int64) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }
	return x.Name == y.Name && x.Method == y.Method && x.Outcome == y.Outcome && x.Latency == y.Latency &&
		eqInt64(x.ErrorCode, y.ErrorCode) && eqInt(x.HTTPStatus, y.HTTPStatus)
}

func TestRetentionKeepsSharedRowsWhileAKeptRunRefersToThem(t *testing.T) {
	t.Parallel()
	s, ctx := newTestStore(t)
	now := time.Date(2026, 3, 16, 12, 0, 0, 0, time.UTC)
	old := now.Add(-40 * day) // beyond the default raw retention of 30 days
	recent := now.Add(-2 * day)
	// The old run and the recent one share everything; the other old run has a message and a
	// transcript of its own, and a step that failed. Written by one Store, which raises
	// the last day of the rows it remembers when the recent run refers to them.
	shared := sampleRun(1, "eu", old, OutcomeDegraded, time.Second)
	kept := sampleRun(1, "eu", recent, OutcomeDegraded, time.Second)
	alone := sampleRun(2, "eu", old.Add(time.Minute), OutcomeDegraded, time.Second)
	alone.Steps = slices.Clone(alone.Steps)
	alone.Steps[0].Outcome = "transport"
	alone.Findings = slices.Clone(alone.Findings)
	alone.Findings[1].Message = "only in an old run"
	alone.Transcript = []byte(`{"old":true}`)
	// Twice, so that its message is shared rather than kept in the run.
	alone2 := alone
	alone2.ID, alone2.Start = NewRunID(alone.Start.Add(time.Minute)), alone.Start.Add(time.Minute)
	if _, err := s.WriteRuns(ctx, []RunRecord{shared, alone, alone2}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.WriteRuns(ctx, []RunRecord{kept}); err != nil {
		t.Fatal(err)
	}
	report, err := s.Maintain(ctx, now, Retention{})
	if err != nil {
		t.Fatal(err)
	}
	// alone's step shape, message and transcript go; what kept refers to stays.
	if report.SharedDeleted != 3 {
		t.Errorf("deleted %d shared rows, want 3", report.SharedDeleted)
	}
	got, err := s.Run(ctx, kept.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.EqualFunc(got.Steps, kept.Steps, sameStep) || !slices.Equal(got.Findings, kept.Findings) {
		t.Errorf("the kept run reads back %+v %+v, want %+v %+v", got.Steps, got.Findings, kept.Steps, kept.Findings)
	}
	if raw, err := s.Transcript(ctx, kept.ID); err != nil || string(raw) != string(kept.Transcript) {
		t.Errorf("the kept run's transcript = %q, %v", raw, err)
	}
	for query, want := range map[string]int{
		`SELECT count(*) FROM step_shapes`:      1,
		`SELECT count(*) FROM finding_messages`: 2,
		`SELECT count(*) FROM transcripts`:      1,
	} {
		if got := count(t, ctx, s, query); got != want {
			t.Errorf("%s = %d, want %d", query, got, want)
		}
	}
}

func TestAWriterThatRemembersASharedRowRaisesItsDayForALaterRun(t *testing.T) {
	t.Parallel()
	s, ctx := newTestStore(t)
	now := time.Date(2026, 3, 16, 12, 0, 0, 0, time.UTC)
	first := sampleRun(1, "eu", now.Add(-31*day), OutcomeDegraded, time.Second)
	later := sampleRun(1, "eu", now.Add(-day), OutcomeDegraded, time.Second)
	// One Store writes both: the second run's day is later than what it remembers, so it
	// must raise last_day, or retention would take the rows from under the later run.
	for _, r := range []RunRecord{first, later} {
		if _, err := s.WriteRuns(ctx, []RunRecord{r}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Maintain(ctx, now, Retention{}); err != nil {
		t.Fatal(err)
	}
	got, err := s.Run(ctx, later.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Steps) != 3 || !slices.Equal(got.Findings, later.Findings) {
		t.Errorf("the later run reads back %+v %+v after retention", got.Steps, got.Findings)
	}
}
