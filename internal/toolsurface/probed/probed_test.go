package probed

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/internal/testkit/fixture"
	"github.com/mcpwatch/mcpwatch/probe"
)

func page(tools string) probe.Step {
	return probe.Step{Name: probe.StepToolsList, Outcome: probe.OutcomeOK, Result: json.RawMessage(`{"tools":` + tools + `}`)}
}

func TestToolsReadsEveryPageAndSkipsMalformedTools(t *testing.T) {
	t.Parallel()
	res := &probe.Result{Steps: []probe.Step{
		{Name: probe.StepInitialize, Outcome: probe.OutcomeOK, Result: json.RawMessage(`{"tools":[{"name":"not-a-list"}]}`)},
		page(`[{"name":"b","description":"B","inputSchema":{"type":"object"}}, 5, {"description":"no name"}]`),
		page(`[{"name":"a","description":"A"}, {"name":"b","description":"again"}]`),
		{Name: probe.StepToolsList, Outcome: probe.OutcomeError},
	}}
	tools, ok := Tools(res)
	if !ok || len(tools) != 2 || tools[0].Name != "a" || tools[1].Name != "b" || tools[1].Description != "B" {
		t.Errorf("Tools = %+v, %v", tools, ok)
	}
	if _, ok := Tools(&probe.Result{Steps: []probe.Step{{Name: probe.StepToolsList, Outcome: probe.OutcomeError}}}); ok {
		t.Error("a failed tools/list gave a surface")
	}
}

// listing is a probe result whose tools/list pages answered with the given results ("" for
// a page that failed).
func listing(initialize string, pages ...string) *probe.Result {
	res := &probe.Result{Initialize: json.RawMessage(initialize)}
	for i, p := range pages {
		st := probe.Step{Name: probe.StepToolsList, Conn: probe.ConnMain, Page: i + 1, Outcome: probe.OutcomeOK, Result: json.RawMessage(p)}
		if p == "" {
			st.Outcome = probe.OutcomeError
		}
		res.Steps = append(res.Steps, st)
	}
	return res
}

// stateless is the result of a stateless probe: server/discover answered in place of
// initialize.
func stateless(discover string, pages ...string) *probe.Result {
	res := listing(discover, pages...)
	res.Initialize, res.Discover = nil, res.Initialize
	return res
}

func TestSurface(t *testing.T) {
	t.Parallel()
	const withTools = `{"capabilities":{"tools":{}}}`
	tests := []struct {
		name string
		res  *probe.Result
		want string // tool names, or "unknown"
	}{
		{"two pages", listing(withTools, `{"tools":[{"name":"b","inputSchema":{}}],"nextCursor":"2"}`, `{"tools":[{"name":"a","description":"A"}]}`), "a,b"},
		{"initialize failed", &probe.Result{}, "unknown"},
		{"the second page failed", listing(withTools, `{"tools":[{"name":"b"}],"nextCursor":"2"}`, ""), "unknown"},
		{"cut short: the last page has a cursor", listing(withTools, `{"tools":[{"name":"b"}],"nextCursor":"2"}`), "unknown"},
		{"a tool without a name", listing(withTools, `{"tools":[{"description":"x"}]}`), "unknown"},
		{"tools/list failed although declared", listing(withTools, ""), "unknown"},
		{"no tools capability and tools/list refused: no tools", listing(`{"capabilities":{}}`, ""), ""},
		// Declared means what the checks read: a capability given as null is not declared.
		{"tools capability null and tools/list refused: no tools", listing(`{"capabilities":{"tools":null}}`, ""), ""},
		{"a name listed twice counts once", listing(withTools, `{"tools":[{"name":"a"},{"name":"a","description":"again"}]}`), "a"},
		{"stateless: the pages after server/discover", stateless(withTools, `{"tools":[{"name":"b"}],"nextCursor":"2"}`, `{"tools":[{"name":"a"}]}`), "a,b"},
		{"stateless: no tools capability and tools/list refused", stateless(`{"capabilities":{}}`, ""), ""},
		{"stateless: tools/list failed although declared", stateless(withTools, ""), "unknown"},
		{"stateless: server/discover failed", &probe.Result{Steps: listing(withTools, `{"tools":[]}`).Steps}, "unknown"},
	}
	for _, tt := range tests {
		s := Surface(tt.res)
		got := "unknown"
		if s != nil {
			var names []string
			for _, tool := range s.Tools {
				names = append(names, tool.Name)
			}
			got = strings.Join(names, ",")
		}
		if got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

// A real probe of a server that speaks only the stateless revision: its tool surface comes
// from the listing that follows server/discover, as a session server's follows initialize.
func TestSurfaceOfAProbedStatelessServer(t *testing.T) {
	t.Parallel()
	for _, statelessOnly := range []bool{false, true} {
		srv, err := fixture.New(fixture.Config{StatelessOnly: statelessOnly})
		if err != nil {
			t.Fatal(err)
		}
		ts := httptest.NewServer(srv.Handler())
		t.Cleanup(ts.Close)
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		res, err := probe.Run(ctx, probe.Target{URL: ts.URL}, probe.Options{Timeout: 25 * time.Second})
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		if statelessOnly && (res.Discover == nil || res.Initialize != nil) {
			t.Fatalf("the stateless fixture was not probed statelessly: discover %s, initialize %s", res.Discover, res.Initialize)
		}
		s := Surface(res)
		if s == nil {
			t.Fatalf("stateless only %v: the tool surface is unknown", statelessOnly)
		}
		var want []string
		for _, tool := range fixture.DefaultTools() {
			want = append(want, tool.Name)
		}
		slices.Sort(want)
		var got []string
		for _, tool := range s.Tools {
			got = append(got, tool.Name)
		}
		if !slices.Equal(got, want) {
			t.Errorf("stateless only %v: tools %v, want %v", statelessOnly, got, want)
		}
	}
}
