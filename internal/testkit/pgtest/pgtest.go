// Package pgtest gives each test a schema of its own in a real Postgres, so tests that touch
// the database run in parallel without seeing each other's rows.
//
// The server comes from MCPWATCH_TEST_DATABASE_URL (default DefaultURL). When it cannot be
// reached the test is skipped, unless CI=true, where a missing database is a failure.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/mcpwatch/mcpwatch/migrations"
)

// DefaultURL is the database used when MCPWATCH_TEST_DATABASE_URL is unset.
const DefaultURL = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"

// EnvURL names the environment variable that points the tests at a database.
const EnvURL = "MCPWATCH_TEST_DATABASE_URL"

// connectTimeout bounds how long a test waits to learn that the database is not there.
const connectTimeout = 5 * time.Second

// DB is one test's schema.
type DB struct {
	// URL connects with search_path set to Schema: hand it to store.Open or a subprocess.
	URL    string
	Schema string
}

// New creates an empty schema, dropped when the test ends.
func New(t testing.TB) DB {
	t.Helper()
	base := os.Getenv(EnvURL)
	if base == "" {
		base = DefaultURL
	}
	ctx, cancel := context.WithTimeout(context.Background(), connectTimeout)
	defer cancel()
	admin, err := pgx.Connect(ctx, base)
	if err != nil {
		unreachable(t, base, err)
	}
	defer admin.Close(context.Background())

	var suffix [8]byte
	_, _ = rand.Read(suffix[:]) // never fails (crypto/rand)
	schema := "test_" + hex.EncodeToString(suffix[:])
	if _, err := admin.Exec(ctx, "CREATE SCHEMA "+pgx.Identifier{schema}.Sanitize()); err != nil {
		t.Fatalf("pgtest: create schema: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, base)
		if err != nil {
			t.Errorf("pgtest: drop schema %s: %v", schema, err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "DROP SCHEMA "+pgx.Identifier{schema}.Sanitize()+" CASCADE"); err != nil {
			t.Errorf("pgtest: drop schema %s: %v", schema, err)
		}
	})
	u, err := withSearchPath(base, schema)
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	return DB{URL: u, Schema: schema}
}

// Migrated creates a schema with every migration applied and returns a pool on it.
func Migrated(t testing.TB) (DB, *pgxpool.Pool) {
	t.Helper()
	db := New(t)
	pool := db.Pool(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := migrations.Apply(ctx, pool); err != nil {
		t.Fatalf("pgtest: migrate: %v", err)
	}
	return db, pool
}

// Pool opens a pool on the schema, closed when the test ends.
func (d DB) Pool(t testing.TB) *pgxpool.Pool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), connectTimeout)
	defer cancel()
	pool, err := pgxpool.New(ctx, d.URL)
	if err != nil {
		t.Fatalf("pgtest: pool: %v", err)
	}
	t.Cleanup(pool.Close)
	return pool
}

func unreachable(t testing.TB, url string, err error) {
	t.Helper()
	msg := fmt.Sprintf("pgtest: Postgres at %s is unreachable (%v); set %s to a database to run this test", redact(url), err, EnvURL)
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

// withSearchPath adds search_path to a connection string; pgx sends unknown parameters to the
// server as run-time parameters, so every connection of a pool gets it.
func withSearchPath(raw, schema string) (string, error) {
	if !strings.HasPrefix(raw, "postgres://") && !strings.HasPrefix(raw, "postgresql://") {
		return raw + " search_path=" + schema, nil // keyword/value form
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("parse %s: %w", EnvURL, err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String(), nil
}

// redact hides a password in a URL shown in a skip message.
func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" {
		return "the configured database"
	}
	return u.Redacted()
}
