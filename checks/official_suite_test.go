package checks

import (
	"testing"
)

// Every ID the mapping names as ours is a check of the registry, so
// docs/checks.md never points a reader at a check that does not exist.
func TestOfficialSuiteNamesOnlyChecksOfTheRegistry(t *testing.T) {
	reg, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	known := make(map[string]bool)
	for _, c := range reg.Checks() {
		known[c.ID] = true
	}
	for _, c := range OfficialSuite() {
		for _, id := range c.Ours {
			if !known[id] {
				t.Errorf("official %s maps to %s, which is not in the registry", c.ID, id)
			}
		}
	}
}

// The suite's IDs are keys: one listed twice would be counted twice and could be mapped two
// ways.
func TestOfficialSuiteListsEachIDOnce(t *testing.T) {
	seen := make(map[string]bool)
	for _, c := range OfficialSuite() {
		if c.ID == "" || c.Scenario == "" || c.Tests == "" {
			t.Errorf("%+v: the ID, its scenario and what it tests are all required", c)
		}
		if seen[c.ID] {
			t.Errorf("official %s is listed twice", c.ID)
		}
		seen[c.ID] = true
	}
}

// A rule we lack says why, a rule we judge needs no excuse, and the harness's own bookkeeping
// states no rule to judge or to lack.
func TestOfficialSuiteExplainsEveryRuleItLacks(t *testing.T) {
	for _, c := range OfficialSuite() {
		switch {
		case c.Scope == OfficialHarness && (len(c.Ours) > 0 || c.Lacked != ""):
			t.Errorf("official %s is harness bookkeeping, yet maps to %v or says %q", c.ID, c.Ours, c.Lacked)
		case c.Scope != OfficialHarness && len(c.Ours) == 0 && c.Lacked == "":
			t.Errorf("official %s is judged by none of ours and says not why", c.ID)
		case len(c.Ours) > 0 && c.Lacked != "":
			t.Errorf("official %s maps to %v yet says it is lacked: %q", c.ID, c.Ours, c.Lacked)
		}
		if c.Scope.String() == "unknown" {
			t.Errorf("official %s has scope %d, which has no name", c.ID, c.Scope)
		}
	}
}

func TestCountOfficialCountsCoveredAndLackedRules(t *testing.T) {
	tests := []struct {
		name string
		cs   []OfficialCheck
		want OfficialCounts
	}{
		{"empty", nil, OfficialCounts{}},
		{"a covered rule of any server", []OfficialCheck{
			{ID: "a", Scope: OfficialAnyServer, Ours: []string{"x"}},
		}, OfficialCounts{Total: 1, AnyServer: 1, Covered: 1}},
		{"a lacked rule of any server", []OfficialCheck{
			{ID: "a", Scope: OfficialAnyServer, Lacked: "why"},
		}, OfficialCounts{Total: 1, AnyServer: 1, Lacked: 1}},
		{"a fixture rule we judge is covered, one we do not is not lacked", []OfficialCheck{
			{ID: "a", Scope: OfficialFixture, Ours: []string{"x"}},
			{ID: "b", Scope: OfficialFixture, Lacked: "fixture"},
		}, OfficialCounts{Total: 2, Covered: 1}},
		{"harness, extension and credentials are counted only in the total", []OfficialCheck{
			{ID: "a", Scope: OfficialHarness},
			{ID: "b", Scope: OfficialExtension, Lacked: "optional"},
			{ID: "c", Scope: OfficialCredentials, Lacked: "token"},
		}, OfficialCounts{Total: 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := CountOfficial(tt.cs); got != tt.want {
				t.Errorf("CountOfficial = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestOfficialIDsByCheckKeepsTheMappingOrder(t *testing.T) {
	cs := []OfficialCheck{
		{ID: "b", Ours: []string{"x"}},
		{ID: "a", Ours: []string{"x", "y"}},
		{ID: "c"},
	}
	by := OfficialIDsByCheck(cs)
	if got := by["x"]; len(got) != 2 || got[0] != "b" || got[1] != "a" {
		t.Errorf(`by["x"] = %v, want [b a]`, got)
	}
	if got := by["y"]; len(got) != 1 || got[0] != "a" {
		t.Errorf(`by["y"] = %v, want [a]`, got)
	}
	if len(by) != 2 {
		t.Errorf("OfficialIDsByCheck has %d keys, want 2 (an unmapped official ID adds none)", len(by))
	}
}
