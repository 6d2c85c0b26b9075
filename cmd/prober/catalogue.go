package main

import (
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
	format := fs.String("format", "text", "text, markdown or reference")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(e.stdout, catalogueHelp)
			return exitOK
		}
		return e.usageError(fmt.Errorf("checks: %w", err))
	}
	if fs.NArg() > 0 {
		return e.usageError(fmt.Errorf("checks: unexpected argument %q", fs.Arg(0)))
	}
	reg, err := checks.Default()
	if err != nil {
		fmt.Fprintf(e.stderr, "prober checks: %v\n", err)
		return exitFailed
	}
	switch *format {
	case "text":
		writeCatalogueText(e.stdout, reg.Checks())
	case "markdown":
		writeCatalogueMarkdown(e.stdout, reg.Checks())
	case "reference":
		if err := writeCatalogueReference(e.stdout, reg.Checks()); err != nil {
			fmt.Fprintf(e.stderr, "prober checks: %v\n", err)
			return exitFailed
		}
	default:
		return e.usageError(fmt.Errorf("checks: --format must be text, markdown or reference, got %q", *format))
	}
	return exitOK
}

const catalogueHelp = `prober checks: list every check prober runs, with its ID, area, spec rule and what it requires.

Usage:
  prober checks [--format text|markdown|reference]

--format reference writes the rules catalogue (docs/checks.md): for each check the spec
sentence it enforces, its severity and why, what the probe sends and the usual fix.

The IDs are what --checks, --skip and baselines name, and what reports and the database key on.
`

func writeCatalogueText(w io.Writer, cs []checks.Check) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tRULE\tTRANSPORT\tREQUIRES")
	for _, c := range cs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", c.ID, c.Rule, transportOf(c), c.Title)
	}
	tw.Flush()
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
