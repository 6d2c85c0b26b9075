//go:build !checkonly

package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/netip"
	"net/url"
	"strings"

	"github.com/mcpwatch/mcpwatch/internal/netguard"
	"github.com/mcpwatch/mcpwatch/internal/statussite"
	"github.com/mcpwatch/mcpwatch/internal/units"
	"github.com/mcpwatch/mcpwatch/monitor"
)

// errHelpShown asks for the help text instead of running.
var errHelpShown = errors.New("help requested")

// monitorFlags is a parsed `prober run` command line. Flags given explicitly override the
// configuration file's settings.
type monitorFlags struct {
	config, databaseURL, region, worker, metricsAddr, spoolDir string
	dashboardURL, listen, dataDir, adminToken                  string
	private                                                    bool
	allowPrivate                                               []netip.Prefix
	concurrency                                                int
	memoryBudget                                               int64
	migrate, forceSync                                         bool
	level                                                      slog.Level
	set                                                        map[string]bool
}

func parseMonitorArgs(args []string) (*monitorFlags, error) {
	f := &monitorFlags{set: map[string]bool{}}
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&f.config, "config", "", "")
	fs.StringVar(&f.databaseURL, "database-url", "", "")
	fs.StringVar(&f.region, "region", "", "")
	fs.StringVar(&f.worker, "worker", "", "")
	fs.IntVar(&f.concurrency, "concurrency", 0, "")
	fs.BoolVar(&f.migrate, "migrate", true, "")
	fs.BoolVar(&f.forceSync, "force-sync", false, "")
	fs.StringVar(&f.metricsAddr, "metrics-addr", "", "")
	fs.StringVar(&f.spoolDir, "spool-dir", "", "")
	fs.StringVar(&f.dashboardURL, "dashboard-url", "", "")
	fs.StringVar(&f.listen, "listen", "", "")
	fs.StringVar(&f.dataDir, "data-dir", "", "")
	fs.BoolVar(&f.private, "private", false, "")
	tokenFile := fs.String("admin-token-file", "", "")
	level := fs.String("log-level", "info", "")
	allow := fs.String("allow-private", "", "")
	budget := fs.String("memory-budget", "", "")
	if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
		return nil, errHelpShown
	} else if err != nil {
		return nil, err
	}
	fs.Visit(func(fl *flag.Flag) { f.set[fl.Name] = true })
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q (the servers come from --config)", fs.Arg(0))
	}
	if f.config == "" {
		return nil, errors.New("--config is required: the YAML file of servers to monitor")
	}
	if f.set["concurrency"] && (f.concurrency < 1 || f.concurrency > 10_000) {
		return nil, fmt.Errorf("--concurrency %d: want 1 to 10000", f.concurrency)
	}
	if f.set["region"] && strings.TrimSpace(f.region) == "" {
		return nil, errors.New("--region: empty")
	}
	if f.dashboardURL != "" {
		if u, err := url.Parse(f.dashboardURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("--dashboard-url %q: want the http(s) URL of the dashboard, such as https://status.example.com", f.dashboardURL)
		}
	}
	if f.set["listen"] && f.listen == "" {
		return nil, errors.New("--listen: empty: give the address to serve the status page on, such as 127.0.0.1:8080")
	}
	if f.set["data-dir"] && f.dataDir == "" {
		return nil, errors.New("--data-dir: empty")
	}
	if f.dataDir != "" && f.databaseURL != "" {
		return nil, errors.New("--data-dir is the directory of the database prober runs itself, --database-url an external database: give one")
	}
	if *tokenFile != "" {
		if f.listen == "" {
			return nil, errors.New("--admin-token-file needs --listen: it lets the API served there take writes")
		}
		var err error
		if f.adminToken, err = statussite.ReadAdminToken(*tokenFile); err != nil {
			return nil, fmt.Errorf("--admin-token-file: %w", err)
		}
	}
	if f.private && f.adminToken == "" {
		return nil, errors.New("--private needs --admin-token-file (and --listen): nobody could read anything")
	}
	if f.set["memory-budget"] {
		n, err := units.ParseSize(*budget)
		if err != nil || n < 16<<20 {
			return nil, fmt.Errorf("--memory-budget %q: want a size of at least 16MiB, such as 1GiB", *budget)
		}
		f.memoryBudget = n
	}
	if err := f.level.UnmarshalText([]byte(*level)); err != nil {
		return nil, fmt.Errorf("--log-level %q: want debug, info, warn or error", *level)
	}
	if *allow != "" {
		var err error
		if f.allowPrivate, err = netguard.ParseAllow(*allow); err != nil {
			return nil, fmt.Errorf("--allow-private: %w", err)
		}
	}
	return f, nil
}

// load reads the configuration file and applies the flags that override it.
func (f *monitorFlags) load() (*monitor.Config, error) {
	cfg, err := monitor.LoadConfig(f.config)
	if err != nil {
		return nil, err
	}
	if f.set["region"] {
		cfg.Region = f.region
	}
	if f.set["concurrency"] {
		cfg.Concurrency = f.concurrency
	}
	if f.set["spool-dir"] {
		cfg.Spool.Dir = f.spoolDir
	}
	return cfg, nil
}

