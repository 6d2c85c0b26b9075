package checks

import (
	"testing"

	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/protocol"
)

// Every registered check has a catalogue entry with every field filled, its hint among
// them, and the catalogue documents no check that does not exist (pending ones excepted:
// another change registers them).
func TestEveryCheckHasACatalogueEntryAndNoEntryIsOrphaned(t *testing.T) {
	reg, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range reg.Checks() {
		d := c.Doc
		if d == nil {
			t.Errorf("%s: no catalogue entry (catalogueDocs)", c.ID)
			continue
		}
		for name, v := range map[string]string{"Revisions": d.Revisions, "Section": d.Section, "Keyword": d.Keyword,
			"Requirement": d.Requirement, "Severity": d.Severity, "Why": d.Why, "Sends": d.Sends, "Hint": d.Hint} {
			if v == "" {
				t.Errorf("%s: catalogue entry has no %s", c.ID, name)
			}
		}
		if c.Hint == "" || c.Hint != d.Hint {
			t.Errorf("%s: hint %q not attached", c.ID, c.Hint)
		}
		switch d.Severity {
		case sevError, sevWarning, sevAdvice, sevInfo:
		default:
			t.Errorf("%s: severity %q", c.ID, d.Severity)
		}
	}
	for id := range catalogueDocs() {
		if _, ok := reg.Lookup(id); !ok {
			t.Errorf("catalogueDocs documents %s, which no check registers", id)
		}
	}
}

// A finding that is not a pass carries its check's hint; a pass carries none.
func TestNonPassFindingsCarryTheHint(t *testing.T) {
	reg, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	// A stdio probe whose server never started: stdio.spawn fails, most checks skip.
	res := &probe.Result{Transport: protocol.TransportStdio, Requested: "2025-11-25", Err: "exec: no such file",
		Processes: []probe.ProcessInfo{{Conn: 1, Error: "exec: \"nope\": executable file not found in $PATH"}}}
	failing := 0
	for _, f := range reg.Evaluate(res) {
		c, _ := reg.Lookup(f.ID)
		switch {
		case f.Severity != SeverityNone:
			failing++
			if f.Hint == "" || f.Hint != c.Hint {
				t.Errorf("%s (%s): hint %q, want %q", f.ID, f.Status, f.Hint, c.Hint)
			}
		case f.Hint != "":
			t.Errorf("%s (%s) carries a hint", f.ID, f.Status)
		}
	}
	if failing == 0 {
		t.Fatal("expected stdio.spawn to fail on a server that never started")
	}
}
