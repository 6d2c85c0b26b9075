package toolsurface

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/internal/fixture"
	"github.com/mcpwatch/mcpwatch/probe"
)

func TestSchemaHashIgnoresMemberOrderAndSpacing(t *testing.T) {
	t.Parallel()
	a := SchemaHash(json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}}}`), nil)
	b := SchemaHash(json.RawMessage(`{ "properties": {"q": {"type": "string"}}, "type": "object" }`), nil)
	c := SchemaHash(json.RawMessage(`{"type":"object","properties":{"q":{"type":"integer"}}}`), nil)
	d := SchemaHash(json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}}}`), json.RawMessage(`{"type":"object"}`))
	if a != b {
		t.Error("member order or spacing changed the hash")
	}
	if a == c || a == d {
		t.Error("a changed schema kept its hash")
	}
}

// TestSchemaHashIsPinned: the memory of every monitored server keeps its tools' schema hashes,
// so a schema whose hash changed with the code would be reported as drift after an upgrade.
// The values were computed before the tool surface had a package of its own.
func TestSchemaHashIsPinned(t *testing.T) {
	t.Parallel()
	tests := []struct{ input, output, want string }{
		{"", "", "ebf7f51a13198bc6b01c07383ec42297533a06b9720e387eb214e359666e6c4a"},
		{`null`, ``, "e496befaebe5d6d7757b58efca9edac771d0f0396660a818ca32f779ee97e529"},
		{`{"type":"object","properties":{"url":{"type":"string","description":"the URL\nto fetch\t\"x\" \\ \u0001 \b\f\r <b>&amp;</b> \u2028\u2029 é"}}}`, `{"type":"object"}`, "bb4b5d4bc7cb41ee5b0b06b0d7b26c949208198ee698010cfede02c21ae7a2af"},
		{`{"b":1.50,"a":[1e5,-0,true,null],"a":{"z":0}}`, ``, "c03d9f8381399eef35c7ddf807325a4476560e8826916e7467620ae79b8ab463"},
		{"{\"s\":\"bad \xff\",\"\xfe\":1}", ``, "c276c54a84c9952cc4a47f1d879880e601bbd104da5305e242cb0f7c532f2d68"},
		{`{"unclosed":`, `[]`, "1bbf4c4bde741d5287e43eb17ad744bb977303ea5cca36fcd38bc80c6d2b73af"},
	}
	for _, tt := range tests {
		var in, out json.RawMessage
		if tt.input != "" {
			in = json.RawMessage(tt.input)
		}
		if tt.output != "" {
			out = json.RawMessage(tt.output)
		}
		if got := SchemaHash(in, out); got != tt.want {
			t.Errorf("SchemaHash(%q, %q) = %s, want %s", tt.input, tt.output, got, tt.want)
		}
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

func TestSurfaceOf(t *testing.T) {
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
		{"a name listed twice counts once", listing(withTools, `{"tools":[{"name":"a"},{"name":"a","description":"again"}]}`), "a"},
		{"stateless: the pages after server/discover", stateless(withTools, `{"tools":[{"name":"b"}],"nextCursor":"2"}`, `{"tools":[{"name":"a"}]}`), "a,b"},
		{"stateless: no tools capability and tools/list refused", stateless(`{"capabilities":{}}`, ""), ""},
		{"stateless: tools/list failed although declared", stateless(withTools, ""), "unknown"},
		{"stateless: server/discover failed", &probe.Result{Steps: listing(withTools, `{"tools":[]}`).Steps}, "unknown"},
	}
	for _, tt := range tests {
		s := SurfaceOf(tt.res)
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

func TestNewSurfaceBoundsWhatItKeeps(t *testing.T) {
	t.Parallel()
	huge := strings.Repeat("x", 100_000)
	s := NewSurface([]Entry{{Name: "t", Description: huge}, {Name: "u", Description: huge + "y"}})
	if len(s.Tools[0].Description) != MaxDescriptionBytes {
		t.Errorf("description kept to %d bytes, want %d", len(s.Tools[0].Description), MaxDescriptionBytes)
	}
	// A change past the kept part is still a change.
	d := DiffSurfaces(NewSurface([]Entry{{Name: "t", Description: huge}}), NewSurface([]Entry{{Name: "t", Description: huge + "y"}}))
	if len(d.Changed) != 1 || !d.Changed[0].Description {
		t.Errorf("diff %+v misses a change past the kept part", d)
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
		s := SurfaceOf(res)
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
