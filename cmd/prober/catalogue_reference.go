package main

//go:generate sh -c "go run . checks --format reference > ../../docs/checks.md"

import (
	"fmt"
	"io"
	"strings"

	"github.com/mcpwatch/mcpwatch/checks"
	"github.com/mcpwatch/mcpwatch/protocol"
)

// catalogueAreaTitle names an area of the catalogue as a heading.
func catalogueAreaTitle(area string) string {
	titles := map[string]string{
		"jsonrpc":   "JSON-RPC envelope",
		"lifecycle": "Lifecycle",
		"discover":  "Stateless revision: server/discover",
		"results":   "Stateless revision: results",
		"stateless": "Stateless revision: HTTP headers",
		"tools":     "Tools",
		"resources": "Resources",
		"prompts":   "Prompts",
		"stdio":     "stdio transport",
		"http":      "Streamable HTTP transport",
		"sse":       "Legacy HTTP+SSE transport",
		"auth":      "Authorization",
		"tls":       "TLS",
	}
	if t, ok := titles[area]; ok {
		return t
	}
	return area
}

const referenceIntro = `# Rules catalogue

<!-- Generated from the check registry by ` + "`go generate ./cmd/prober`" + ` (which runs
` + "`prober checks --format reference`" + `); do not edit by hand. -->

Every finding of ` + "`prober check`" + ` names one of the checks below. Each entry says which sentence
of the MCP specification (or of JSON-RPC 2.0 or an RFC that the specification makes normative)
the check enforces, why a broken rule gets the severity it gets, what the probe sends to provoke
the rule, and the fix server authors usually apply.

Severity follows the keyword of the sentence: **error** for MUST and MUST NOT, **warning** for
SHOULD and SHOULD NOT (and for a MUST the probe can only provoke by breaking a client rule
itself), **advice** where no keyword requires anything (shown, failing the verdict only with
` + "`--fail-on advice`" + `), **info** for facts that are never a failure. A check that does not
apply (another transport, a revision without the rule, a capability the server did not declare)
is skipped, never failed; one that applies but could not be judged (the server died, the step
it needs failed) is untested, never a pass. One fault makes one finding: an answer is judged by
the check whose rule it breaks.

The probe calls no tool the server lists unless a calls file asks it to (` + "`--calls`" + `): the
four checks of those calls (` + "`tools.call-result`, `tools.structured-content`" + `,
` + "`tools.invalid-arguments`, `tools.call-expectations`" + `) skip without one.
[calls.md](calls.md) describes the file and what the probe sends.

A finding links to the rule in the revision the probe spoke; the links below list, for each
revision, where the rule is stated.
`

// writeCatalogueReference writes docs/checks.md: every check of the registry with its
// catalogue entry, grouped by area in registry order.
func writeCatalogueReference(w io.Writer, cs []checks.Check) error {
	var b strings.Builder
	b.WriteString(referenceIntro)
	official := checks.OfficialSuite()
	byCheck := checks.OfficialIDsByCheck(official)
	area := ""
	for _, c := range cs {
		if c.Area != area {
			area = c.Area
			fmt.Fprintf(&b, "\n## %s\n", catalogueAreaTitle(area))
		}
		writeReferenceEntry(&b, c)
		b.WriteString(officialSuiteLine(byCheck, c.ID))
	}
	writeOfficialSuiteSection(&b, official, cs)
	_, err := io.WriteString(w, b.String())
	return err
}

func writeReferenceEntry(b *strings.Builder, c checks.Check) {
	fmt.Fprintf(b, "\n### `%s`\n\n", c.ID)
	if c.Title != "" {
		fmt.Fprintf(b, "%s.\n\n", upperFirst(c.Title))
	}
	d := c.Doc
	if d == nil {
		fmt.Fprintf(b, "- **Links:** %s\n", referenceLinks(c))
		return
	}
	rule := "Rule"
	if c.Rule != "" && c.Rule != "-" {
		rule += " " + c.Rule
	}
	fmt.Fprintf(b, "- **%s** (%s; %s): %s.\n", rule, d.Section, d.Revisions, d.Requirement)
	fmt.Fprintf(b, "- **Keyword:** %s. **Severity:** %s (%s).\n", d.Keyword, d.Severity, d.Why)
	fmt.Fprintf(b, "- **The probe sends:** %s.\n", d.Sends)
	fmt.Fprintf(b, "- **Usual fix:** %s.\n", d.Hint)
	if c.Transport != "" {
		fmt.Fprintf(b, "- **Transport:** %s only.\n", c.Transport)
	}
	fmt.Fprintf(b, "- **Links:** %s\n", referenceLinks(c))
}

// referenceLinks lists the check's link per revision, revisions with the same link together.
func referenceLinks(c checks.Check) string {
	type group struct {
		from, to, url string
	}
	var gs []group
	for _, rev := range protocol.Revisions() {
		u := c.SpecURL(rev)
		if n := len(gs); n > 0 && gs[n-1].url == u {
			gs[n-1].to = rev
			continue
		}
		gs = append(gs, group{rev, rev, u})
	}
	if len(gs) == 1 {
		return fmt.Sprintf("[every revision](%s)", gs[0].url)
	}
	var parts []string
	for _, g := range gs {
		revs := g.from
		if g.to != g.from {
			revs += " to " + g.to
		}
		parts = append(parts, fmt.Sprintf("[%s](%s)", revs, g.url))
	}
	return strings.Join(parts, " · ")
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
