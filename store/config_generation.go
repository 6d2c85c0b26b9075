package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// ErrStaleGeneration is wrapped by the StaleGenerationError of a sync whose list is older than
// the one synced last.
var ErrStaleGeneration = errors.New("store: older than the configuration synced last")

// Generation identifies one version of a source's server list: what it holds and when it was
// written. Workers started from different copies of a configuration file sync it one after
// the other; the generation lets the database tell a newer list from one a stale copy holds.
type Generation struct {
	// Hash is a digest of the servers as synced: two lists with the same hash are the same
	// list, whenever they were written.
	Hash string
	// Time is when the list was written (the configuration file's modification time). The
	// database keeps it to the microsecond.
	Time time.Time
	// Worker and Path say who synced the list and from which file, for the messages of a
	// later refusal.
	Worker, Path string
	// SyncedAt is when the database took the list (its clock); set by the store.
	SyncedAt time.Time
}

// StaleGenerationError is a sync refused because its list is older than the one synced last
// and differs from it.
type StaleGenerationError struct {
	Offered, Synced Generation
}

func (e *StaleGenerationError) Error() string {
	return fmt.Sprintf("%s (written %s, servers %s) is older than the configuration synced last (%s, written %s, servers %s, synced by worker %s at %s)",
		e.Offered.Path, stamp(e.Offered.Time), ShortHash(e.Offered.Hash),
		e.Synced.Path, stamp(e.Synced.Time), ShortHash(e.Synced.Hash), e.Synced.Worker, stamp(e.Synced.SyncedAt))
}

func (e *StaleGenerationError) Unwrap() error { return ErrStaleGeneration }

// ShortHash is the first 12 characters of a generation's hash, enough to tell two apart in a
// message.
func ShortHash(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// GenerationSync says what SyncGeneration did.
type GenerationSync struct {
	SyncReport
	// Previous is the generation synced before this one; nil for the first sync of the source.
	Previous *Generation
	// Forced is set when the list was older than Previous and was synced because the caller
	// forced it.
	Forced bool
}

// generationVerdict is how a sync's generation compares with the one synced last.
type generationVerdict int

const (
	generationFirst  generationVerdict = iota // none synced before
	generationSame                            // the same servers, whenever written
	generationNewer                           // written at or after the last one
	generationStale                           // written before the last one, with other servers
	generationForced                          // stale, and forced
)

// judgeGeneration compares the generation a sync offers with the one synced last. Only a
// list both different and written strictly earlier is stale: two workers started from copies
// of one file have the same hash and never refuse each other, whatever the copies' times, and
// a file edited and reloaded is written after the generation it replaces.
func judgeGeneration(offered Generation, synced *Generation, force bool) generationVerdict {
	switch {
	case synced == nil:
		return generationFirst
	case offered.Hash == synced.Hash:
		return generationSame
	case !offered.Time.Before(synced.Time):
		return generationNewer
	case force:
		return generationForced
	default:
		return generationStale
	}
}

// SyncGeneration is SyncServers for a list of a known generation: unless force is set, a list
// that differs from the one synced last and was written before it is refused with a
// *StaleGenerationError (wrapping ErrStaleGeneration), and nothing changes. Syncs of one
// source take turns, so of two at once the second is judged against the first. The
// generation recorded is the one synced, forced ones included; a list the same as the one
// synced last moves its recorded time forward only.
func (s *Store) SyncGeneration(ctx context.Context, source string, servers []Server, gen Generation, force bool) (GenerationSync, error) {
	servers, err := syncList(source, servers)
	if err != nil {
		return GenerationSync{}, err
	}
	if gen.Hash == "" {
		return GenerationSync{}, fmt.Errorf("%w: sync of %s servers without a generation hash", ErrInvalidServer, source)
	}
	gen.Time = gen.Time.UTC().Truncate(time.Microsecond) // what the database keeps
	var out GenerationSync
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		out = GenerationSync{}
		// Self-conflicting: a second sync waits for the first to commit, then reads its row.
		if _, err := tx.Exec(ctx, `LOCK TABLE config_generations IN SHARE ROW EXCLUSIVE MODE`); err != nil {
			return fmt.Errorf("lock generations: %w", err)
		}
		var prev Generation
		err := tx.QueryRow(ctx, `SELECT hash, generated_at, worker, path, synced_at FROM config_generations WHERE source = $1`,
			source).Scan(&prev.Hash, &prev.Time, &prev.Worker, &prev.Path, &prev.SyncedAt)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
		case err != nil:
			return fmt.Errorf("read generation: %w", err)
		default:
			out.Previous = &prev
		}
		verdict := judgeGeneration(gen, out.Previous, force)
		if verdict == generationStale {
			return &StaleGenerationError{Offered: gen, Synced: prev}
		}
		out.Forced = verdict == generationForced
		if out.SyncReport, err = syncServersTx(ctx, tx, source, servers); err != nil {
			return err
		}
		if verdict == generationSame && gen.Time.Before(prev.Time) {
			return nil // an older copy of the same list: the record stays the newest
		}
		if _, err := tx.Exec(ctx, `INSERT INTO config_generations (source, hash, generated_at, worker, path)
			VALUES ($1, $2, $3, $4, $5)
			ON CONFLICT (source) DO UPDATE SET hash = excluded.hash, generated_at = excluded.generated_at,
				worker = excluded.worker, path = excluded.path, synced_at = now()`,
			source, gen.Hash, gen.Time, gen.Worker, gen.Path); err != nil {
			return fmt.Errorf("record generation: %w", err)
		}
		return nil
	})
	if errors.Is(err, ErrStaleGeneration) {
		return out, err // out.Previous says what the database has
	}
	if err != nil {
		return GenerationSync{}, fmt.Errorf("store: sync %s servers: %w", source, err)
	}
	return out, nil
}

// ConfigGeneration returns the generation of a source's list synced last, or ErrNotFound
// when none was.
func (s *Store) ConfigGeneration(ctx context.Context, source string) (Generation, error) {
	var g Generation
	err := s.pool.QueryRow(ctx, `SELECT hash, generated_at, worker, path, synced_at FROM config_generations WHERE source = $1`,
		source).Scan(&g.Hash, &g.Time, &g.Worker, &g.Path, &g.SyncedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return Generation{}, fmt.Errorf("generation of %s servers: %w", source, ErrNotFound)
	}
	if err != nil {
		return Generation{}, fmt.Errorf("store: generation of %s servers: %w", source, err)
	}
	return g, nil
}
