package store

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// DaysAhead is how many days after today Maintain keeps partitions for, so that the write
// path never waits for DDL at midnight.
const DaysAhead = 2

// partitionLockClass keys the advisory lock that serialises partition DDL between processes
// (with a hash of the schema as the second key, as migrations do).
const partitionLockClass = 0x6d63_7078

// ddlLockTimeout bounds how long partition DDL waits behind live queries for its lock on the
// parent table; everything queued behind it would wait as long.
const ddlLockTimeout = 10 * time.Second

const day = 24 * time.Hour

// partitionedTables are partitioned by day on started_at; a day's partitions come and go
// together.
func partitionedTables() []string {
	return []string{"runs", "run_step_sets", "run_finding_refs"}
}

// dayOf numbers the UTC day of t.
func dayOf(t time.Time) int64 {
	sec := t.Unix()
	d := sec / 86400
	if sec < 0 && sec%86400 != 0 {
		d--
	}
	return d
}

func dayStart(d int64) time.Time { return time.Unix(d*86400, 0).UTC() }

func partitionName(table string, d int64) string {
	return table + "_p" + dayStart(d).Format("20060102")
}

// Partition is one day's partition of a run table.
type Partition struct {
	Table string // the partitioned table
	Name  string
	Day   time.Time // UTC midnight; the partition holds [Day, Day+24h)
}

// Partitions lists the daily partitions of the run tables, oldest first. Partitions not named
// as the store names them are not listed, and never dropped.
func (s *Store) Partitions(ctx context.Context) ([]Partition, error) {
	var out []Partition
	for _, table := range partitionedTables() {
		rows, err := s.pool.Query(ctx, `SELECT c.relname FROM pg_inherits i
			JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = to_regclass($1)`, table)
		if err != nil {
			return nil, fmt.Errorf("store: list partitions of %s: %w", table, err)
		}
		names, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return nil, fmt.Errorf("store: list partitions of %s: %w", table, err)
		}
		for _, name := range names {
			suffix, ok := strings.CutPrefix(name, table+"_p")
			if !ok {
				continue
			}
			d, err := time.Parse("20060102", suffix)
			if err != nil {
				continue
			}
			out = append(out, Partition{Table: table, Name: name, Day: d})
		}
	}
	slices.SortFunc(out, func(a, b Partition) int {
		if c := a.Day.Compare(b.Day); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	return out, nil
}

// EnsurePartitions creates the partitions of every run table for each UTC day from from
// through to (both included) that lacks them.
func (s *Store) EnsurePartitions(ctx context.Context, from, to time.Time) error {
	var days []int64
	for d := dayOf(from); d <= dayOf(to); d++ {
		days = append(days, d)
	}
	return s.ensureDays(ctx, days)
}

// ensureDays creates the partitions of the days not known to exist, then remembers them.
func (s *Store) ensureDays(ctx context.Context, days []int64) error {
	s.mu.Lock()
	var missing []int64
	for _, d := range days {
		if !s.days[d] {
			missing = append(missing, d)
		}
	}
	s.mu.Unlock()
	if len(missing) == 0 {
		return nil
	}
	var ddl strings.Builder
	for _, d := range missing {
		from, to := dayStart(d), dayStart(d+1)
		for _, table := range partitionedTables() {
			fmt.Fprintf(&ddl, "CREATE TABLE IF NOT EXISTS %s PARTITION OF %s FOR VALUES FROM ('%s') TO ('%s');\n",
				pgx.Identifier{partitionName(table, d)}.Sanitize(), pgx.Identifier{table}.Sanitize(),
				from.Format(time.RFC3339), to.Format(time.RFC3339))
		}
	}
	if err := s.partitionDDL(ctx, ddl.String()); err != nil {
		return fmt.Errorf("store: create partitions: %w", err)
	}
	s.mu.Lock()
	for _, d := range missing {
		s.days[d] = true
	}
	s.mu.Unlock()
	return nil
}

func (s *Store) forgetDays() {
	s.mu.Lock()
	clear(s.days)
	s.mu.Unlock()
}

// partitionDDL runs DDL under the partition lock; a second process creating the same
// partition waits and then finds it there.
func (s *Store) partitionDDL(ctx context.Context, ddl string) error {
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1, hashtext(current_schema()))`, partitionLockClass); err != nil {
			return fmt.Errorf("lock: %w", err)
		}
		if _, err := tx.Exec(ctx, fmt.Sprintf(`SET LOCAL lock_timeout = '%dms'`, ddlLockTimeout.Milliseconds())); err != nil {
			return fmt.Errorf("set lock timeout: %w", err)
		}
		if _, err := tx.Exec(ctx, ddl); err != nil {
			return err
		}
		return nil
	})
}

// DropPartitionsBefore drops the day partitions that hold only times before cutoff: a
// partition whose day ends after cutoff stays whole, so retention never removes part of a day.
// It returns the names dropped.
func (s *Store) DropPartitionsBefore(ctx context.Context, cutoff time.Time) ([]string, error) {
	parts, err := s.Partitions(ctx)
	if err != nil {
		return nil, err
	}
	var ddl strings.Builder
	var dropped []string
	for _, p := range parts {
		if p.Day.Add(day).After(cutoff) {
			continue
		}
		fmt.Fprintf(&ddl, "DROP TABLE IF EXISTS %s;\n", pgx.Identifier{p.Name}.Sanitize())
		dropped = append(dropped, p.Name)
	}
	if len(dropped) == 0 {
		return nil, nil
	}
	if err := s.partitionDDL(ctx, ddl.String()); err != nil {
		return nil, fmt.Errorf("store: drop partitions: %w", err)
	}
	s.mu.Lock()
	for _, p := range parts {
		if !p.Day.Add(day).After(cutoff) {
			delete(s.days, dayOf(p.Day))
		}
	}
	s.mu.Unlock()
	return dropped, nil
}
