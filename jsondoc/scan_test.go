package jsondoc

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// assertScannersAgree fails t unless every reader of this package that builds no tree
// agrees with encoding/json on raw: Valid and ScanObject on validity, ScanObject and
// EachMember on an object's members (the last of a repeated name winning), EachElement on
// an array's elements, KindOf on the type, Str on a string; and Parse on validity too, so
// that the tree and the scanners never disagree.
func assertScannersAgree(t *testing.T, raw []byte) {
	t.Helper()
	name := string(raw)
	if len(name) > 80 {
		name = name[:80] + "…"
	}
	want := json.Valid(raw)
	if got := Valid(raw); got != want {
		t.Fatalf("%q: Valid %v, json.Valid %v", name, got, want)
	}
	if _, err := Parse(raw); (err == nil) != want {
		t.Fatalf("%q: Parse error %v, json.Valid %v", name, err, want)
	}
	scanned := map[string][]byte{}
	kind, ok := ScanObject(raw, func(n, v []byte) { scanned[string(Unquote(n))] = v })
	if ok != want {
		t.Fatalf("%q: ScanObject ok %v, json.Valid %v", name, ok, want)
	}
	if !ok {
		return
	}
	v, _ := standardDecode(raw)
	wantKind := map[string]Kind{"object": Object, "array": Array, "string": String, "number": Number, "null": Null}[typeName(v)]
	if b, isBool := v.(bool); isBool {
		wantKind = map[bool]Kind{true: True, false: False}[b]
	}
	if kind != wantKind || KindOf(raw) != wantKind {
		t.Fatalf("%q: ScanObject kind %s, KindOf %s, encoding/json %s", name, kind, KindOf(raw), wantKind)
	}
	switch kind {
	case Object:
		var ref map[string]json.RawMessage
		if err := json.Unmarshal(raw, &ref); err != nil {
			t.Fatal(err)
		}
		walked := map[string][]byte{}
		if !EachMember(raw, func(n, v []byte) { walked[string(Unquote(n))] = v }) {
			t.Fatalf("%q: EachMember refuses an object", name)
		}
		for which, got := range map[string]map[string][]byte{"ScanObject": scanned, "EachMember": walked} {
			if len(got) != len(ref) {
				t.Fatalf("%q: %s has %d members, encoding/json %d", name, which, len(got), len(ref))
			}
			for k, v := range ref {
				if !bytes.Equal(got[k], v) {
					t.Fatalf("%q: %s member %q = %s, encoding/json %s", name, which, k, got[k], v)
				}
			}
		}
	case Array:
		var ref []json.RawMessage
		if err := json.Unmarshal(raw, &ref); err != nil {
			t.Fatal(err)
		}
		var got [][]byte
		EachElement(raw, func(v []byte) { got = append(got, v) })
		if len(got) != len(ref) {
			t.Fatalf("%q: EachElement %d elements, encoding/json %d", name, len(got), len(ref))
		}
		for i := range ref {
			if !bytes.Equal(got[i], ref[i]) {
				t.Fatalf("%q: element %d = %s, encoding/json %s", name, i, got[i], ref[i])
			}
		}
	case String:
		s, ok := Str(raw)
		if !ok || s != v.(string) {
			t.Fatalf("%q: Str %q %v, encoding/json %q", name, s, ok, v)
		}
	case Null:
		if !IsNull(raw) || !EachMember(raw, func(_, _ []byte) { t.Fatal("a member of null") }) {
			t.Fatalf("%q: null not read as null", name)
		}
	}
}

func typeName(v any) string {
	switch v.(type) {
	case map[string]any:
		return "object"
	case []any:
		return "array"
	case string:
		return "string"
	case json.Number:
		return "number"
	case nil:
		return "null"
	}
	return "boolean"
}

// scanSamples add to the parser's samples what trips a scanner: every grammar fault at
// each position of an object.
var scanSamples = []string{
	`{ }`, `{"a" : [ 1 , { "b" : null } ] , "c":"d"}`,
	`{"a":1,}`, `{"a"}`, `{"a":}`, `{,"a":1}`, `{"a":1 "b":2}`, `{"a":1} x`, `{"a":[1,]}`, `{"a":[,1]}`,
	`{"a":{"b":1,}}`, `{"a":{"b"}}`, `{"a":{1:2}}`, `{"a":[}`, `{"a":{]}`,
	`{"a":0}`, `{"a":-0}`, `{"a":01}`, `{"a":-}`, `{"a":1.}`, `{"a":.5}`, `{"a":1.5e}`, `{"a":1e+}`, `{"a":1E-7}`, `{"a":-12.5e+30}`, `{"a":+1}`,
	`{"a":tru}`, `{"a":true}`, `{"a":falsey}`, `{"a":nul}`, `{"a":NaN}`,
	`{"a":"\u00e9\n\"\\\/\b\f\r\t"}`, `{"a":"\u00g0"}`, `{"a":"\x"}`, "{\"a\":\"tab\there\"}", `{"a":"unterminated}`,
	`{"\u0061":1}`, `{"a\"b":1}`, `{"a":1,"a":2}`, "{\"caf\xc3\xa9\":\"\xff\"}", `{"a":"\\"}`, `["\\\"",1]`,
	`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"x","inputSchema":{"type":"object"}}]}}`,
	` [ 1 , "]" , {} ] `, `"s"`, ` "\ud83d\ude00" `, `1`, `{`, `}`, ` null `, `nulll`, `[`, `[1 2]`,
}

