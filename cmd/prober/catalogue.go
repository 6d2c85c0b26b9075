package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/mcpwatch/mcpwatch/checks"
)

// catalogue prints every check prober runs: its ID (what --checks, --skip, baselines and the
// database key on), the spec rule and what it requires. --format markdown is the table the
// README carries; --format reference is docs/checks.md, the rules catalogue.
func (e environment) catalogue(args []string) int {
	fs := flag.NewFlagSet("prober checks", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	format := fs.String("format", "text", "text, json, markdown or reference")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(e.stdout, catalogueHelp)
			return exitOK
		}
		return e.checksUsageError(err)
	}
	if fs.NArg() > 0 {
		return e.checksUsageError(fmt.Errorf("unexpected argument %q", fs.Arg(0)))
	}
	reg, err := checks.Default()
	if err != nil {
		fmt.Fprintf(e.stderr, "prober checks: %v\n", err)
		return exitFailed
	}
	switch *format {
	case "text":
		writeCatalogueText(e.stdout, reg.Checks())
	case "json":
		if err := writeCatalogueJSON(e.stdout, reg.Checks()); err != nil {
			fmt.Fprintf(e.stderr, "prober checks: %v\n", err)
			return exitFailed
		}
	case "markdown":
		writeCatalogueMarkdown(e.stdout, reg.Checks())
	case "reference":
		if err := writeCatalogueReference(e.stdout, reg.Checks()); err != nil {
			fmt.Fprintf(e.stderr, "prober checks: %v\n", err)
			return exitFailed
		}
	default:
		return e.checksUsageError(fmt.Errorf("--format must be text, json, markdown or reference, got %q", *format))
	}
	return exitOK
}

// checksUsageError reports a command line `prober checks` cannot run, naming its own help.
func (e environment) checksUsageError(err error) int {
	fmt.Fprintf(e.stderr, "prober checks: %v\nRun 'prober checks --help' for usage.\n", err)
	return exitUsage
}

const catalogueHelp = `prober checks: list every check prober runs, with its ID, the severity a
broken rule is reported at (error for a MUST, warning for a SHOULD, advice, info), the protocol
revisions it is judged in, its spec rule, its transport and what it requires.

Usage:
  prober checks [--format text|json|markdown|reference]

Examples:
  prober checks                                  # the table
  prober checks --format json | jq -r '.checks[] | select(.severity == "error") | .id'

--format json is the same list for programs: {"checks": [{"id", "area", "severity",
"revisions", "keyword", "rule", "transport", "title", "spec", "hint"}, ...]}.
--format markdown is the table of the README. --format reference writes the rules catalogue (docs/checks.md): for each check the spec
sentence it enforces, its severity and why, what the probe sends and the usual fix.

The IDs are what --checks, --skip and baselines name, and what reports and the database key on.
`

func writeCatalogueText(w io.Writer, cs []checks.Check) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSEVERITY\tREVISIONS\tRULE\tTRANSPORT\tREQUIRES")
	for _, c := range cs {
		e := catalogueEntryOf(c)
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", e.ID, dash(e.Severity), dash(revisionRange(e.Revisions)), dash(e.Rule), e.Transport, e.Title)
	}
	tw.Flush()
}

// catalogueEntry is one check of `prober checks --format json`. Fields are added, never
// renamed: scripts read them.
type catalogueEntry struct {
	ID   string `json:"id"`
	Area string `json:"area"`
	// Severity is what a broken rule is reported as: error, warning, advice or info.
	Severity string `json:"severity"`
	// Revisions are the protocol revisions the rule is judged in ("all", "2025-06-18 and
	// later", ...).
	Revisions string `json:"revisions"`
	// Keyword is the normative keyword of the spec sentence (MUST, SHOULD, none).
	Keyword   string `json:"keyword"`
	Rule      string `json:"rule"`
	Transport string `json:"transport"`
	Title     string `json:"title"`
	Spec      string `json:"spec"`
	Hint      string `json:"hint"`
}

func catalogueEntryOf(c checks.Check) catalogueEntry {
	e := catalogueEntry{ID: c.ID, Area: c.Area, Rule: c.Rule, Transport: transportOf(c), Title: c.Title, Spec: c.Spec, Hint: c.Hint}
	if c.Rule == "-" {
		e.Rule = ""
	}
	if d := c.Doc; d != nil {
		e.Severity, e.Revisions, e.Keyword = d.Severity, d.Revisions, d.Keyword
	}
	return e
}

func writeCatalogueJSON(w io.Writer, cs []checks.Check) error {
	doc := struct {
		Checks []catalogueEntry `json:"checks"`
	}{Checks: make([]catalogueEntry, 0, len(cs))}
	for _, c := range cs {
		doc.Checks = append(doc.Checks, catalogueEntryOf(c))
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("writing the checks as JSON: %w", err)
	}
	return nil
}

// revisionRange is the range of revisions a rule is judged in without the conditions that
// follow it ("2026-07-28 and later (when listChanged is declared)" is "2026-07-28 and later"),
// to keep the table's column narrow; --format json and reference have the whole text.
func revisionRange(revisions string) string {
	if i := strings.IndexAny(revisions, "(,"); i > 0 {
		return strings.TrimSpace(revisions[:i])
	}
	return revisions
}

// dash stands in for an empty table cell.
func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func writeCatalogueMarkdown(w io.Writer, cs []checks.Check) {
	fmt.Fprintln(w, "| check | rule | transport | what it requires |")
	fmt.Fprintln(w, "|---|---|---|---|")
	for _, c := range cs {
		title := strings.ReplaceAll(c.Title, "|", `\|`)
		if c.Spec != "" {
			title = fmt.Sprintf("[%s](%s)", title, c.Spec)
		}
		fmt.Fprintf(w, "| `%s` | %s | %s | %s |\n", c.ID, c.Rule, transportOf(c), title)
	}
}

func transportOf(c checks.Check) string {
	if c.Transport == "" {
		return "all"
	}
	return c.Transport
}