func writeMonitorHelp(w io.Writer) {
	fmt.Fprintf(w, `prober run: monitor the servers of a configuration file, writing every probe to Postgres.

Usage:
  prober run --config mcpwatch.yaml [--listen 127.0.0.1:8080] [flags]

Each server is probed on its schedule, judged by the same checks as 'prober check', and the
run (outcome up/degraded/down, exact JSON-RPC error code, HTTP status, exit status, latency of
every step, tool count and fingerprint, findings, transcript) is written to the database.
Start as many 'prober run' processes as you like on one database: they share the servers
(each due slot is probed by one of them), and when one dies the others take its servers
over once its leases expire. Workers of another --region probe every server again, on
their own.

With an alerts: section in the file (see docs/alerts.md), every run is also judged for
alerts, and Slack or a webhook hears once when a server goes down, fails a check it passed,
changes its tools, gets slow or nears certificate expiry, and once when that is over. The
state of every alert is in the database: a restart neither pages again nor forgets, and of
several workers exactly one sends each message. Try the channels first with
'prober alerts test --config FILE'.

The configuration is synced into the database at start and again on SIGHUP, unless the file
is older than the one another worker synced last and differs from it: then this worker logs
the refusal, counts it (mcpwatch_config_stale) and probes the servers the database has, so
that one stale copy cannot disable the servers a newer file added. SIGTERM or
Ctrl-C stops gracefully: no more claims, probes in flight get shutdown-grace to finish,
results are written (or kept in the spool file for the next start). When the database is
away, results wait in memory and then in the spool file, and are written once it is back.

Without a database URL, prober run starts a PostgreSQL server of its own from the server
binaries installed on the machine (PATH, /usr/lib/postgresql/*/bin, /usr/pgsql-*/bin,
Homebrew), in --data-dir, initialised on first use, reachable through a Unix socket in that
directory only, and stops it on exit; the log says where the data is and the psql command
that opens it. As root, the server runs as the user postgres. Several workers, and 'api',
share one external database instead: give each the same --database-url.

Flags:
  --config FILE         the YAML configuration (see docs/monitor.md); required
  --listen ADDR         serve the status page, the JSON API, badges, /healthz, /readyz and
                        /metrics from this process on ADDR, e.g. 127.0.0.1:8080, as 'api'
                        serves them (default: off)
  --admin-token-file F  with --listen: the file of the token that writes through the API
                        need ("Authorization: Bearer TOKEN"); without it the API takes none
  --private             with --admin-token-file: every read needs the token too
  --database-url URL    an external Postgres database (default: $%s, then $%s, else
                        the database prober runs itself)
  --data-dir DIR        the directory of the database prober runs itself (default:
                        ~/.local/share/mcpwatch/postgres; /var/lib/mcpwatch/postgres as root)
  --region NAME         this worker's region (default: the file's region, else %q)
  --worker NAME         this worker's name in leases and runs (default: HOST-PID)
  --concurrency N       probes at once (default: the file's concurrency, else %d)
  --migrate=false       do not apply schema migrations at start (see 'prober migrate')
  --force-sync          sync this file's servers at start even if it is older than the
                        one synced last (it disables the servers it does not list); a
                        reload on SIGHUP is judged as usual
  --metrics-addr ADDR   serve Prometheus /metrics and /healthz on ADDR, e.g. 127.0.0.1:9464
                        (default: off)
  --spool-dir DIR       where results wait while the database is away (default: the
                        file's spool.dir, else the user cache directory)
  --memory-budget SIZE  what all probes together may read from servers and hold, shared
                        between the concurrent probes (default 512MiB; see docs/monitor.md)
  --dashboard-url URL   where people read about a server: the base URL of the dashboard
                        that 'api' serves, e.g. https://status.example.com. Alert messages
                        link to URL/servers/NAME, the page of the server with its runs and
                        their evidence. Only used with an alerts: section in the file
                        (default: the file's alerts.dashboard-url, else no link)
  --log-level LEVEL     debug, info, warn or error (default info); logs go to stderr
  --allow-private CIDRS comma-separated ranges that servers registered through the API or
                        'prober servers add' may reach although internal (loopback,
                        private, link-local...): their probes are refused those addresses
                        otherwise, at connect time; servers of the file are not limited.
                        Give it the list the API server has.

Examples:
  prober run --config examples/fleet.yaml --listen 127.0.0.1:8080
  export %s=postgres://postgres@127.0.0.1:5432/mcpwatch
  prober run --config mcpwatch.yaml --metrics-addr 127.0.0.1:9464
  SLACK_WEBHOOK_URL=https://hooks.slack.com/services/... \
    prober run --config mcpwatch.yaml --dashboard-url https://status.example.com

Exit codes: 0 stopped by a signal, 1 failure (the database refused, a server name taken),
2 usage or configuration error (each problem named by file:line:column and field, an
alert channel whose secret variable is not set, no PostgreSQL server binaries for the
database of its own, or its --data-dir unusable).
`, envDatabaseURL, envDatabaseURLFallback, monitor.DefaultRegion, monitor.DefaultConcurrency, envDatabaseURL)
}
