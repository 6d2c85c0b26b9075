package probe

import (
	"context"
	"strings"
	"testing"

	"github.com/mcpwatch/mcpwatch/internal/testkit/fixture"
	"github.com/mcpwatch/mcpwatch/protocol"
)

func TestRunRevisionsRunsTheRuleProbesOnce(t *testing.T) {
	dual, _ := eraFixture(t, fixture.Config{Stateless: true})
	o := testOptions()
	o.skipRules = false
	results, err := RunRevisions(context.Background(), Target{URL: dual.URL + "/mcp"}, o, protocol.Revisions())
	if err != nil {
		t.Fatal(err)
	}
	for _, res := range results {
		rules, negotiation, own := 0, 0, 0
		for _, st := range res.Steps {
			switch {
			case st.Conn == ConnStatelessHeaders || st.Conn == ConnBatch:
				own++
			case st.Conn >= ConnSession:
				rules++
			case st.Conn == ConnNegotiation:
				negotiation++
			}
		}
		// The bogus-version initialize does not depend on the revision either: it is sent
		// once, but a stateless revision's own negotiation probes are sent in its probe.
		if wantNegotiation := res.Requested == protocol.LatestSessionRevision || protocol.Stateless(res.Requested); (negotiation > 0) != wantNegotiation {
			t.Errorf("%s: %d steps on the negotiation connection, want them: %v", res.Requested, negotiation, wantNegotiation)
		}
		// The probes of a rule of one revision run in that revision's probe.
		if wantOwn := res.Requested == protocol.Revision20250326 || protocol.Stateless(res.Requested); (own > 0) != wantOwn {
			t.Errorf("%s: %d steps of the revision's own rule probes, want them: %v", res.Requested, own, wantOwn)
		}
		// The newest session revision carries the rule probes; a stateless revision's probe
		// makes its own, in its era, since the report may be about it.
		carries := res.Requested == protocol.LatestSessionRevision || protocol.Stateless(res.Requested)
		switch {
		case carries && (rules == 0 || res.RulesElsewhere != ""):
			t.Errorf("%s: %d rule steps, elsewhere %q: want its own rule probes", res.Requested, rules, res.RulesElsewhere)
		case !carries && (rules != 0 || res.RulesElsewhere == ""):
			t.Errorf("%s: %d rule steps, elsewhere %q: want none, and where they ran", res.Requested, rules, res.RulesElsewhere)
		}
	}
}

func TestRulesCarrierIsTheNewestSessionRevision(t *testing.T) {
	for _, tc := range []struct {
		revs []string
		want int
	}{
		{protocol.Revisions(), 3},
		{[]string{protocol.Revision20260728, "2024-11-05"}, 1},
		{[]string{protocol.Revision20260728}, 0},
		{[]string{"2025-06-18", "2025-03-26"}, 0},
	} {
		if got := rulesCarrier(tc.revs); got != tc.want {
			t.Errorf("%v: %d, want %d", tc.revs, got, tc.want)
		}
	}
}

func TestRulesElsewhereLeavesTheRuleProbesOut(t *testing.T) {
	ts, _ := eraFixture(t, fixture.Config{})
	o := testOptions()
	o.skipRules = false
	o.RulesElsewhere = "the monitor runs them hourly"
	res, _ := runProbe(t, Target{URL: ts.URL + "/mcp"}, o)
	if res.RulesElsewhere != o.RulesElsewhere {
		t.Errorf("result says %q", res.RulesElsewhere)
	}
	for _, st := range res.Steps {
		if st.Conn >= ConnSession || st.Name == StepUnknownTool || st.Name == StepInvalidCursor {
			t.Errorf("rule step %s on connection %d", st.Name, st.Conn)
		}
	}
	if _, ok := res.FirstStep(StepToolsList); !ok {
		t.Error("the main session did not run")
	}
}

func TestRunRevisionsProbesEachRevisionOnItsOwn(t *testing.T) {
	dual, _ := eraFixture(t, fixture.Config{Stateless: true})
	legacy, _ := eraFixture(t, fixture.Config{})
	for _, tc := range []struct {
		name    string
		url     string
		newest  string
		refused []string
	}{
		{"a server of both eras accepts all", dual.URL, protocol.Revision20260728, nil},
		{"a session-era server refuses 2026-07-28", legacy.URL, protocol.Revision20251125, []string{protocol.Revision20260728}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			results, err := RunRevisions(context.Background(), Target{URL: tc.url + "/mcp"}, testOptions(), protocol.Revisions())
			if err != nil {
				t.Fatal(err)
			}
			var refused []string
			for i, res := range results {
				if res.Requested != protocol.Revisions()[i] {
					t.Errorf("result %d is of %s, want %s", i, res.Requested, protocol.Revisions()[i])
				}
				if !res.Accepted() {
					refused = append(refused, res.Requested)
				}
			}
			if strings.Join(refused, ",") != strings.Join(tc.refused, ",") {
				t.Errorf("refused %v, want %v", refused, tc.refused)
			}
			if got := results[NewestAccepted(results)].Requested; got != tc.newest {
				t.Errorf("newest accepted %s, want %s", got, tc.newest)
			}
		})
	}
	if _, err := RunRevisions(context.Background(), Target{URL: dual.URL}, testOptions(), []string{"1999-01-01"}); err == nil {
		t.Error("an unknown revision was probed")
	}
}
