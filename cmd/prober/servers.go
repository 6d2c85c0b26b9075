//go:build !checkonly

package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"regexp"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mcpwatch/mcpwatch/monitor"
	"github.com/mcpwatch/mcpwatch/protocol"
	"github.com/mcpwatch/mcpwatch/store"
)

func writeServersHelp(w io.Writer) {
	fmt.Fprintf(w, `prober servers: list, add and remove the servers registered in the database.

Usage:
  prober servers list   [--json] [--database-url URL]
  prober servers add    [flags] NAME URL
  prober servers remove [--database-url URL] NAME

Servers come from two places. The configuration file of 'prober run' (source "config"),
synced into the database at start and on SIGHUP: change those in the file. And the servers
added here (source "api"): HTTP servers only, since a command is only ever run when it
comes from the configuration file. Running workers pick changes up within seconds. Their
probes may not reach loopback, private, link-local or metadata addresses (checked when they
connect, redirects included) unless 'prober run --allow-private' lists the range.

Flags of add:
  --schedule SPEC      when to probe: "@every 5m", or cron fields like "*/5 * * * *"
                       (default %q)
  --timeout DURATION   bound on one probe (default %v)
  --header 'NAME=PREFIX${VARIABLE}'
                       send header NAME with PREFIX followed by the value of the
                       environment variable VARIABLE of the prober that runs the probe; the
                       value itself is never stored. Single-quote it so that your shell
                       does not expand it. Repeatable. Example:
                       --header 'Authorization=Bearer ${MCP_TOKEN}'
  --label KEY=VALUE    a label (repeatable)
  --disabled           register it without probing it yet
  add updates a server of the same name that was added here before.

Common flags:
  --database-url URL   the Postgres database (default: $%s, then $%s)
  --json               list as JSON

Exit codes: 0 done, 1 the database failed or refused (a name of the configuration file,
an unknown name), 2 usage error.
`, monitor.DefaultSchedule, monitor.DefaultTimeout, envDatabaseURL, envDatabaseURLFallback)
}

// servers runs `prober servers`.
func (e environment) servers(ctx context.Context, args []string) int {
	if len(args) == 0 {
		writeServersHelp(e.stderr)
		return exitUsage
	}
	switch args[0] {
	case "list":
		return e.serversList(ctx, args[1:])
	case "add":
		return e.serversAdd(ctx, args[1:])
	case "remove", "rm":
		return e.serversRemove(ctx, args[1:])
	case "help", "-h", "-help", "--help":
		writeServersHelp(e.stdout)
		return exitOK
	}
	return e.commandUsageError("servers", fmt.Errorf("unknown subcommand %q (want list, add or remove)", args[0]))
}

// parseInterleaved parses flags wherever they stand among the positional arguments
// (`add NAME URL --schedule ...` as well as `add --schedule ... NAME URL`).
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return positional, nil
		}
		positional = append(positional, args[0])
		args = args[1:]
	}
}

// serversCommand parses the flags common to the servers subcommands and opens the database.
func (e environment) serversCommand(ctx context.Context, name string, fs *flag.FlagSet, args []string, want int) (*store.Store, []string, int) {
	fs.SetOutput(io.Discard)
	dbFlag := fs.String("database-url", "", "")
	positional, err := parseInterleaved(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		writeServersHelp(e.stdout)
		return nil, nil, exitOK
	}
	if err != nil {
		return nil, nil, e.commandUsageError("servers "+name, err)
	}
	if len(positional) != want {
		return nil, nil, e.commandUsageError("servers "+name, fmt.Errorf("want %d arguments, got %d", want, len(positional)))
	}
	url, err := e.databaseURL(*dbFlag)
	if err != nil {
		return nil, nil, e.commandUsageError("servers "+name, err)
	}
	st, err := openDatabase(ctx, url)
	if err != nil {
		fmt.Fprintf(e.stderr, "prober servers %s: %v\n", name, err)
		return nil, nil, exitFailed
	}
	return st, positional, -1
}

// serverJSON is a server as `servers list --json` prints it: no secret is in it, since none
// is stored.
type serverJSON struct {
	ID        int64             `json:"id"`
	Name      string            `json:"name"`
	Source    string            `json:"source"`
	Transport string            `json:"transport"`
	URL       string            `json:"url,omitempty"`
	Command   []string          `json:"command,omitempty"`
	Headers   []store.HeaderRef `json:"headers,omitempty"`
	Schedule  string            `json:"schedule"`
	Timeout   string            `json:"timeout"`
	Labels    map[string]string `json:"labels,omitempty"`
	Enabled   bool              `json:"enabled"`
}

