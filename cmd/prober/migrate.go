//go:build !checkonly

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/mcpwatch/mcpwatch/internal/dbenv"
	"github.com/mcpwatch/mcpwatch/migrations"
	"github.com/mcpwatch/mcpwatch/store"
)

// Environment variables that name the database when --database-url is not given, the first
// one set winning (api reads the same).
const (
	envDatabaseURL         = dbenv.Primary
	envDatabaseURLFallback = dbenv.Fallback
)

// connectTimeout bounds how long the one-shot database commands wait for Postgres.
const connectTimeout = 15 * time.Second

// databaseURL is the --database-url flag, or else the first of the variables that is set.
func (e environment) databaseURL(flagValue string) (string, error) {
	if flagValue != "" {
		return flagValue, nil
	}
	if url, _ := dbenv.URL(func(k string) string { v, _ := e.lookupEnv(k); return v }); url != "" {
		return url, nil
	}
	return "", fmt.Errorf("no database: give --database-url or set %s", envDatabaseURL)
}

// openDatabase connects once, for the one-shot commands.
func openDatabase(ctx context.Context, url string) (*store.Store, error) {
	ctx, cancel := context.WithTimeout(ctx, connectTimeout)
	defer cancel()
	return store.Open(ctx, url)
}

// commandUsageError reports a usage error of a subcommand with a pointer to its help.
func (e environment) commandUsageError(command string, err error) int {
	fmt.Fprintf(e.stderr, "prober %s: %v\nRun 'prober %s --help' for usage.\n", command, err, command)
	return exitUsage
}

func writeMigrateHelp(w io.Writer) {
	fmt.Fprintf(w, `prober migrate: bring the database schema up to date and exit.

Usage:
  prober migrate [--database-url URL]

Applies, in order, the schema migrations this prober carries that the database has not
recorded yet, in one transaction under a lock, so that processes starting together cannot
both migrate. Running it again does nothing. 'prober run' does the same at start unless
given --migrate=false.

Flags:
  --database-url URL   the Postgres database, e.g. postgres://user@127.0.0.1:5432/mcpwatch
                       (default: $%s, then $%s)

Exit codes: 0 migrated (or nothing to do), 1 the database failed or refused, 2 usage error.
`, envDatabaseURL, envDatabaseURLFallback)
}

// migrate runs `prober migrate`.
func (e environment) migrate(ctx context.Context, args []string) int {
	fs := flag.NewFlagSet("migrate", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	dbFlag := fs.String("database-url", "", "")
	if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
		writeMigrateHelp(e.stdout)
		return exitOK
	} else if err != nil {
		return e.commandUsageError("migrate", err)
	}
	if fs.NArg() > 0 {
		return e.commandUsageError("migrate", fmt.Errorf("unexpected argument %q", fs.Arg(0)))
	}
	url, err := e.databaseURL(*dbFlag)
	if err != nil {
		return e.commandUsageError("migrate", err)
	}
	st, err := openDatabase(ctx, url)
	if err != nil {
		fmt.Fprintf(e.stderr, "prober migrate: %v\n", err)
		return exitFailed
	}
	defer st.Close()
	report, err := migrations.Apply(ctx, st.Pool())
	if err != nil {
		fmt.Fprintf(e.stderr, "prober migrate: %v\n", err)
		return exitFailed
	}
	for _, m := range report.Applied {
		fmt.Fprintf(e.stdout, "applied %s\n", m.Name)
	}
	fmt.Fprintf(e.stdout, "schema at version %d\n", report.Version)
	return exitOK
}
