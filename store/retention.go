package store

import (
	"context"
	"fmt"
	"time"
)

// Retention says how long data is kept.
type Retention struct {
	// Raw applies to runs, steps, findings and transcripts; whole days go at once.
	Raw time.Duration
	// Rollups applies to the hourly rollups.
	Rollups time.Duration
}

// Default retention.
const (
	DefaultRawRetention    = 30 * day
	DefaultRollupRetention = 400 * day
)

// withDefaults fills zero fields.
func (r Retention) withDefaults() Retention {
	if r.Raw <= 0 {
		r.Raw = DefaultRawRetention
	}
	if r.Rollups <= 0 {
		r.Rollups = DefaultRollupRetention
	}
	return r
}

// MaintenanceReport says what Maintain changed.
type MaintenanceReport struct {
	Dropped        []string // partitions
	RollupsDeleted int64
	// SharedDeleted counts the shared rows (step and finding shapes, messages, transcripts)
	// deleted because no run kept refers to them any more.
	SharedDeleted int64
}

// Maintain creates the run partitions for today and DaysAhead days after, drops the
// partitions older than the raw retention and deletes rollups older than theirs. The monitor
// calls it at start and then periodically (hourly is plenty); any number of processes may.
func (s *Store) Maintain(ctx context.Context, now time.Time, r Retention) (MaintenanceReport, error) {
	r = r.withDefaults()
	var report MaintenanceReport
	if err := s.EnsurePartitions(ctx, now, now.Add(DaysAhead*day)); err != nil {
		return report, err
	}
	dropped, err := s.DropPartitionsBefore(ctx, now.Add(-r.Raw))
	if err != nil {
		return report, err
	}
	report.Dropped = dropped
	if report.SharedDeleted, err = s.DeleteSharedBefore(ctx, now.Add(-r.Raw)); err != nil {
		return report, err
	}
	if report.RollupsDeleted, err = s.DeleteRollupsBefore(ctx, now.Add(-r.Rollups)); err != nil {
		return report, err
	}
	return report, nil
}

// DeleteRollupsBefore deletes the rollups of hours that end at or before cutoff.
func (s *Store) DeleteRollupsBefore(ctx context.Context, cutoff time.Time) (int64, error) {
	tag, err := s.pool.Exec(ctx, `DELETE FROM rollups WHERE hour <= $1::timestamptz - interval '1 hour'`, cutoff)
	if err != nil {
		return 0, fmt.Errorf("store: delete old rollups: %w", err)
	}
	return tag.RowsAffected(), nil
}

// DeleteSharedBefore deletes the shared rows that only runs of days DropPartitionsBefore drops
// for the same cutoff refer to: those whose last_day, the latest day of a run that refers to
// them, is before the day of cutoff. Call it after dropping those partitions. A writer that
// refers to a row again raises its last_day in its own transaction: the row lock orders the
// two, and a row whose last_day was raised is not deleted.
func (s *Store) DeleteSharedBefore(ctx context.Context, cutoff time.Time) (int64, error) {
	keep := int32(dayOf(cutoff))
	var total int64
	for _, table := range []string{"step_shapes", "finding_shapes", "finding_messages", "transcripts"} {
		tag, err := s.pool.Exec(ctx, `DELETE FROM `+table+` WHERE last_day < date '1970-01-01' + $1::int`, keep)
		if err != nil {
			return total, fmt.Errorf("store: delete unused %s: %w", table, err)
		}
		total += tag.RowsAffected()
	}
	return total, nil
}
