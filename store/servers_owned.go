package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// Writes of servers owned by one source (the API's): unlike UpsertServer, a create never takes
// over an existing name and an update or delete never touches a server of another source (the
// config file's).

// ErrServerExists means a server of that name exists already (of any source).
var ErrServerExists = errors.New("store: a server of that name exists")

// serverNameLockClass keys the advisory lock that makes a create's "is the name free" check
// and its insert one step for concurrent creates of the same name.
const serverNameLockClass = 0x6d63_707a

// CreateServer stores a new server; ErrServerExists when the name is taken.
func (s *Store) CreateServer(ctx context.Context, v Server) (Server, error) {
	if err := v.Validate(); err != nil {
		return Server{}, err
	}
	var out Server
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1, hashtext($2))`, serverNameLockClass, v.Name); err != nil {
			return fmt.Errorf("lock name: %w", err)
		}
		var exists bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM servers WHERE name = $1)`, v.Name).Scan(&exists); err != nil {
			return fmt.Errorf("check name: %w", err)
		}
		if exists {
			return fmt.Errorf("%w: %q", ErrServerExists, v.Name)
		}
		ids, err := upsertServers(ctx, tx, []Server{v})
		if err != nil {
			return err
		}
		return scanServer(tx.QueryRow(ctx, `SELECT `+serverColumns+` FROM servers v WHERE v.id = $1`, ids[0]), &out)
	})
	if err != nil {
		return Server{}, fmt.Errorf("store: create server %q: %w", v.Name, err)
	}
	return out, nil
}

// UpdateServerOf changes the server named name, which must belong to source, with change
// (which may not rename it or change its source) and returns it as stored. ErrNotFound when
// there is no such server, ErrNameTaken when it belongs to another source.
func (s *Store) UpdateServerOf(ctx context.Context, source, name string, change func(*Server) error) (Server, error) {
	var out Server
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var v Server
		err := scanServer(tx.QueryRow(ctx, `SELECT `+serverColumns+` FROM servers v WHERE v.name = $1 FOR UPDATE`, name), &v)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("server %q: %w", name, ErrNotFound)
		}
		if err != nil {
			return err
		}
		if v.Source != source {
			return fmt.Errorf("%w: %q belongs to %s", ErrNameTaken, name, v.Source)
		}
		if err := change(&v); err != nil {
			return err
		}
		if v.Name != name || v.Source != source {
			return fmt.Errorf("%w %q: an update may not rename a server or change its source", ErrInvalidServer, name)
		}
		ids, err := upsertServers(ctx, tx, []Server{v})
		if err != nil {
			return err
		}
		return scanServer(tx.QueryRow(ctx, `SELECT `+serverColumns+` FROM servers v WHERE v.id = $1`, ids[0]), &out)
	})
	if err != nil {
		return Server{}, fmt.Errorf("store: update server %q: %w", name, err)
	}
	return out, nil
}

// DeleteServerOf removes the server named name, which must belong to source, and its
// schedule; its runs stay until retention. ErrNotFound and ErrNameTaken as UpdateServerOf.
func (s *Store) DeleteServerOf(ctx context.Context, source, name string) error {
	var other string
	err := s.pool.QueryRow(ctx, `WITH gone AS (DELETE FROM servers WHERE name = $1 AND source = $2 RETURNING source)
		SELECT source FROM gone UNION ALL SELECT source FROM servers WHERE name = $1 AND source <> $2`,
		name, source).Scan(&other)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return fmt.Errorf("server %q: %w", name, ErrNotFound)
	case err != nil:
		return fmt.Errorf("store: delete server %q: %w", name, err)
	case other != source:
		return fmt.Errorf("%w: %q belongs to %s", ErrNameTaken, name, other)
	}
	return nil
}
