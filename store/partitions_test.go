package store

import (
	"slices"
	"testing"
	"time"
)

func TestMaintainDropsOnlyWholeOldPartitions(t *testing.T) {
	t.Parallel()
	s, ctx := newTestStore(t)
	now := time.Date(2026, 3, 15, 10, 0, 0, 0, time.UTC)
	cutoff := now.Add(-DefaultRawRetention) // 2026-02-13 10:00
	rollupCutoff := now.Add(-DefaultRollupRetention)
	runs := map[string]RunRecord{
		"before the cutoff's day":              sampleRun(1, "eu", time.Date(2026, 2, 12, 23, 59, 59, 0, time.UTC), OutcomeUp, time.Second),
		"on the cutoff's day, before it":       sampleRun(1, "eu", time.Date(2026, 2, 13, 1, 0, 0, 0, time.UTC), OutcomeUp, time.Second),
		"on the cutoff's day, after it":        sampleRun(1, "eu", cutoff.Add(time.Minute), OutcomeUp, time.Second),
		"now":                                  sampleRun(1, "eu", now, OutcomeDown, time.Second),
		"in the rollup cutoff's hour":          sampleRun(2, "eu", rollupCutoff.Add(time.Minute), OutcomeUp, time.Second),
		"in the hour before the rollup cutoff": sampleRun(2, "eu", rollupCutoff.Add(-time.Minute), OutcomeUp, time.Second),
	}
	for _, r := range runs {
		if _, err := s.WriteRuns(ctx, []RunRecord{r}); err != nil {
			t.Fatal(err)
		}
	}
	// A partition someone made by hand is not the store's to drop.
	if _, err := s.pool.Exec(ctx, `CREATE TABLE runs_archive PARTITION OF runs FOR VALUES FROM ('2019-01-01') TO ('2019-02-01')`); err != nil {
		t.Fatal(err)
	}

	report, err := s.Maintain(ctx, now, Retention{})
	if err != nil {
		t.Fatalf("Maintain: %v", err)
	}
	wantDropped := []string{"run_finding_refs_p20250208", "run_finding_refs_p20260212", "run_step_sets_p20250208", "run_step_sets_p20260212",
		"runs_p20250208", "runs_p20260212"}
	slices.Sort(report.Dropped)
	if !slices.Equal(report.Dropped, wantDropped) {
		t.Errorf("dropped %v, want %v", report.Dropped, wantDropped)
	}
	if report.RollupsDeleted != 1 {
		t.Errorf("deleted %d rollups, want 1 (the hour that ended at the rollup cutoff)", report.RollupsDeleted)
	}

	parts, err := s.Partitions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	days := map[string]int{}
	for _, p := range parts {
		days[p.Day.Format("2006-01-02")]++
	}
	wantDays := map[string]int{"2026-02-13": 3, "2026-03-15": 3, "2026-03-16": 3, "2026-03-17": 3}
	if len(days) != len(wantDays) {
		t.Errorf("partitions by day %v, want %v", days, wantDays)
	}
	for d, n := range wantDays {
		if days[d] != n {
			t.Errorf("partitions by day %v, want %v", days, wantDays)
			break
		}
	}
	for name, r := range runs {
		_, err := s.Run(ctx, r.ID)
		kept := err == nil
		wantKept := r.Start.After(time.Date(2026, 2, 13, 0, 0, 0, 0, time.UTC))
		if kept != wantKept {
			t.Errorf("run %s: kept %v, want %v (err %v)", name, kept, wantKept, err)
		}
	}
	if n := count(t, ctx, s, `SELECT count(*) FROM pg_class WHERE relname = 'runs_archive' AND relnamespace = current_schema()::regnamespace`); n != 1 {
		t.Error("the hand-made partition runs_archive was dropped")
	}

	// Maintenance is idempotent.
	again, err := s.Maintain(ctx, now, Retention{})
	if err != nil || len(again.Dropped) != 0 || again.RollupsDeleted != 0 {
		t.Errorf("second Maintain = %+v, %v; want nothing to do", again, err)
	}
}

func TestEnsurePartitionsFromConcurrentProcesses(t *testing.T) {
	t.Parallel()
	s, ctx := newTestStore(t)
	from := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	errs := make(chan error, 3)
	for range 3 {
		other := New(s.Pool()) // each with its own memory of partitions, as processes have
		go func() { errs <- other.EnsurePartitions(ctx, from, from.Add(2*day)) }()
	}
	for range 3 {
		if err := <-errs; err != nil {
			t.Errorf("EnsurePartitions: %v", err)
		}
	}
	parts, err := s.Partitions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(parts) != 3*len(partitionedTables()) {
		t.Errorf("%d partitions, want %d", len(parts), 3*len(partitionedTables()))
	}
}
