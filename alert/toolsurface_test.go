package alert

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/probe"
)

func TestShortDiff(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("a", 60)
	tests := []struct {
		before, after, want string
	}{
		{"Fetch a page", "Fetch a web page", "Fetch a {+web +}page"},
		{"Fetch a page", "Fetch a", "Fetch a[- page-]"},
		{"Search", "Lookup", "[-Search-]{+Lookup+}"},
		{long + " x " + long, long + " y " + long,
			"…" + strings.Repeat("a", 39) + " [-x-]{+y+} " + strings.Repeat("a", 39) + "…"},
		{"é", "è", "[-é-]{+è+}"},
	}
	for _, tt := range tests {
		if got := shortDiff(tt.before, tt.after); got != tt.want {
			t.Errorf("shortDiff(%q, %q) = %q, want %q", tt.before, tt.after, got, tt.want)
		}
	}
}

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

func TestToolSurfaceOf(t *testing.T) {
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
	}
	for _, tt := range tests {
		s := ToolSurfaceOf(tt.res)
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

func TestNewToolSurfaceBoundsWhatItKeeps(t *testing.T) {
	t.Parallel()
	huge := strings.Repeat("x", 100_000)
	s := NewToolSurface([]Tool{{Name: "t", Description: huge}, {Name: "u", Description: huge + "y"}})
	if len(s.Tools[0].Description) != maxDescriptionBytes {
		t.Errorf("description kept to %d bytes, want %d", len(s.Tools[0].Description), maxDescriptionBytes)
	}
	// A change past the kept part is still a change.
	d := diffSurfaces(NewToolSurface([]Tool{{Name: "t", Description: huge}}), NewToolSurface([]Tool{{Name: "t", Description: huge + "y"}}))
	if len(d.Changed) != 1 || !d.Changed[0].Description {
		t.Errorf("diff %+v misses a change past the kept part", d)
	}
}

func TestCertificateOfTakesTheFirstToExpire(t *testing.T) {
	t.Parallel()
	later, sooner := t0.Add(90*24*time.Hour), t0.Add(10*24*time.Hour)
	res := &probe.Result{Frames: []probe.Frame{
		{HTTP: &probe.HTTPInfo{TLS: &probe.TLSInfo{Subject: "CN=a", NotAfter: later}}},
		{HTTP: &probe.HTTPInfo{}},
		{HTTP: &probe.HTTPInfo{TLS: &probe.TLSInfo{Subject: "CN=b", NotAfter: sooner}}},
	}}
	c := CertificateOf(res)
	if c == nil || c.Subject != "CN=b" || !c.NotAfter.Equal(sooner) {
		t.Errorf("certificate %+v", c)
	}
	if CertificateOf(&probe.Result{}) != nil {
		t.Error("a result without TLS has a certificate")
	}
}
