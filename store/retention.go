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
