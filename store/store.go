// Package store keeps servers, probe runs, rollups and the work schedule in Postgres (pgx/v5,
// SQL in the open, every query parameterised). It knows SQL and nothing of MCP: runs arrive as
// plain strings and numbers.
//
// The schema comes from package migrations; apply it (migrations.Apply(ctx, s.Pool())) before
// using a Store. A monitor process then:
//
//   - calls Maintain at start and periodically: it creates the daily run partitions ahead and
//     applies retention (WriteRuns also creates a missing partition on demand);
//   - writes the config file's servers with SyncServers(ctx, SourceConfig, servers);
//   - announces its region with RegisterRegion, then loops: Claim due servers (as many as it
//     has free probe slots, with a lease longer than the probe's timeout), probe each, and
//     Complete the lease with the next due time from the server's schedule (Release on
//     shutdown). NextClaimable says how long it may sleep when nothing is due; SkipProbed
//     hands back the slots it probed without a lease while the database was away;
//   - buffers results as RunRecords (ID from SlotRunID of the slot probed, or NewRunID) and
//     writes them in batches with WriteRuns; a failed batch is retried as it is, and ids make
//     the retry harmless, and a slot probed twice stored once. A batch failing with ErrInvalidRun will fail again: drop the run Validate
//     rejects.
package store

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/mcpwatch/mcpwatch/internal/lru"
)

// Sentinel errors callers branch on.
var (
	ErrNotFound      = errors.New("store: not found")
	ErrInvalidServer = errors.New("store: invalid server")
	ErrNameTaken     = errors.New("store: server name belongs to another source")
	ErrInvalidRun    = errors.New("store: invalid run")
	ErrLeaseLost     = errors.New("store: lease lost to another worker")
)

// Store is the database. It is safe for concurrent use.
type Store struct {
	pool *pgxpool.Pool
	// days remembers the days whose run partitions are known to exist, so that WriteRuns
	// issues no DDL on its hot path.
	mu   sync.Mutex
	days map[int64]bool
	// gzips holds *gzip.Writer for transcripts.
	gzips sync.Pool
	// known remembers the shared rows written (see content_keys.go).
	known *lru.Cache[sharedRef, int32]
	// conformance remembers the conformance of the runs of the latest reading of every
	// server's status (see conformanceOfLatest).
	conformance conformanceMemo
	// windowMemo remembers the status sums decoded by the latest reading of every server's
	// status (see windowSums).
	windowMemo windowMemo
	// serversListed is how many servers Servers returned last, to size the next list.
	serversListed atomic.Int64
}

// Open connects to the database at url (a postgres:// URL or keyword/value string; pool
// settings such as pool_max_conns and run-time parameters such as search_path may be given in
// it) and checks that it answers.
func Open(ctx context.Context, url string) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("store: parse database URL: %w", err)
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("store: connect: %w", err)
	}
	s := New(pool)
	if err := s.Ping(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	return s, nil
}

// New wraps a pool the caller made; Close closes it.
func New(pool *pgxpool.Pool) *Store {
	return &Store{pool: pool, days: map[int64]bool{}, known: newKnownRows()}
}

// Pool is the underlying pool, for migrations and for read queries the store does not offer.
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// Close closes the pool.
func (s *Store) Close() { s.pool.Close() }

// Ping checks that the database answers.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.pool.Ping(ctx); err != nil {
		return fmt.Errorf("store: ping: %w", err)
	}
	return nil
}
