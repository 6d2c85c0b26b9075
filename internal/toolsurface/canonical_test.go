package toolsurface

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/mcpwatch/mcpwatch/jsondoc"
)

func TestCanonicalJSONIgnoresMemberOrderAndSpacing(t *testing.T) {
	tests := []struct{ a, b string }{
		{`{"b":1,"a":[true,null,"x"]}`, ` { "a" : [ true , null , "x" ] , "b" : 1 } `},
		{`{"s":"\u00e9\n\"q\"\u0001"}`, `{"s":"é\n\"q\"\u0001"}`},
		{`{"n":1.50}`, `{"n":1.50}`},
	}
	for _, tt := range tests {
		ca, cb := canonicalOf(t, tt.a), canonicalOf(t, tt.b)
		if ca != cb {
			t.Errorf("%s -> %s, %s -> %s", tt.a, ca, tt.b, cb)
		}
		if !json.Valid([]byte(ca)) {
			t.Errorf("canonical form %s is not JSON", ca)
		}
	}
	if got := canonicalOf(t, `{"b":{"d":1,"c":2},"a":"\u0000"}`); got != `{"a":"\u0000","b":{"c":2,"d":1}}` {
		t.Errorf("canonical form %s", got)
	}
}

func canonicalOf(t testing.TB, s string) string {
	t.Helper()
	doc, err := jsondoc.Parse([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	var c Encoder
	return string(c.Append(nil, doc.Root()))
}

// goReference is how drift's schema hashes were first computed: the document decoded into
// map[string]any and encoded again by encoding/json, HTML escaping off.
func goReference(raw []byte) ([]byte, bool) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil || d.InputOffset() != int64(len(bytes.TrimRight(raw, " \t\r\n"))) {
		return nil, false
	}
	var buf bytes.Buffer
	e := json.NewEncoder(&buf)
	e.SetEscapeHTML(false)
	if e.Encode(v) != nil {
		return nil, false
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), true
}

var goFormSamples = []string{
	`{"type":"object","properties":{"q":{"type":"string","description":"a\nb\tc\"d\\e\u0001\b\f\r\u001f\u007f <b>&amp;</b> \u2028\u2029 é 😀"}}}`,
	`{"b":1.50,"a":[1e5,-0,true,null,0.1E-3],"a":{"z":0}}`,
	"{\"s\":\"bad \xff\xfe\",\"\xfe\":1,\"\\ud800\":\"\\udc00x\"}",
	`["\u0000", "", {"": {}}, []]`,
	`"top"`, `7`, `null`,
}

// TestGoFormIsEncodingJSONs: the schema hashes drift keeps stay those of encoding/json's
// form, byte for byte.
func TestGoFormIsEncodingJSONs(t *testing.T) {
	for _, s := range goFormSamples {
		assertGoFormAgrees(t, []byte(s))
	}
}

func FuzzGoFormIsEncodingJSONs(f *testing.F) {
	for _, s := range goFormSamples {
		f.Add([]byte(s))
	}
	f.Fuzz(assertGoFormAgrees)
}

func assertGoFormAgrees(t *testing.T, raw []byte) {
	want, ok := goReference(raw)
	if !ok {
		return
	}
	c := Encoder{goEscapes: true}
	if got := c.appendRaw(nil, raw); !bytes.Equal(got, want) {
		t.Fatalf("%q:\n got %s\nwant %s", raw, got, want)
	}
}