func (e environment) serversList(ctx context.Context, args []string) int {
	fs := flag.NewFlagSet("servers list", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "")
	st, _, code := e.serversCommand(ctx, "list", fs, args, 0)
	if st == nil {
		return code
	}
	defer st.Close()
	servers, err := st.Servers(ctx)
	if err != nil {
		fmt.Fprintf(e.stderr, "prober servers list: %v\n", err)
		return exitFailed
	}
	if *asJSON {
		out := make([]serverJSON, 0, len(servers))
		for _, s := range servers {
			j := serverJSON{ID: s.ID, Name: s.Name, Source: s.Source, Transport: s.Transport, URL: s.URL, Headers: s.Headers,
				Schedule: s.Schedule, Timeout: s.Timeout.String(), Labels: s.Labels, Enabled: s.Enabled}
			if s.Command != "" {
				j.Command = append([]string{s.Command}, s.Args...)
			}
			out = append(out, j)
		}
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			fmt.Fprintf(e.stderr, "prober servers list: %v\n", err)
			return exitFailed
		}
		return exitOK
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSOURCE\tTRANSPORT\tTARGET\tSCHEDULE\tTIMEOUT\tENABLED")
	for _, s := range servers {
		target := s.URL
		if s.Command != "" {
			target = strings.Join(append([]string{s.Command}, s.Args...), " ")
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%v\t%v\n", s.Name, s.Source, s.Transport, target, s.Schedule, s.Timeout, s.Enabled)
	}
	if err := tw.Flush(); err != nil {
		return exitFailed
	}
	return exitOK
}

// headerReference is NAME=PREFIX${VARIABLE}. It is compiled where a --header needs it, not at
// package init, which every `prober check` would pay for.
const headerReference = `^([^=]+)=(.*)\$\{([A-Za-z_][A-Za-z0-9_]*)\}$`

// parseHeaderRef reads one --header. Its error never repeats the value: if the shell
// expanded the reference, the value is the secret itself.
func parseHeaderRef(v string) (store.HeaderRef, error) {
	m := regexp.MustCompile(headerReference).FindStringSubmatch(v)
	if m == nil || strings.Contains(m[2], "${") {
		name, _, _ := strings.Cut(v, "=")
		return store.HeaderRef{}, fmt.Errorf("--header %s: want NAME=PREFIX${VARIABLE}, the value coming from the environment variable "+
			"when the probe runs (single-quote it so that your shell does not expand it)", name)
	}
	return store.HeaderRef{Name: strings.TrimSpace(m[1]), Prefix: m[2], FromEnv: m[3]}, nil
}

func (e environment) serversAdd(ctx context.Context, args []string) int {
	fs := flag.NewFlagSet("servers add", flag.ContinueOnError)
	schedule := fs.String("schedule", monitor.DefaultSchedule, "")
	var timeout time.Duration
	durationVar(fs, &timeout, "timeout", monitor.DefaultTimeout)
	disabled := fs.Bool("disabled", false, "")
	var headers, labels repeated
	fs.Var(&headers, "header", "")
	fs.Var(&labels, "label", "")
	st, pos, code := e.serversCommand(ctx, "add", fs, args, 2)
	if st == nil {
		return code
	}
	defer st.Close()
	s := store.Server{Name: pos[0], Source: store.SourceAPI, Transport: protocol.TransportHTTP, URL: pos[1],
		Schedule: *schedule, Timeout: timeout, Enabled: !*disabled}
	for _, h := range headers {
		ref, err := parseHeaderRef(h)
		if err != nil {
			return e.commandUsageError("servers add", err)
		}
		s.Headers = append(s.Headers, ref)
	}
	for _, l := range labels {
		k, v, ok := strings.Cut(l, "=")
		if !ok || k == "" {
			return e.commandUsageError("servers add", fmt.Errorf("--label %q: want KEY=VALUE", l))
		}
		if s.Labels == nil {
			s.Labels = map[string]string{}
		}
		s.Labels[k] = v
	}
	if err := monitor.CheckServer(s); err != nil {
		return e.commandUsageError("servers add", err)
	}
	saved, err := st.UpsertServer(ctx, s)
	if errors.Is(err, store.ErrNameTaken) {
		fmt.Fprintf(e.stderr, "prober servers add: %q is a server of the configuration file; change it there\n", s.Name)
		return exitFailed
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "prober servers add: %v\n", err)
		return exitFailed
	}
	fmt.Fprintf(e.stdout, "%s: %s %s, timeout %v, enabled %v (id %d)\n", saved.Name, saved.URL, saved.Schedule, saved.Timeout, saved.Enabled, saved.ID)
	return exitOK
}

func (e environment) serversRemove(ctx context.Context, args []string) int {
	fs := flag.NewFlagSet("servers remove", flag.ContinueOnError)
	st, pos, code := e.serversCommand(ctx, "remove", fs, args, 1)
	if st == nil {
		return code
	}
	defer st.Close()
	s, err := st.ServerByName(ctx, pos[0])
	if errors.Is(err, store.ErrNotFound) {
		fmt.Fprintf(e.stderr, "prober servers remove: no server named %q\n", pos[0])
		return exitFailed
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "prober servers remove: %v\n", err)
		return exitFailed
	}
	if s.Source == store.SourceConfig {
		fmt.Fprintf(e.stderr, "prober servers remove: %q comes from the configuration file; remove it there and reload (SIGHUP)\n", s.Name)
		return exitFailed
	}
	if err := st.DeleteServer(ctx, s.ID); err != nil {
		fmt.Fprintf(e.stderr, "prober servers remove: %v\n", err)
		return exitFailed
	}
	fmt.Fprintf(e.stdout, "removed %s (its runs stay until retention removes them)\n", s.Name)
	return exitOK
}
