package store

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"time"
)

// ErrBadCursor means a page cursor was not one RunPage made.
var ErrBadCursor = errors.New("store: bad page cursor")

// RunCursor is where a page of runs ends: the next page starts after it. Runs are ordered by
// start time and then id, so runs that started in the same microsecond are neither skipped
// nor repeated.
type RunCursor struct {
	Start time.Time
	ID    RunID
}

// String encodes the cursor for a URL.
func (c RunCursor) String() string {
	var b [24]byte
	binary.BigEndian.PutUint64(b[:8], uint64(c.Start.UnixMicro()))
	copy(b[8:], c.ID[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// ParseRunCursor reads a cursor made by String.
func ParseRunCursor(s string) (RunCursor, error) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(b) != 24 {
		return RunCursor{}, fmt.Errorf("%w: %q", ErrBadCursor, s)
	}
	var c RunCursor
	c.Start = time.UnixMicro(int64(binary.BigEndian.Uint64(b[:8]))).UTC()
	copy(c.ID[:], b[8:])
	return c, nil
}

// RunPageQuery selects a page of one server's runs, newest first.
type RunPageQuery struct {
	ServerID int64
	// Region and Outcome filter when set.
	Region  string
	Outcome string
	// After is the cursor of the previous page's last run (nil for the first page).
	After *RunCursor
	// Limit caps the page (at most MaxRunsPerQuery; 0 means 50).
	Limit int
}

// RunPage returns a page of runs and the cursor of the next page (nil on the last one).
func (s *Store) RunPage(ctx context.Context, q RunPageQuery) ([]RunRecord, *RunCursor, error) {
	limit := q.Limit
	if limit <= 0 {
		limit = 50
	}
	limit = min(limit, MaxRunsPerQuery)
	var afterStart *time.Time
	var afterID RunID
	if q.After != nil {
		afterStart, afterID = &q.After.Start, q.After.ID
	}
	// One more row than the page tells whether there is a next page.
	rows, err := s.pool.Query(ctx, `SELECT `+runColumns+` FROM runs r
		WHERE r.server_id = $1 AND ($2 = '' OR r.region = $2) AND ($3 = '' OR r.outcome = $3)
			AND ($4::timestamptz IS NULL OR r.started_at <= $4 AND (r.started_at, r.id) < ($4, $5::uuid))
		ORDER BY r.started_at DESC, r.id DESC LIMIT $6`,
		q.ServerID, q.Region, q.Outcome, afterStart, afterID, limit+1)
	if err != nil {
		return nil, nil, fmt.Errorf("store: runs of server %d: %w", q.ServerID, err)
	}
	var runs []RunRecord
	if err := forEachRun(rows, func(r RunRecord) { runs = append(runs, r) }); err != nil {
		return nil, nil, fmt.Errorf("store: runs of server %d: %w", q.ServerID, err)
	}
	if len(runs) <= limit {
		return runs, nil, nil
	}
	runs = runs[:limit]
	last := runs[limit-1]
	return runs, &RunCursor{Start: last.Start, ID: last.ID}, nil
}
