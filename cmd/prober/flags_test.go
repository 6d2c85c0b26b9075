package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/checks"
	"github.com/mcpwatch/mcpwatch/internal/units/unitstest"
)

// runCLI runs prober in-process and returns its exit code and output.
func runCLI(t *testing.T, ctx context.Context, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = dispatch(ctx, args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// emptyFile is a file in dir with no certificate in it.
func emptyFile(t *testing.T, dir string) string {
	t.Helper()
	name := filepath.Join(dir, "empty.pem")
	if err := os.WriteFile(name, []byte("not a certificate\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return name
}

func TestUsageErrorsExitTwoWithAMessageAndAPointerToHelp(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no command", nil, "Usage:"},
		{"unknown command", []string{"probe"}, `unknown command "probe"`},
		{"neither URL nor command", []string{"check"}, "give the server to probe"},
		{"only flags", []string{"check", "--format", "json"}, "give the server to probe"},
		{"both URL and command", []string{"check", "http://127.0.0.1:1/mcp", "--", "srv"}, "not both"},
		{"nothing after dashes", []string{"check", "--"}, "nothing after --"},
		{"command without dashes", []string{"check", "npx", "my-server"}, "is not an http(s) URL"},
		{"extra argument after URL", []string{"check", "http://127.0.0.1:1/mcp", "extra"}, `unexpected argument "extra"`},
		{"bad URL scheme", []string{"check", "ftp://127.0.0.1/mcp"}, `the scheme "ftp" is not http or https`},
		{"URL without scheme, host and port", []string{"check", "127.0.0.1:8080/mcp"}, "has no scheme: did you mean http://127.0.0.1:8080/mcp (or https://127.0.0.1:8080/mcp)?"},
		{"URL without scheme, dotted host", []string{"check", "mcp.example.com/mcp"}, "did you mean http://mcp.example.com/mcp"},
		{"URL without scheme, localhost", []string{"check", "localhost:3000"}, "did you mean http://localhost:3000"},
		{"misspelt flag", []string{"check", "--init-timout", "5s", "http://127.0.0.1:1/mcp"}, "flag provided but not defined: -init-timout; did you mean --init-timeout?"},
		{"flag with a letter swapped", []string{"check", "--fromat", "json", "http://127.0.0.1:1/mcp"}, "did you mean --format?"},
		{"flag cut short", []string{"check", "--insecure", "https://127.0.0.1:1/mcp"}, "did you mean --insecure-skip-verify?"},
		{"duration without a unit", []string{"check", "--timeout", "5", "http://127.0.0.1:1/mcp"}, "a duration needs a unit: did you mean --timeout 5s?"},
		{"init timeout without a unit", []string{"check", "--init-timeout=90", "http://127.0.0.1:1/mcp"}, "did you mean --init-timeout 90s?"},
		{"CA file for a command", []string{"check", "--ca-file", "ca.pem", "--", "srv"}, "--ca-file applies to an https URL"},
		{"CA file missing", []string{"check", "--ca-file", filepath.Join(dir, "none.pem"), "https://127.0.0.1:1/mcp"}, "--ca-file: open "},
		{"CA file without a certificate", []string{"check", "--ca-file", emptyFile(t, t.TempDir()), "https://127.0.0.1:1/mcp"}, "no certificate in it"},
		{"CA file and no verifying", []string{"check", "--ca-file", "ca.pem", "--insecure-skip-verify", "https://127.0.0.1:1/mcp"}, "contradict each other"},
		{"progress not a boolean", []string{"check", "--progress=maybe", "http://127.0.0.1:1/mcp"}, `invalid boolean value "maybe" for -progress`},
		{"URL without host", []string{"check", "http:///mcp"}, "has no host"},
		{"unknown flag", []string{"check", "--bogus", "http://127.0.0.1:1/mcp"}, "flag provided but not defined: -bogus"},
		{"unknown flag after URL", []string{"check", "http://127.0.0.1:1/mcp", "--bogus"}, "flag provided but not defined: -bogus"},
		{"unknown format", []string{"check", "--format", "xml", "http://127.0.0.1:1/mcp"}, `--format "xml": want one of text, json`},
		{"unknown fail-on", []string{"check", "--fail-on", "fatal", "http://127.0.0.1:1/mcp"}, `--fail-on "fatal": want error, warning or advice`},
		{"unknown revision", []string{"check", "--protocol-version", "2099-01-01", "http://127.0.0.1:1/mcp"}, "want auto, all or one of 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28"},
		{"unknown transport", []string{"check", "--transport", "websocket", "http://127.0.0.1:1/mcp"}, `--transport "websocket": want auto, stdio, http or sse`},
		{"sse transport for a command", []string{"check", "--transport", "sse", "--", "srv"}, "--transport sse needs a URL, not a command"},
		{"stdio transport for a URL", []string{"check", "--transport", "stdio", "http://127.0.0.1:1/mcp"}, "--transport stdio needs a command"},
		{"zero timeout", []string{"check", "--timeout", "0s", "http://127.0.0.1:1/mcp"}, "--timeout 0s: want a positive duration"},
		{"timeout no longer than the init timeout", []string{"check", "--timeout", "30s", "--init-timeout", "45s", "http://127.0.0.1:1/mcp"}, "want a --timeout longer than --init-timeout"},
		{"negative init timeout", []string{"check", "--init-timeout", "-5s", "http://127.0.0.1:1/mcp"}, "--init-timeout -5s"},
		{"zero request timeout", []string{"check", "--request-timeout", "0", "http://127.0.0.1:1/mcp"}, "--request-timeout"},
		{"zero shutdown grace", []string{"check", "--shutdown-grace", "0s", "--", "srv"}, "--shutdown-grace"},
		{"unparsable duration", []string{"check", "--timeout", "soon", "http://127.0.0.1:1/mcp"}, `invalid value "soon" for flag -timeout`},
		{"bad size unit", []string{"check", "--max-message-size", "12XB", "http://127.0.0.1:1/mcp"}, "is not a size"},
		{"size too small", []string{"check", "--max-message-size", "10", "http://127.0.0.1:1/mcp"}, "want between 1KiB and 1GiB"},
		{"size too large", []string{"check", "--max-message-size", "2GiB", "http://127.0.0.1:1/mcp"}, "want between 1KiB and 1GiB"},
		{"header without colon", []string{"check", "--header", "NoColonHere", "http://127.0.0.1:1/mcp"}, "--header #1 is not in the form 'Name: value'"},
		{"header with bad name", []string{"check", "-H", "Bad Name: v", "http://127.0.0.1:1/mcp"}, "--header #1 is not in the form"},
		{"header for a command", []string{"check", "--header", "X-A: b", "--", "srv"}, "--header applies to an HTTP URL"},
		{"env without equals", []string{"check", "--env", "NOVALUE", "--", "srv"}, "--env #1 is not in the form KEY=VALUE"},
		{"env for a URL", []string{"check", "--env", "A=b", "http://127.0.0.1:1/mcp"}, "--env applies to a stdio command"},
		{"dir for a URL", []string{"check", "--dir", dir, "http://127.0.0.1:1/mcp"}, "--dir applies to a stdio command"},
		{"unknown check", []string{"check", "--checks", "nosuch.check", "http://127.0.0.1:1/mcp"}, `no check matches "nosuch.check"`},
		{"unknown skip prefix", []string{"check", "--skip", "nosuch.*", "http://127.0.0.1:1/mcp"}, `no check matches "nosuch.*"`},
		{"unknown log level", []string{"check", "--log-level", "loud", "http://127.0.0.1:1/mcp"}, `--log-level "loud"`},
		{"output in a missing directory", []string{"check", "--output", filepath.Join(dir, "missing", "r.json"), "http://127.0.0.1:1/mcp"}, "cannot be written"},
		{"output is a directory", []string{"check", "-o", dir, "http://127.0.0.1:1/mcp"}, "is a directory"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, context.Background(), tc.args...)
			if code != exitUsage {
				t.Errorf("exit code %d, want %d; stderr:\n%s", code, exitUsage, stderr)
			}
			if !strings.Contains(stderr, tc.want) {
				t.Errorf("stderr does not say %q:\n%s", tc.want, stderr)
			}
			if len(tc.args) > 0 && !strings.Contains(stderr, "--help") {
				t.Errorf("stderr has no pointer to --help:\n%s", stderr)
			}
			if stdout != "" {
				t.Errorf("stdout not empty on a usage error:\n%s", stdout)
			}
		})
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("usage errors left files behind: %v", entries)
	}
}

func TestUsageErrorsNeverEchoHeaderOrEnvValues(t *testing.T) {
	const secret = "tok-3c1e2f9b7a"
	for _, args := range [][]string{
		{"check", "--header", secret, "http://127.0.0.1:1/mcp"},
		{"check", "--header", "Authorization: Bearer " + secret + "\r\nX: y", "http://127.0.0.1:1/mcp"},
		{"check", "--header", "Authorization: Bearer " + secret, "--", "srv"},
		{"check", "--env", secret, "--", "srv"},
		{"check", "--env", "API_TOKEN=" + secret, "http://127.0.0.1:1/mcp"},
	} {
		code, stdout, stderr := runCLI(t, context.Background(), args...)
		if code != exitUsage {
			t.Errorf("%q: exit %d", args, code)
		}
		if strings.Contains(stdout+stderr, secret) {
			t.Errorf("%q: the value was echoed:\n%s", args, stderr)
		}
	}
}

func TestParseCheckArgsAcceptsFailOnErrorWarningAndAdvice(t *testing.T) {
	for _, level := range []checks.Severity{checks.SeverityError, checks.SeverityWarning, checks.SeverityAdvice} {
		cfg, err := parseCheckArgs([]string{"--fail-on", string(level), "http://127.0.0.1:9/mcp"})
		if err != nil {
			t.Fatalf("--fail-on %s: %v", level, err)
		}
		if cfg.failOn != level {
			t.Errorf("--fail-on %s: failOn %q", level, cfg.failOn)
		}
	}
}

func TestParseCheckArgsReadsBothForms(t *testing.T) {
	cfg, err := parseCheckArgs([]string{"--format", "json", "http://127.0.0.1:9/mcp", "-v", "--fail-on", "warning",
		"-H", "Authorization: Bearer abc123", "--header", "x-tenant:  blue ", "--checks", "jsonrpc.*, lifecycle.ping,",
		"--skip", "http.origin", "--max-message-size", "2MiB", "--timeout", "30s", "--protocol-version", "2025-06-18",
		"-o", "-", "--no-color", "--log-level", "debug"})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.target.URL != "http://127.0.0.1:9/mcp" || cfg.target.Command != nil {
		t.Errorf("target = %+v", cfg.target)
	}
	if cfg.format.Name != "json" || !cfg.verbose || cfg.failOn != checks.SeverityWarning || !cfg.noColor || cfg.output != "-" {
		t.Errorf("cfg = %+v", cfg)
	}
	if got := cfg.target.Header.Get("X-Tenant"); got != "blue" {
		t.Errorf("X-Tenant = %q", got)
	}
	if !slices.Equal(cfg.headerNames, []string{"Authorization", "X-Tenant"}) || !slices.Contains(cfg.secrets, "Bearer abc123") {
		t.Errorf("header names %v secrets %d", cfg.headerNames, len(cfg.secrets))
	}
	if !slices.Equal(cfg.include, []string{"jsonrpc.*", "lifecycle.ping"}) || !slices.Equal(cfg.exclude, []string{"http.origin"}) {
		t.Errorf("include %v exclude %v", cfg.include, cfg.exclude)
	}
	o := cfg.options
	if o.Limits.MaxMessageBytes != 2<<20 || o.Timeout != 30*time.Second || o.InitTimeout != defaultInitTimeout ||
		o.RequestTimeout != defaultRequestTimeout || o.ProtocolVersion != "2025-06-18" || o.ShutdownGrace != defaultShutdownGrace {
		t.Errorf("options = %+v", o)
	}

	cfg, err = parseCheckArgs([]string{"--env", "A=1", "--env", "SERVICE_TOKEN=s3cr3t", "--dir", "/tmp", "--shutdown-grace", "500ms",
		"--", "npx", "-y", "server", "--verbose", "--", "x"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(cfg.target.Command, []string{"npx", "-y", "server", "--verbose", "--", "x"}) {
		t.Errorf("command = %q: flags after -- belong to the server", cfg.target.Command)
	}
	if cfg.verbose {
		t.Error("the server's --verbose was taken as prober's")
	}
	if !slices.Equal(cfg.target.Env, []string{"A=1", "SERVICE_TOKEN=s3cr3t"}) || cfg.target.Dir != "/tmp" || cfg.options.ShutdownGrace != 500*time.Millisecond {
		t.Errorf("target = %+v", cfg.target)
	}
	if !slices.Equal(cfg.secrets, []string{"s3cr3t"}) {
		t.Errorf("secrets = %q: a credential-looking variable's value is a secret, others are not", cfg.secrets)
	}
	if cfg.format.Name != "text" || cfg.failOn != checks.SeverityError || cfg.options.ProtocolVersion != "auto" {
		t.Errorf("defaults: format %q failOn %q revision %q", cfg.format.Name, cfg.failOn, cfg.options.ProtocolVersion)
	}
}

func TestParseCheckArgsTreatsAURLPasswordAsASecret(t *testing.T) {
	cfg, err := parseCheckArgs([]string{"http://user:hunter2pw@127.0.0.1:9/mcp"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(cfg.secrets, "hunter2pw") {
		t.Errorf("secrets = %q", cfg.secrets)
	}
}

func TestParseCheckArgsHelp(t *testing.T) {
	for _, args := range [][]string{{"-h"}, {"--help"}, {"http://127.0.0.1:9/mcp", "--help"}} {
		if _, err := parseCheckArgs(args); !errors.Is(err, flag.ErrHelp) {
			t.Errorf("%q: err = %v, want flag.ErrHelp", args, err)
		}
	}
	if _, err := parseCheckArgs([]string{"--", "srv", "--help"}); err != nil {
		t.Errorf("--help after -- belongs to the server: err = %v", err)
	}
}

// The flags of durations and sizes read the grammar of the configuration file: each input
// of the tables of internal/units reads the same through the flag set of `prober check`.
func TestFlagsReadTheGrammarOfTheConfiguration(t *testing.T) {
	var v checkFlags
	fs := newCheckFlagSet(&v)
	for _, r := range unitstest.Durations(t) {
		err := fs.Set("timeout", r.In)
		if (err == nil) != r.OK || (r.OK && int64(v.timeout) != r.Want) {
			t.Errorf("--timeout %q = %v, %v; want %v, ok %v", r.In, v.timeout, err, time.Duration(r.Want), r.OK)
		}
	}
	for _, r := range unitstest.Sizes(t) {
		err := fs.Set("max-message-size", r.In)
		if (err == nil) != r.OK || (r.OK && int64(v.maxMessage) != r.Want) {
			t.Errorf("--max-message-size %q = %v, %v; want %d, ok %v", r.In, v.maxMessage, err, r.Want, r.OK)
		}
	}
}

func TestHelpDocumentsEveryFlagWithItsDefault(t *testing.T) {
	code, stdout, _ := runCLI(t, context.Background(), "check", "--help")
	if code != exitOK {
		t.Fatalf("exit %d", code)
	}
	var v checkFlags
	newCheckFlagSet(&v).VisitAll(func(f *flag.Flag) {
		dashes := "--"
		if len(f.Name) == 1 {
			dashes = "-"
		}
		if !strings.Contains(stdout, dashes+f.Name+" ") && !strings.Contains(stdout, dashes+f.Name+",") {
			t.Errorf("help does not document %s%s", dashes, f.Name)
		}
	})
	for _, want := range []string{
		"prober check [flags] URL", "prober check [flags] -- COMMAND [ARGS...]",
		"prober check -- npx -y", "--format json --output", "--fail-on warning", "--header \"Authorization: Bearer",
		"(default text)", "(default error)", "(default auto): auto offers 2026-07-28", "auto (default), http", "(default 60s)", "(default 45s)", "(default 10s)",
		"(default 16MiB)", "(default 2s)", "(default warn)", "warning (a broken SHOULD too) or advice", "untested",
		"Exit codes:", "0    no check fails", "1    a check fails", "2    usage error", "130  interrupted",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("check help lacks %q", want)
		}
	}
}

func TestHelpAndVersionCommands(t *testing.T) {
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--help"}, exitOK, "prober check [flags] -- COMMAND [ARGS...]"},
		{[]string{"-h"}, exitOK, "Commands:"},
		{[]string{"help"}, exitOK, "Run 'prober check --help'"},
		{[]string{"help", "check"}, exitOK, "--max-message-size"},
		{[]string{"check", "-h"}, exitOK, "Exit codes:"},
		{[]string{"version"}, exitOK, "prober "},
		{[]string{"--version"}, exitOK, "prober "},
	}
	for _, tc := range tests {
		code, stdout, stderr := runCLI(t, context.Background(), tc.args...)
		if code != tc.code || !strings.Contains(stdout, tc.want) {
			t.Errorf("%q: exit %d, stdout %q (stderr %q); want %d and %q", tc.args, code, stdout, stderr, tc.code, tc.want)
		}
	}
	code, _, stderr := runCLI(t, context.Background())
	if code != exitUsage || !strings.Contains(stderr, "Usage:") {
		t.Errorf("no arguments: exit %d, stderr %q", code, stderr)
	}
}

func TestColourForATerminalOrWhenForcedNeverAgainstNoColor(t *testing.T) {
	// /dev/null is a character device like a terminal, which is all the check looks at.
	chardev, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer chardev.Close()
	env := func(vars ...string) func(string) (string, bool) {
		return func(k string) (string, bool) {
			for i := 0; i+1 < len(vars); i += 2 {
				if vars[i] == k {
					return vars[i+1], true
				}
			}
			return "", false
		}
	}
	buffer := &bytes.Buffer{}
	tests := []struct {
		name   string
		w      io.Writer
		toFile bool
		flag   bool
		env    func(string) (string, bool)
		want   bool
	}{
		{"buffer", buffer, false, false, env(), false},
		{"character device", chardev, false, false, env(), true},
		{"NO_COLOR set", chardev, false, false, env("NO_COLOR", "1"), false},
		{"NO_COLOR empty", chardev, false, false, env("NO_COLOR", ""), true},
		{"--no-color", chardev, false, true, env(), false},
		{"report file", chardev, true, false, env(), false},
		{"FORCE_COLOR in a CI log", buffer, false, false, env("FORCE_COLOR", "1"), true},
		{"CLICOLOR_FORCE in a CI log", buffer, false, false, env("CLICOLOR_FORCE", "1"), true},
		{"FORCE_COLOR=0", buffer, false, false, env("FORCE_COLOR", "0"), false},
		{"FORCE_COLOR empty", buffer, false, false, env("FORCE_COLOR", ""), false},
		{"FORCE_COLOR=false", chardev, false, false, env("FORCE_COLOR", "false"), true},
		{"NO_COLOR wins over FORCE_COLOR", buffer, false, false, env("FORCE_COLOR", "1", "NO_COLOR", "1"), false},
		{"--no-color wins over FORCE_COLOR", buffer, false, true, env("FORCE_COLOR", "1"), false},
		{"FORCE_COLOR does not colour a report file", buffer, true, false, env("FORCE_COLOR", "1"), false},
	}
	for _, tc := range tests {
		if got := useColor(tc.flag, tc.env, tc.w, tc.toFile); got != tc.want {
			t.Errorf("%s: color = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestReportWidthIsTheTerminalsThenCOLUMNS(t *testing.T) {
	env := func(columns string) func(string) (string, bool) {
		return func(k string) (string, bool) {
			if k == "COLUMNS" && columns != "" {
				return columns, true
			}
			return "", false
		}
	}
	tests := []struct {
		name    string
		sink    *reportSink
		columns string
		want    int
	}{
		{"a pipe without COLUMNS: the report's default", &reportSink{w: &bytes.Buffer{}}, "", 0},
		{"COLUMNS", &reportSink{w: &bytes.Buffer{}}, "80", 80},
		{"COLUMNS not a number", &reportSink{w: &bytes.Buffer{}}, "wide", 0},
		{"COLUMNS negative", &reportSink{w: &bytes.Buffer{}}, "-3", 0},
	}
	for _, tc := range tests {
		e := environment{lookupEnv: env(tc.columns)}
		if got := e.reportWidth(tc.sink); got != tc.want {
			t.Errorf("%s: width %d, want %d", tc.name, got, tc.want)
		}
	}
}

// The whole-probe bound covers the first initialize: a long --init-timeout alone (the README's
// first command gives 2m for a cold `go run`) moves the default bound with it, or the probe
// ends at 60s while the server is still compiling; a --timeout given is kept as given.
func TestTimeoutFollowsALongInitTimeout(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want time.Duration
	}{
		{"defaults", nil, defaultTimeout},
		{"a short init timeout leaves the default", []string{"--init-timeout", "5s"}, defaultTimeout},
		{"a long init timeout moves it", []string{"--init-timeout", "2m"}, 2*time.Minute + afterInitTime},
		{"a timeout given is kept", []string{"--init-timeout", "2m", "--timeout", "3m"}, 3 * time.Minute},
		{"a timeout alone is kept", []string{"--timeout", "20s"}, 20 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := parseCheckArgs(append(tc.args, "http://127.0.0.1:9/mcp"))
			if err != nil {
				t.Fatal(err)
			}
			if cfg.options.Timeout != tc.want {
				t.Errorf("timeout %s, want %s", cfg.options.Timeout, tc.want)
			}
		})
	}
}