func TestScannersAgreeWithEncodingJSON(t *testing.T) {
	for _, raw := range append(append([]string(nil), samples...), scanSamples...) {
		assertScannersAgree(t, []byte(raw))
	}
}

func TestScannersHoldEncodingJSONsDepthLimit(t *testing.T) {
	for _, depth := range []int{MaxDepth - 1, MaxDepth, MaxDepth + 1} {
		// depth counts the outer object: {"a":[[...]]}
		inner := depth - 1
		assertScannersAgree(t, []byte(`{"a":`+strings.Repeat("[", inner)+strings.Repeat("]", inner)+`}`))
		assertScannersAgree(t, []byte(strings.Repeat("[", depth)+strings.Repeat("]", depth)))
	}
}

func TestScannedValuesCannotBeAppendedIntoTheText(t *testing.T) {
	raw := []byte(`{"a":1,"b":[2,3]}`)
	var a, b []byte
	ScanObject(raw, func(n, v []byte) {
		if string(n) == `"a"` {
			a = v
		}
	})
	EachMember(raw, func(n, v []byte) {
		if string(n) == `"b"` {
			EachElement(v, func(e []byte) { b = e })
		}
	})
	_, _ = append(a, '9'), append(b, '9')
	if string(raw) != `{"a":1,"b":[2,3]}` {
		t.Fatalf("the text changed: %s", raw)
	}
}

func TestRawValueReaders(t *testing.T) {
	for _, c := range []struct {
		raw   string
		str   string
		strOK bool
		n     int64
		nOK   bool
	}{
		{`"plain"`, "plain", true, 0, false},
		{` "caf\u00e9" `, "café", true, 0, false},
		{"\"caf\xc3\xa9\"", "café", true, 0, false},
		{"\"bad \xff\"", "bad \uFFFD", true, 0, false},
		{`"a"b"`, "", false, 0, false},
		{`"unterminated`, "", false, 0, false},
		{`7`, "", false, 7, true},
		{`-7.0`, "", false, -7, true},
		{`7e0`, "", false, 7, true},
		{`7.5`, "", false, 0, false},
		{`1e20`, "", false, 0, false},
		{`9223372036854775807`, "", false, 9223372036854775807, true},
		{`null`, "", false, 0, false},
		{``, "", false, 0, false},
	} {
		if s, ok := Str([]byte(c.raw)); s != c.str || ok != c.strOK {
			t.Errorf("Str(%s) = %q %v, want %q %v", c.raw, s, ok, c.str, c.strOK)
		}
		if n, ok := Int64([]byte(c.raw)); n != c.n || ok != c.nOK {
			t.Errorf("Int64(%s) = %d %v, want %d %v", c.raw, n, ok, c.n, c.nOK)
		}
	}
}

// FuzzScanners holds the scanners, the walkers and the tree to encoding/json on any input.
func FuzzScanners(f *testing.F) {
	for _, s := range append(append([]string(nil), samples...), scanSamples...) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		assertScannersAgree(t, raw)
	})
}

// TestScanObjectKnowingAgreesWithScanObject holds ScanObjectKnowing to ScanObject's answer
// on messages that carry a member value seen before (in another message, as a server's
// repeated list answers are), valid and broken around it, and to stepping over it.
func TestScanObjectKnowingAgreesWithScanObject(t *testing.T) {
	type member struct{ name, value string }
	scan := func(raw []byte, known func([]byte) int) (Kind, bool, []member) {
		var got []member
		kind, ok := ScanObjectKnowing(raw, known, func(n, v []byte) { got = append(got, member{string(n), string(v)}) })
		return kind, ok, got
	}
	for _, sample := range append(append([]string(nil), samples...), scanSamples...) {
		var seen [][]byte
		if _, ok := ScanObject([]byte(sample), func(_, v []byte) {
			if c := KindOf(v); c == Object || c == Array {
				seen = append(seen, v)
			}
		}); !ok || len(seen) == 0 {
			continue
		}
		stepped := 0
		known := func(rest []byte) int {
			for _, v := range seen {
				if bytes.HasPrefix(rest, v) {
					stepped++
					return len(v)
				}
			}
			return 0
		}
		for _, v := range seen {
			for _, frame := range []string{
				`{"id":7,"result":` + string(v) + `}`,
				`{"id":7, "result" : ` + string(v) + ` , "x":[1]}`,
				`{"id":7,"result":` + string(v) + `,}`,
				`{"id":7,"result":` + string(v) + `1}`,
				`{"id":7,"result":` + string(v) + `} x`,
				`{"id":7,"result":` + string(v) + `,"a":` + string(v) + `}`,
			} {
				wantKind, wantOK, want := scan([]byte(frame), nil)
				kind, ok, got := scan([]byte(frame), known)
				if kind != wantKind || ok != wantOK || !slices.Equal(got, want) {
					t.Errorf("%s: knowing %v %v %q, ScanObject %v %v %q", frame, kind, ok, got, wantKind, wantOK, want)
				}
			}
		}
		if stepped == 0 {
			t.Errorf("%s: no known value was stepped over", sample)
		}
	}
}
