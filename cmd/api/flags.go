package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net/netip"
	"net/url"

	"github.com/mcpwatch/mcpwatch/internal/dbenv"
	"github.com/mcpwatch/mcpwatch/internal/netguard"
	"github.com/mcpwatch/mcpwatch/internal/statussite"
)

// config is the command line, checked.
type config struct {
	listen          string
	databaseURL     string
	adminToken      string
	private         bool
	dashboardURL    string
	allow           []netip.Prefix
	headerEnvPrefix string
	migrate         bool
	logFormat       string
	noWeb           bool
}

const usage = `Usage: api [--database-url URL] [flags]

Serves the status of the MCP servers that 'prober run' monitors, from its database:
  /                       the dashboard (status page, a page per server and per run)
  /api/v1/                the JSON API; its OpenAPI document is /api/v1/openapi.json
  /badge/NAME/status.svg  README badges (also uptime.svg?window=30d, latency.svg,
                          conformance.svg)
  /healthz /readyz        liveness, and readiness (the database answers)
  /metrics                Prometheus metrics

Reads are public unless --private. Writes (registering, changing, pausing and deleting
HTTP servers) need the token of --admin-token-file as "Authorization: Bearer TOKEN"; without
that flag the API takes no writes. URLs registered through the API may not reach loopback,
private, link-local, CGNAT, unique-local, multicast or cloud metadata addresses; allow your
own ranges with --allow-private (give the monitor the same list).

The database is --database-url, else $MCPWATCH_DATABASE_URL, else $DATABASE_URL (as for
'prober'), so that one environment serves the monitor and this.

Example:
  api --listen 127.0.0.1:8080 --database-url postgres://mcpwatch@localhost/mcpwatch \
      --admin-token-file /etc/mcpwatch/admin-token --dashboard-url https://status.example.com

Flags:
`

func parseFlags(args []string, stdout, stderr io.Writer, getenv func(string) string) (config, int, bool) {
	var cfg config
	var tokenFile, allow string
	fs := flag.NewFlagSet("api", flag.ContinueOnError)
	// The flag package prints the usage itself on -h and on a bad flag; it is printed here
	// instead, once: in full to stdout when asked for, as a hint after the error otherwise.
	fs.SetOutput(io.Discard)
	fs.StringVar(&cfg.listen, "listen", "127.0.0.1:8080", "address to serve on")
	fs.StringVar(&cfg.databaseURL, "database-url", "", "Postgres URL (default $"+dbenv.Primary+", then $"+dbenv.Fallback+", so that the URL, which may hold a password, need not be in the process list)")
	fs.StringVar(&tokenFile, "admin-token-file", "", "file holding the admin token that writes need (none: no writes)")
	fs.BoolVar(&cfg.private, "private", false, "make every read need the admin token too (health and metrics stay open)")
	fs.StringVar(&cfg.dashboardURL, "dashboard-url", "", "public URL of this server, for absolute links in answers")
	fs.StringVar(&allow, "allow-private", "", "comma-separated CIDR ranges that registered URLs may reach although internal")
	fs.StringVar(&cfg.headerEnvPrefix, "header-env-prefix", "MCPWATCH_HEADER_", "prefix of the prober environment variables a registered server's headers may name")
	fs.BoolVar(&cfg.migrate, "migrate", true, "apply missing database migrations at start")
	fs.StringVar(&cfg.logFormat, "log-format", "json", "log format: json or text")
	fs.BoolVar(&cfg.noWeb, "no-dashboard", false, "serve the API and badges only")
	fail := func(format string, a ...any) (config, int, bool) {
		fmt.Fprintf(stderr, "api: "+format+"\nRun 'api --help' for usage.\n", a...)
		return cfg, exitUsage, false
	}
	if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, usage)
		fs.SetOutput(stdout)
		fs.PrintDefaults()
		return cfg, exitOK, false
	} else if err != nil {
		return fail("%v", err)
	}
	if fs.NArg() > 0 {
		return fail("unexpected argument %q", fs.Arg(0))
	}
	if cfg.databaseURL == "" {
		cfg.databaseURL, _ = dbenv.URL(getenv)
	}
	if cfg.databaseURL == "" {
		return fail("--database-url (or $%s, or $%s) is required", dbenv.Primary, dbenv.Fallback)
	}
	if tokenFile != "" {
		var err error
		if cfg.adminToken, err = statussite.ReadAdminToken(tokenFile); err != nil {
			return fail("--admin-token-file: %v", err)
		}
	}
	if cfg.private && cfg.adminToken == "" {
		return fail("--private needs --admin-token-file: nobody could read anything")
	}
	var err error
	if cfg.allow, err = netguard.ParseAllow(allow); err != nil {
		return fail("--allow-private: %v", err)
	}
	if cfg.dashboardURL != "" {
		if u, err := url.Parse(cfg.dashboardURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fail("--dashboard-url: %q is not an http(s) URL", cfg.dashboardURL)
		}
	}
	if cfg.logFormat != "json" && cfg.logFormat != "text" {
		return fail("--log-format: json or text, not %q", cfg.logFormat)
	}
	if cfg.headerEnvPrefix == "" {
		return fail("--header-env-prefix may not be empty: every variable of the prober would be reachable")
	}
	return cfg, exitOK, true
}
