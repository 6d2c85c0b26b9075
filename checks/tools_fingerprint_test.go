package checks

import (
	"crypto/sha256"
	"encoding/json"
	"os"
	"slices"
	"strconv"
	"testing"

	"github.com/mcpwatch/mcpwatch/checks/mcpschema"
	"github.com/mcpwatch/mcpwatch/internal/toolsurface"
	"github.com/mcpwatch/mcpwatch/jsondoc"
	"github.com/mcpwatch/mcpwatch/probe"
)

// referenceCanonical is the canonical form written from a map[string]any tree, the way the
// fingerprint was first computed. Fingerprints are stored and compared across versions, so
// the canonicalizer must write exactly this, byte for byte.
func referenceCanonical(b []byte, v any) []byte {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...)
	case bool:
		return strconv.AppendBool(b, v)
	case json.Number:
		return append(b, v...)
	case string:
		return toolsurface.AppendString(b, v)
	case []any:
		b = append(b, '[')
		for i, e := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = referenceCanonical(b, e)
		}
		return append(b, ']')
	}
	m := v.(map[string]any)
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = toolsurface.AppendString(b, k)
		b = append(b, ':')
		b = referenceCanonical(b, m[k])
	}
	return append(b, '}')
}

// referenceDigests are the tool digests of a tools/list result computed from a decoded tree:
// sha256 of the canonical form of the tool's name, description and schemas.
func referenceDigests(t testing.TB, raw []byte) []toolsurface.ToolDigest {
	doc, err := mcpschema.Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	m, _ := doc.(map[string]any)
	entries, _ := m["tools"].([]any)
	var out []toolsurface.ToolDigest
	for _, e := range entries {
		obj, ok := e.(map[string]any)
		if !ok {
			out = append(out, sha256.Sum256(referenceCanonical(nil, e)))
			continue
		}
		surface := map[string]any{}
		for _, k := range []string{"name", "description", "inputSchema", "outputSchema"} {
			if v, ok := obj[k]; ok {
				surface[k] = v
			}
		}
		out = append(out, sha256.Sum256(referenceCanonical(nil, surface)))
	}
	return out
}

// assertCanonicalAgrees compares the canonicalizer and the tool digests of decodePage with
// the reference on one document.
func assertCanonicalAgrees(t testing.TB, l *toolLister, raw []byte) {
	t.Helper()
	doc, err := jsondoc.Parse(raw)
	if err != nil {
		return
	}
	var c toolsurface.Encoder
	got := c.Append(nil, doc.Root())
	want := referenceCanonical(nil, doc.Root().Any())
	if string(got) != string(want) {
		t.Fatalf("%q:\n got %s\nwant %s", raw, got, want)
	}
	p := l.decodePage("2025-11-25", string(raw), &schemaBudget{})
	ref := referenceDigests(t, raw)
	if len(p.tools) != len(ref) {
		t.Fatalf("%q: %d tools, the reference %d", raw, len(p.tools), len(ref))
	}
	for i := range ref {
		if p.tools[i].digest != ref[i] {
			t.Fatalf("%q: digest of tool %d differs from the reference", raw, i)
		}
	}
}

var canonicalSamples = []string{
	`{"tools":[]}`,
	`{"tools":[{"name":"a","description":"d","inputSchema":{"type":"object","b":1,"a":[1.50,"\u00e9",null,true,false]}}]}`,
	`{"tools":[{"name":"a"},{"description":"only"},{"inputSchema":{}},{"outputSchema":{"x":{}}},{},"x",7,null,[1,{"b":2,"a":1}]]}`,
	"{\"tools\":[{\"name\":\"bad \xff\",\"description\":\"\\ud800\",\"inputSchema\":{\"\xfe\":\"\\u0001\\\"\\\\\"}}]}",
	`{"tools":[{"name":"dup","name":"last","inputSchema":{"a":1,"a":{"z":0,"y":[]}}}]}`,
	`{"tools":[{"name":"a","description":null,"inputSchema":null,"outputSchema":[]}]}`,
}

func TestCanonicalFormAndDigestsMatchTheReference(t *testing.T) {
	l := newToolLister(newTestValidator(t))
	docs := append([]string(nil), canonicalSamples...)
	for _, f := range []string{"testdata/tools13.json"} {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, string(raw))
	}
	res := readEverything(t)
	for _, st := range res.StepsNamed(probe.StepToolsList) {
		docs = append(docs, string(st.Result))
	}
	docs = append(docs, everythingTools(0), everythingTools(1))
	for _, d := range docs {
		assertCanonicalAgrees(t, l, []byte(d))
	}
}

// TestEverythingFingerprintIsStable pins the fingerprint of the recorded reference server (as
// the prober computed it before tool lists were read with jsondoc):
// monitors store fingerprints, so a change in how they are computed would report every
// server's tools as changed.
func TestEverythingFingerprintIsStable(t *testing.T) {
	reg, err := NewRegistry(toolChecks(newTestValidator(t))...)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range reg.Evaluate(readEverything(t)) {
		if f.ID != "tools.fingerprint" {
			continue
		}
		const want = "sha256:db1e1abcc36f073a327c7fcea7302b11e4307603dc8d846355afc9f5af906689"
		if got, _ := f.Data["hash"].(string); got != want || f.Data["count"] != 13 {
			t.Fatalf("fingerprint %v of %v tools, want %s of 13", f.Data["hash"], f.Data["count"], want)
		}
		return
	}
	t.Fatal("no tools.fingerprint finding")
}

// FuzzCanonicalMatchesTheReference: on any document, the canonical form and the tool digests
// are the reference's.
func FuzzCanonicalMatchesTheReference(f *testing.F) {
	for _, s := range canonicalSamples {
		f.Add([]byte(s))
	}
	l := newToolLister(newTestValidator(f))
	f.Fuzz(func(t *testing.T, raw []byte) {
		assertCanonicalAgrees(t, l, raw)
	})
}
