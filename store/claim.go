package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
)

// Lease is a worker's hold on one (server, region) slot, from Claim until Complete or Release
// or until it expires, after which any worker of the region may claim the slot again.
type Lease struct {
	ServerID int64
	Region   string
	Worker   string
	// Seq numbers the claims of the slot; Complete and Release act only on the claim they
	// were given, never on a later one by another worker.
	Seq   int64
	Until time.Time
	// Due is when the slot was due.
	Due time.Time
}

// Claimed is a due server with the lease on it.
type Claimed struct {
	Server Server
	Lease  Lease
	// LastOutcome is the outcome of the last run completed in the slot ("" when none was):
	// a run whose outcome differs keeps its transcript under the `changes` policy.
	LastOutcome string
}

// RegisterRegion announces that workers of a region exist, so that every enabled server gets
// a schedule slot in it (due at once). A worker calls it at start, before Claim; calling it
// again is harmless and fills any slot that is missing.
//
// The SHARE lock on servers stops server writes for the moment it takes to fill the slots:
// without it a server added concurrently could see no region while the region sees no server.
func (s *Store) RegisterRegion(ctx context.Context, region string) error {
	if region == "" {
		return fmt.Errorf("store: register region: empty name")
	}
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `LOCK TABLE servers IN SHARE MODE`); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO regions (name) VALUES ($1)
			ON CONFLICT (name) DO UPDATE SET last_seen = now()`, region); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `INSERT INTO schedule (server_id, region, next_due)
			SELECT id, $1, now() FROM servers WHERE enabled ON CONFLICT DO NOTHING`, region)
		return err
	})
	if err != nil {
		return fmt.Errorf("store: register region %q: %w", region, err)
	}
	return nil
}

// Claim leases up to limit servers that are due in region and not leased (or whose lease
// expired), for the given lease duration, to worker. Concurrent claimers never get the same
// slot: rows another transaction is claiming are skipped, not waited for. The lease should
// outlast the probe (its timeout plus the time to write the result); a worker killed mid-probe
// loses its slots when their leases expire. Servers come back most overdue first.
func (s *Store) Claim(ctx context.Context, region, worker string, limit int, lease time.Duration) ([]Claimed, error) {
	if limit <= 0 {
		return nil, nil
	}
	if lease < time.Millisecond {
		return nil, fmt.Errorf("store: claim: lease %v is below 1ms", lease)
	}
	rows, err := s.pool.Query(ctx, `WITH due AS (
			SELECT server_id, region FROM schedule
			WHERE region = $1 AND claimable_at <= now()
			ORDER BY claimable_at
			LIMIT $2
			FOR UPDATE SKIP LOCKED
		)
		UPDATE schedule AS sc
		SET lease_until = now() + $3 * interval '1 microsecond', leased_by = $4, lease_seq = sc.lease_seq + 1
		FROM due, servers v
		WHERE sc.server_id = due.server_id AND sc.region = due.region AND v.id = sc.server_id
		RETURNING `+serverColumns+`, sc.lease_seq, sc.lease_until, sc.next_due, coalesce(sc.last_outcome, '')`,
		region, limit, lease.Microseconds(), worker)
	if err != nil {
		return nil, fmt.Errorf("store: claim in %q: %w", region, err)
	}
	defer rows.Close()
	var out []Claimed
	for rows.Next() {
		c := Claimed{Lease: Lease{Region: region, Worker: worker}}
		if err := scanServer(rows, &c.Server, &c.Lease.Seq, &c.Lease.Until, &c.Lease.Due, &c.LastOutcome); err != nil {
			return nil, fmt.Errorf("store: claim in %q: %w", region, err)
		}
		c.Lease.ServerID = c.Server.ID
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: claim in %q: %w", region, err)
	}
	slices.SortFunc(out, func(a, b Claimed) int { return a.Lease.Due.Compare(b.Lease.Due) })
	return out, nil
}

// Complete ends a lease and sets when the server is next due in the lease's region, and
// records the outcome of the run the lease made, which the next Claim of the slot returns as
// LastOutcome ("" made no run and leaves the one recorded). It returns ErrLeaseLost when the
// lease is no longer held: the slot was claimed again after the lease expired (the newer
// claim decides the next due time), the lease was completed or released already, or the
// server was disabled or deleted meanwhile.
func (s *Store) Complete(ctx context.Context, l Lease, nextDue time.Time, outcome string) error {
	done, err := s.CompleteLeases(ctx, []Completion{{Lease: l, NextDue: nextDue, Outcome: outcome}})
	if err != nil {
		return err
	}
	if !done[0] {
		return fmt.Errorf("server %d in %q: %w", l.ServerID, l.Region, ErrLeaseLost)
	}
	return nil
}

// Completion is a lease to end, as Complete ends it.
type Completion struct {
	Lease   Lease
	NextDue time.Time
	Outcome string
}

// CompleteLeases is Complete for many leases in one statement: a worker completes its slots
// in batches, one round trip for all the runs one write made durable. done[i] says whether
// cs[i] was completed; a lease that was not is lost, as Complete's ErrLeaseLost says.
func (s *Store) CompleteLeases(ctx context.Context, cs []Completion) (done []bool, err error) {
	if len(cs) == 0 {
		return nil, nil
	}
	ids, seqs := make([]int64, len(cs)), make([]int64, len(cs))
	regions, outcomes := make([]string, len(cs)), make([]string, len(cs))
	nexts := make([]time.Time, len(cs))
	for i, c := range cs {
		ids[i], regions[i], seqs[i], nexts[i], outcomes[i] = c.Lease.ServerID, c.Lease.Region, c.Lease.Seq, c.NextDue, c.Outcome
	}
	// ord is the completion's index in cs, so that what the update returns maps back.
	rows, err := s.pool.Query(ctx, `UPDATE schedule AS sc SET next_due = c.next, lease_until = NULL, leased_by = NULL,
			last_outcome = coalesce(nullif(c.outcome, ''), sc.last_outcome)
		FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::timestamptz[], $5::text[])
			WITH ORDINALITY AS c (server_id, region, seq, next, outcome, ord)
		WHERE sc.server_id = c.server_id AND sc.region = c.region AND sc.lease_seq = c.seq AND sc.lease_until IS NOT NULL
		RETURNING c.ord`,
		ids, regions, seqs, nexts, outcomes)
	if err != nil {
		return nil, fmt.Errorf("store: complete %d leases: %w", len(cs), err)
	}
	defer rows.Close()
	done = make([]bool, len(cs))
	for rows.Next() {
		var ord int64
		if err := rows.Scan(&ord); err != nil {
			return nil, fmt.Errorf("store: complete %d leases: %w", len(cs), err)
		}
		if ord >= 1 && ord <= int64(len(cs)) {
			done[ord-1] = true
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: complete %d leases: %w", len(cs), err)
	}
	return done, nil
}

// Release gives a lease back unused (a worker shutting down): the slot becomes claimable at
// once if it is due. It returns ErrLeaseLost as Complete does.
func (s *Store) Release(ctx context.Context, l Lease) error {
	tag, err := s.pool.Exec(ctx, `UPDATE schedule SET lease_until = NULL, leased_by = NULL
		WHERE server_id = $1 AND region = $2 AND lease_seq = $3 AND lease_until IS NOT NULL`,
		l.ServerID, l.Region, l.Seq)
	if err != nil {
		return fmt.Errorf("store: release server %d in %q: %w", l.ServerID, l.Region, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("server %d in %q: %w", l.ServerID, l.Region, ErrLeaseLost)
	}
	return nil
}

// NextClaimable returns when the next slot of region becomes claimable (possibly in the past),
// so a worker with nothing to do can sleep until then; ok is false when the region has no
// slots.
func (s *Store) NextClaimable(ctx context.Context, region string) (at time.Time, ok bool, err error) {
	err = s.pool.QueryRow(ctx, `SELECT claimable_at FROM schedule WHERE region = $1
		ORDER BY claimable_at LIMIT 1`, region).Scan(&at)
	if errors.Is(err, pgx.ErrNoRows) {
		return time.Time{}, false, nil
	}
	if err != nil {
		return time.Time{}, false, fmt.Errorf("store: next claimable in %q: %w", region, err)
	}
	return at, true, nil
}

// ProbedSlot is a slot a worker probed without a lease, while it could not reach the
// database, and the server's next slot after it.
type ProbedSlot struct {
	ServerID int64
	Due      time.Time
	Next     time.Time
}

// SkipProbed moves each server's next due time in region to its Next, where the slot due is
// still waiting (next due at or before Due) and no lease on it is live: what a worker probed
// while the database was away is not probed again by whoever claims next. A slot someone
// else has claimed or completed since is left to them.
func (s *Store) SkipProbed(ctx context.Context, region string, slots []ProbedSlot) error {
	if len(slots) == 0 {
		return nil
	}
	ids := make([]int64, len(slots))
	dues := make([]time.Time, len(slots))
	nexts := make([]time.Time, len(slots))
	for i, p := range slots {
		ids[i], dues[i], nexts[i] = p.ServerID, p.Due, p.Next
	}
	_, err := s.pool.Exec(ctx, `UPDATE schedule AS sc SET next_due = p.next
		FROM unnest($2::bigint[], $3::timestamptz[], $4::timestamptz[]) AS p (server_id, due, next)
		WHERE sc.region = $1 AND sc.server_id = p.server_id AND sc.next_due <= p.due
			AND (sc.lease_until IS NULL OR sc.lease_until <= now())`,
		region, ids, dues, nexts)
	if err != nil {
		return fmt.Errorf("store: skip probed slots in %q: %w", region, err)
	}
	return nil
}
