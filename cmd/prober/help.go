package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/mcpwatch/mcpwatch/internal/units"
	"github.com/mcpwatch/mcpwatch/protocol"
	"github.com/mcpwatch/mcpwatch/report"
)

func writeMainHelp(w io.Writer) {
	fmt.Fprint(w, `prober checks that an MCP (Model Context Protocol) server speaks the protocol correctly.

Usage:
  prober check [flags] URL                   probe a Streamable HTTP endpoint
  prober check [flags] -- COMMAND [ARGS...]  start a stdio server and probe it
  prober version                             print the version
  prober help [check]                        this help, or the help of check

Commands:
  check     probe one server once: report what it does wrong, exit 1 when something fails
            (a CI gate)
  checks    list every check with its ID, spec rule and what it requires
  version   print the version
  run       monitor the servers of a configuration file, writing every probe to Postgres
            (prober run --config mcpwatch.yaml)
  migrate   bring the database schema up to date
  servers   list, add and remove the servers registered in the database

Examples:
  prober check -- npx -y @modelcontextprotocol/server-everything
  prober check http://127.0.0.1:3000/mcp
  prober check --format json --output report.json -- go run ./cmd/my-server
  prober check --fail-on warning https://mcp.example.com/mcp

Run 'prober check --help' for every flag, its default and the exit codes.
`)
}

