package store

import (
	"context"
	"fmt"
)

// Identity names the database a Store writes to, for files kept outside it (the monitor's
// spool) that must never be written into another one: the cluster's system identifier (made
// at initdb, the same on a physical replica, different on every other cluster), the database
// and the schema the tables are found in. It looks like "7712463441718433951/mcpwatch/public".
//
// A role without the right to call pg_control_system() (some managed services) gets the
// database's oid in place of the system identifier, prefixed "oid:": still different for
// every database of one cluster, but not across clusters.
func (s *Store) Identity(ctx context.Context) (string, error) {
	var sysid, name, schema string
	err := s.pool.QueryRow(ctx,
		`SELECT (SELECT system_identifier FROM pg_control_system())::text, current_database(), coalesce(current_schema(), '')`).
		Scan(&sysid, &name, &schema)
	if err != nil {
		err = s.pool.QueryRow(ctx,
			`SELECT 'oid:' || oid::text, current_database(), coalesce(current_schema(), '') FROM pg_database WHERE datname = current_database()`).
			Scan(&sysid, &name, &schema)
	}
	if err != nil {
		return "", fmt.Errorf("store: identity: %w", err)
	}
	return sysid + "/" + name + "/" + schema, nil
}
