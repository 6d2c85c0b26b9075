package main

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpwatch/mcpwatch/checks"
)

func referenceCatalogue(t *testing.T) string {
	t.Helper()
	var out, errOut bytes.Buffer
	if code := dispatch(context.Background(), []string{"checks", "--format", "reference"}, &out, &errOut); code != exitOK {
		t.Fatalf("checks --format reference: exit %d: %s", code, errOut.String())
	}
	return out.String()
}

// The counts the catalogue prints are those of the mapping, so they cannot drift from the
// table when an official ID is added or mapped.
func TestCatalogueCountsTheOfficialSuiteFromItsTable(t *testing.T) {
	doc := referenceCatalogue(t)
	n := checks.CountOfficial(checks.OfficialSuite())
	for _, line := range []string{
		fmt.Sprintf("- Official server check IDs: %d.\n", n.Total),
		fmt.Sprintf("- Applying to any server: %d.\n", n.AnyServer),
		fmt.Sprintf("- Judged by at least one check of ours: %d.\n", n.Covered),
		fmt.Sprintf("- Applying to any server and judged by none of ours: %d.\n", n.Lacked),
	} {
		if !strings.Contains(doc, line) {
			t.Errorf("the catalogue lacks the count %q", line)
		}
	}
	for _, c := range checks.OfficialSuite() {
		if got := strings.Count(doc, "\n| `"+c.ID+"` |"); got != 1 {
			t.Errorf("official %s has %d rows in the catalogue's table, want 1", c.ID, got)
		}
	}
}

// Each check's entry names the official IDs of its rule, inside the entry and not another's.
func TestCatalogueEntryNamesTheOfficialIDsOfItsRule(t *testing.T) {
	doc := referenceCatalogue(t)
	by := checks.OfficialIDsByCheck(checks.OfficialSuite())
	reg, err := checks.Default()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range reg.Checks() {
		start := strings.Index(doc, "### `"+c.ID+"`\n")
		if start < 0 {
			t.Fatalf("no entry for %s", c.ID)
		}
		entry := doc[start:]
		if end := strings.Index(entry[1:], "\n#"); end >= 0 {
			entry = entry[:end+1]
		}
		line := officialSuiteLine(by, c.ID)
		if !strings.Contains(entry, line) {
			t.Errorf("entry of %s lacks %q", c.ID, line)
		}
	}
}