func writeCheckHelp(w io.Writer) {
	formats := report.Formats()
	var formatLines []string
	for _, f := range formats {
		formatLines = append(formatLines, fmt.Sprintf("                              %-8s %s", f.Name, f.Description))
	}
	fmt.Fprintf(w, `prober check: probe one MCP server once and report how well it follows the specification.

Usage:
  prober check [flags] URL                   probe a Streamable HTTP endpoint
  prober check [flags] -- COMMAND [ARGS...]  start a stdio server and probe it

The probe talks to the server the way a client would: initialize, initialized, the tools,
resources, templates and prompts lists (following pagination), ping, an unknown method and an
unknown notification, and on a second connection an initialize offering a revision that does
not exist. It records every frame and judges them by the checks of the MCP specification.
Everything after -- is the server command; put prober's flags before the --.

Examples:
  # A stdio server run by npx (a first run downloads it, which --init-timeout allows for)
  prober check -- npx -y @modelcontextprotocol/server-everything

  # A Go server compiled on the fly, with an environment variable and a working directory
  prober check --env LOG_LEVEL=debug --dir ./server -- go run .

  # An HTTP server behind a token; header values never appear in any output
  prober check --header "Authorization: Bearer $MCP_TOKEN" https://mcp.example.com/mcp

  # The JSON report to a file, for a dashboard or a baseline (stdout stays empty)
  prober check --format json --output mcp-report.json http://127.0.0.1:3000/mcp

  # A CI gate that fails on SHOULD-level warnings too, with the transcript for the log
  prober check --fail-on warning --verbose -- ./bin/my-server --stdio

  # Adopting the gate on a server that already fails: accept today's failures, then fail
  # only on new ones (commit mcp-baseline.yaml)
  prober check --write-baseline mcp-baseline.yaml -- ./bin/my-server
  prober check --baseline mcp-baseline.yaml -- ./bin/my-server

  # Call your own tools: write a starter calls file from the server's tool list (it calls
  # nothing), uncomment the calls that are safe to run, then judge their results
  prober check --write-calls mcp-calls.yaml -- ./bin/my-server
  prober check --calls mcp-calls.yaml -- ./bin/my-server

  # SARIF for GitHub code scanning, results pointing at the server's manifest
  prober check --format sarif --sarif-artifact mcp.json -o mcp.sarif -- ./bin/my-server

Report:
  --format FORMAT             report format (default %[1]s):
%[2]s
  -o, --output FILE           write the report to FILE instead of stdout; stdout then stays
                              empty (errors still go to stderr)
  -v, --verbose               add the transcript: every frame sent and received, with times
  --no-color                  no colours on a terminal (colours are also off when NO_COLOR is
                              set or stdout is not a terminal; FORCE_COLOR=1 or
                              CLICOLOR_FORCE=1 turns them on in a CI log that renders them)
                              The text report wraps at the terminal's width (COLUMNS when
                              stdout is not a terminal, else 100 columns).

Verdict:
  --fail-on SEVERITY          lowest severity that fails the run (default %[3]s): error (a
                              broken MUST), warning (a broken SHOULD too) or advice (also
                              what no MUST or SHOULD requires: metadata quality, heuristics).
                              A check the probe could not judge (untested: the server died,
                              a step it needs failed) never fails the run by itself, but it
                              is never a pass: the report lists it and counts it apart
  --checks IDS                run only these checks: comma-separated ids or prefixes, e.g.
                              jsonrpc.*,lifecycle.ping (default all)
  --skip IDS                  leave these checks out (same form as --checks)
  --baseline FILE             accept the failures listed in FILE (YAML: - check: ID, with an
                              optional tool: and reason:): they stay in the report, marked
                              baselined, but do not fail the run; entries that no longer
                              fail are reported as stale
  --write-baseline FILE       write the failures of this run to FILE as a baseline (keeping
                              the reasons of --baseline) and judge the run by it
  --official-schemas DIR      also validate messages with the specification's own schema
                              files, DIR/<revision>/schema.json (its schema/ folder): their
                              violations fail the check that validates the message, and
                              where only this prober's schema rejects a message a note says so

Tool calls (never without --calls: the probe calls no listed tool unasked):
  --calls FILE                call the tools FILE names (YAML) after the other probes, each
                              only when the server lists it, and judge the results
                              (tools.call-result, tools.structured-content,
                              tools.invalid-arguments, tools.call-expectations), e.g.
                                calls:
                                  - tool: echo
                                    arguments: {text: hello, key: {fromEnv: ECHO_KEY}}
                                    timeout: 5s
                                    invalid-arguments: true  # may be called with bad arguments
                                    expect: {isError: false, textContains: hello}
                                  - tool: add
                                    arguments: {a: 1, b: 2}
                                    expect: {pointer: /sum, equals: 3}
                              fromEnv values are secrets: they never appear in the report,
                              the transcript or the logs. Calls run the tools for real:
                              name only tools that are safe to run against this server
  --write-calls FILE          after the probe, write a starter calls file to FILE from every
                              tool the server lists (all tools/list pages), calling none:
                              one entry per tool, commented out, with the tool's title and
                              description, its annotations (untrusted hints) and whether
                              it declares an outputSchema; arguments from its inputSchema
                              (examples, default, const, enum, else "", 0, false, [], {}),
                              required ones first, optional ones commented. Uncomment an
                              entry (remove the first "# " of its lines) to make the call;
                              as written the file has no call and --calls refuses it. A
                              server without tools gets no file, and exit 1. FILE is never
                              replaced unless --force; - writes it to stdout (then give
                              the report a file with -o). Works beside --calls
  --force                     let --write-calls replace an existing FILE

CI:
  --write FORMAT=FILE         also write the report in FORMAT to FILE, from the same probe;
                              repeatable (e.g. --format github --write sarif=mcp.sarif
                              --write markdown=summary.md)
  --sarif-artifact PATH       file SARIF results point at, relative to the repository root
                              (e.g. mcp.json or the server's main file); default: a name
                              made from the target. Give one with a stable name: GitHub
                              tracks alerts by check and artifact

Protocol and time:
  --protocol-version REV      revision to probe (default auto): auto offers %[4]s and falls
                              back the way clients must (server/discover first, then
                              initialize) when the server is not stateless; all probes
                              every revision at once and reports which the server accepts,
                              the report's checks being those of the newest accepted (the
                              rule probes run in the newest session revision's probe, and
                              in the stateless revision's, which makes those of auto);
                              or one of %[5]s
  --transport NAME            auto (default), http (Streamable HTTP), sse (legacy HTTP+SSE of
                              2024-11-05: the URL is its event stream) or stdio. auto tries
                              Streamable HTTP and, on 400/404/405, the legacy transport
  --timeout DURATION          bound on the whole probe (default %[6]s), first initialize
                              included: a longer --init-timeout moves the default along
  --init-timeout DURATION     bound on the answer to the first initialize (default %[7]s):
                              a first npx or go run downloads and compiles
  --request-timeout DURATION  bound on the answer to every other request (default %[8]s)
  --max-message-size SIZE     largest message read from the server, e.g. 16MiB, 512KiB or
                              a number of bytes (default %[9]s)

HTTP servers:
  -H, --header 'NAME: VALUE'  header sent with every request; repeatable. Values are secrets:
                              they never appear in the report, the transcript or the logs
  --bearer-token TOKEN        send "Authorization: Bearer TOKEN" to probe a protected server
                              (a secret like --header values; one probe still goes without it
                              to check the 401 challenge and the resource metadata)
  --bearer-token-env NAME     the same, with the token read from environment variable NAME:
                              a command line is visible to other users of the machine
  --ca-file FILE              also trust the CA certificates of FILE (PEM) when verifying the
                              server's certificate: a server behind a private CA. Without it
                              the system's roots are used (SSL_CERT_FILE and SSL_CERT_DIR
                              replace them)
  --insecure-skip-verify      verify no certificate: credentials go to the server whatever
                              certificate it shows, and tls.certificate is untested

stdio servers:
  --env KEY=VALUE             environment variable for the server, on top of prober's own;
                              repeatable
  --dir DIR                   working directory of the server (default the current one)
  --shutdown-grace DURATION   time the server gets to exit once stdin is closed, and again
                              after SIGTERM, before SIGKILL (default %[10]s)

Other:
  --progress                  show progress on stderr even when it is not a terminal, as
                              plain lines (the probe starting, a wait that lasts: "waiting
                              for initialize (connection 1), 12 s of 45 s"); on a terminal
                              progress is one status line, erased before the report, and
                              --progress=false turns it off
  --log-level LEVEL           debug, info, warn or error; logs go to stderr (default %[11]s)
  -h, --help                  this help

Exit codes:
  0    no check fails at or above --fail-on (untested checks are reported, not passed)
  1    a check fails at or above --fail-on, or the probe could not finish: the server is
       unreachable, its command cannot start, or initialize never succeeded; or
       --write-calls wrote no file (no tools, or the file could not be written)
  2    usage error: an unknown flag, a bad value, both a URL and a command, or neither; a
       baseline or schema directory that cannot be read
  130  interrupted (Ctrl-C): the stdio server is still shut down and the partial report written
`, formats[0].Name, strings.Join(formatLines, "\n"), defaultFailOn, protocol.LatestRevision,
		strings.Join(protocol.Revisions(), ", "), durationText(defaultTimeout), durationText(defaultInitTimeout),
		durationText(defaultRequestTimeout), units.Size(defaultMaxMessageSize), durationText(defaultShutdownGrace),
		defaultLogLevel)
}

// durationText prints whole seconds as "60s" rather than time.Duration's "1m0s".
func durationText(d time.Duration) string {
	if d%time.Second == 0 {
		return fmt.Sprintf("%ds", d/time.Second)
	}
	return d.String()
}
