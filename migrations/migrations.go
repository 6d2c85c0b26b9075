// Package migrations holds the database schema as numbered SQL files and applies the missing
// ones in order. Files are embedded, so the binary carries the schema it expects.
//
// Rules for a new file (NNNN_what.sql): it runs inside one transaction with the others still
// pending, on a database that may be serving live traffic, so it must be additive and quick
// (no table rewrites, no CREATE INDEX CONCURRENTLY, which cannot run in a transaction; no
// schema-qualified names, so that tests can migrate a schema of their own). A file, once
// applied anywhere, is never edited: Apply refuses a changed checksum. 0009 is the one
// exception to "quick": it moves the stored runs into a new shape, and says so.
package migrations

import (
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

//go:embed *.sql
var files embed.FS

// ErrChecksumMismatch means an applied migration's file was edited afterwards.
var ErrChecksumMismatch = errors.New("migrations: applied migration was changed")

// Migration is one embedded SQL file.
type Migration struct {
	Version  int
	Name     string // the file name
	SQL      string
	Checksum string // hex SHA-256 of SQL
}

// Report says what Apply did.
type Report struct {
	// Applied lists the migrations this call applied, in order.
	Applied []Migration
	// Version is the highest version recorded after the call. It can be above the highest
	// embedded version when a newer binary migrated first; older binaries keep working
	// because migrations are additive.
	Version int
}

// Beginner opens a transaction: *pgxpool.Pool and *pgx.Conn both are one.
type Beginner interface {
	Begin(ctx context.Context) (pgx.Tx, error)
}

// lockClass is the first key of the advisory lock; the second is a hash of the schema, so
// processes migrating the same schema wait for each other and separate schemas do not.
const lockClass = 0x6d63_7077 // "mcpw"

// lockTimeout bounds how long one migration statement may wait for a table lock held by live
// traffic: failing the start is better than stalling every query queued behind the migration.
const lockTimeout = 15 * time.Second

// fileVersion is the version of a migration file named NNNN_name.sql (name: a-z, 0-9, _), and
// whether it is so named.
func fileVersion(name string) (int, bool) {
	base, ok := strings.CutSuffix(name, ".sql")
	if !ok || len(base) < 6 || base[4] != '_' {
		return 0, false
	}
	v := 0
	for _, c := range []byte(base[:4]) {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int(c-'0')
	}
	for _, c := range []byte(base[5:]) {
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_') {
			return 0, false
		}
	}
	return v, true
}

// All returns the embedded migrations in version order.
func All() ([]Migration, error) {
	return load(files)
}

func load(fsys fs.FS) ([]Migration, error) {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, fmt.Errorf("migrations: list: %w", err)
	}
	var out []Migration
	seen := map[int]string{}
	for _, e := range entries {
		v, named := fileVersion(e.Name())
		if !named {
			return nil, fmt.Errorf("migrations: file %q is not named NNNN_name.sql", e.Name())
		}
		if v == 0 {
			return nil, fmt.Errorf("migrations: file %q: versions start at 0001", e.Name())
		}
		if prev, dup := seen[v]; dup {
			return nil, fmt.Errorf("migrations: %q and %q share version %d", prev, e.Name(), v)
		}
		seen[v] = e.Name()
		body, err := fs.ReadFile(fsys, e.Name())
		if err != nil {
			return nil, fmt.Errorf("migrations: read %s: %w", e.Name(), err)
		}
		sum := sha256.Sum256(body)
		out = append(out, Migration{Version: v, Name: e.Name(), SQL: string(body), Checksum: hex.EncodeToString(sum[:])})
	}
	slices.SortFunc(out, func(a, b Migration) int { return a.Version - b.Version })
	return out, nil
}

// Apply applies the embedded migrations that the database has not recorded yet.
func Apply(ctx context.Context, db Beginner) (Report, error) {
	all, err := All()
	if err != nil {
		return Report{}, err
	}
	return apply(ctx, db, all)
}

// apply runs everything in one transaction: the advisory lock is released with it, and a
// failing migration leaves the database exactly as it was.
func apply(ctx context.Context, db Beginner, all []Migration) (Report, error) {
	tx, err := db.Begin(ctx)
	if err != nil {
		return Report{}, fmt.Errorf("migrations: begin: %w", err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck // a no-op after Commit

	// The lock comes before anything else, the CREATE TABLE IF NOT EXISTS included: two
	// transactions creating the same table at once make one of them fail.
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1, hashtext(current_schema()))`, lockClass); err != nil {
		return Report{}, fmt.Errorf("migrations: lock: %w", err)
	}
	if _, err := tx.Exec(ctx, fmt.Sprintf(`SET LOCAL lock_timeout = '%dms'`, lockTimeout.Milliseconds())); err != nil {
		return Report{}, fmt.Errorf("migrations: set lock timeout: %w", err)
	}
	if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version    integer PRIMARY KEY,
		name       text NOT NULL,
		checksum   text NOT NULL,
		applied_at timestamptz NOT NULL DEFAULT now()
	)`); err != nil {
		return Report{}, fmt.Errorf("migrations: create schema_migrations: %w", err)
	}

	applied := map[int]string{}
	rows, err := tx.Query(ctx, `SELECT version, checksum FROM schema_migrations`)
	if err != nil {
		return Report{}, fmt.Errorf("migrations: read schema_migrations: %w", err)
	}
	var version, highest int
	var sum string
	if _, err := pgx.ForEachRow(rows, []any{&version, &sum}, func() error {
		applied[version] = sum
		highest = max(highest, version)
		return nil
	}); err != nil {
		return Report{}, fmt.Errorf("migrations: read schema_migrations: %w", err)
	}

	var report Report
	for _, m := range all {
		if got, ok := applied[m.Version]; ok {
			if got != m.Checksum {
				return Report{}, fmt.Errorf("%w: %s (recorded %.12s, file %.12s)", ErrChecksumMismatch, m.Name, got, m.Checksum)
			}
			continue
		}
		if _, err := tx.Exec(ctx, m.SQL); err != nil {
			return Report{}, fmt.Errorf("migrations: apply %s: %w", m.Name, err)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)`,
			m.Version, m.Name, m.Checksum); err != nil {
			return Report{}, fmt.Errorf("migrations: record %s: %w", m.Name, err)
		}
		report.Applied = append(report.Applied, m)
		highest = max(highest, m.Version)
	}
	if err := tx.Commit(ctx); err != nil {
		return Report{}, fmt.Errorf("migrations: commit: %w", err)
	}
	report.Version = highest
	return report, nil
}
