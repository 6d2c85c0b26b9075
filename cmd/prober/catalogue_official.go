package main

import (
	"fmt"
	"strings"

	"github.com/mcpwatch/mcpwatch/checks"
)

// officialSuiteLine is the line of a check's catalogue entry naming the official suite's IDs
// that test the same rule, or saying that none does.
func officialSuiteLine(byCheck map[string][]string, id string) string {
	ids := byCheck[id]
	if len(ids) == 0 {
		return fmt.Sprintf("- **Official suite:** none of its %s server checks tests this rule.\n", checks.OfficialSuiteVersion)
	}
	return fmt.Sprintf("- **Official suite:** %s.\n", codeList(ids))
}

// writeOfficialSuiteSection ends the catalogue with every server check ID of the official suite,
// what it tests, which servers it applies to and the checks of ours that judge the same rule,
// with the counts computed from that table.
func writeOfficialSuiteSection(b *strings.Builder, cs []checks.OfficialCheck, ours []checks.Check) {
	n := checks.CountOfficial(cs)
	byCheck := checks.OfficialIDsByCheck(cs)
	shared := 0
	for _, c := range ours {
		if len(byCheck[c.ID]) > 0 {
			shared++
		}
	}
	fmt.Fprintf(b, "\n## The official conformance suite\n\n")
	fmt.Fprintf(b, "The official suite (`@modelcontextprotocol/conformance` %s) reports its own check IDs when it\n", checks.OfficialSuiteVersion)
	b.WriteString("tests a server. The table maps each of them to the checks above that judge the same rule.\n")
	b.WriteString("\"Applies to\" says which servers the suite can judge with it: *any server*, or only *the suite's\n")
	b.WriteString("fixture* (its own tools, resources and prompts of known names), *an optional extension*,\n")
	b.WriteString("*credentials* (a registered client and a token), or *the suite's harness* (setup and trace\n")
	b.WriteString("records that state no rule). Where none of ours judges the rule, the last column says why.\n\n")
	fmt.Fprintf(b, "- Official server check IDs: %d.\n", n.Total)
	fmt.Fprintf(b, "- Applying to any server: %d.\n", n.AnyServer)
	fmt.Fprintf(b, "- Judged by at least one check of ours: %d.\n", n.Covered)
	fmt.Fprintf(b, "- Applying to any server and judged by none of ours: %d.\n", n.Lacked)
	fmt.Fprintf(b, "- Checks of ours whose rule the suite tests too: %d of %d.\n\n", shared, len(ours))
	b.WriteString("| Official ID | Scenario | Tests | Applies to | Ours |\n")
	b.WriteString("|---|---|---|---|---|\n")
	for _, c := range cs {
		ours := codeList(c.Ours)
		if ours == "" {
			ours = "none"
			if c.Lacked != "" {
				ours += ": " + c.Lacked
			}
		}
		fmt.Fprintf(b, "| `%s` | %s | %s | %s | %s |\n", c.ID, c.Scenario, c.Tests, c.Scope, ours)
	}
}

// codeList formats IDs as inline code, separated by commas.
func codeList(ids []string) string {
	quoted := make([]string, len(ids))
	for i, id := range ids {
		quoted[i] = "`" + id + "`"
	}
	return strings.Join(quoted, ", ")
}
