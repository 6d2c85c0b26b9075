package checks

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// agreesWithEncodingJSON fails t unless scanObject accepts exactly what encoding/json takes
// for one object, with the same members.
func agreesWithEncodingJSON(t *testing.T, raw []byte) {
	t.Helper()
	got, ok := scanObject(raw)
	want := json.Valid(raw) && len(raw) > 0 && raw[0] == '{'
	if ok != want {
		t.Fatalf("scanObject ok=%v, encoding/json valid object=%v for %q", ok, want, clipForTest(raw))
	}
	if !ok {
		return
	}
	var ref map[string]json.RawMessage
	if err := json.Unmarshal(raw, &ref); err != nil {
		t.Fatalf("encoding/json: %v", err)
	}
	if len(got) != len(ref) {
		t.Fatalf("%d members, encoding/json has %d", len(got), len(ref))
	}
	for k, v := range ref {
		if !bytes.Equal(got[k], v) {
			t.Fatalf("member %q = %s, encoding/json has %s", k, got[k], v)
		}
	}
}

func clipForTest(b []byte) string {
	if len(b) > 80 {
		return string(b[:80]) + "..."
	}
	return string(b)
}

func TestScanObjectAgreesWithEncodingJSON(t *testing.T) {
	rows := []string{
		`{}`, `{ }`, `{"a":1}`, `{"a" : [ 1 , { "b" : null } ] , "c":"d"}`,
		`{"a":1,}`, `{"a"}`, `{"a":}`, `{,"a":1}`, `{"a":1 "b":2}`, `{"a":1}}`, `{"a":1} x`, `{"a":[1,]}`, `{"a":[,1]}`,
		`{"a":{"b":1,}}`, `{"a":{"b"}}`, `{"a":{1:2}}`, `{"a":[}`, `{"a":{]}`,
		`{"a":0}`, `{"a":-0}`, `{"a":01}`, `{"a":-}`, `{"a":1.}`, `{"a":.5}`, `{"a":1.5e}`, `{"a":1e+}`, `{"a":1E-7}`, `{"a":-12.5e+30}`, `{"a":+1}`,
		`{"a":tru}`, `{"a":true}`, `{"a":falsey}`, `{"a":nul}`, `{"a":NaN}`,
		`{"a":"\u00e9\n\"\\\/\b\f\r\t"}`, `{"a":"\u00g0"}`, `{"a":"\x"}`, "{\"a\":\"tab\there\"}", `{"a":"unterminated}`,
		`{"\u0061":1}`, `{"a\"b":1}`, `{"a":1,"a":2}`,
		`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"x","inputSchema":{"type":"object"}}]}}`,
		`[]`, `"s"`, `1`, `{`, `}`,
	}
	for _, row := range rows {
		t.Run(row, func(t *testing.T) { agreesWithEncodingJSON(t, []byte(row)) })
	}
}

func TestScanObjectHoldsEncodingJSONsDepthLimit(t *testing.T) {
	for _, depth := range []int{maxScanDepth - 1, maxScanDepth, maxScanDepth + 1} {
		// depth counts the outer object: {"a":[[...]]}
		inner := depth - 1
		raw := `{"a":` + strings.Repeat("[", inner) + strings.Repeat("]", inner) + `}`
		agreesWithEncodingJSON(t, []byte(raw))
	}
}

func TestScanObjectMembersCannotBeAppendedIntoTheFrame(t *testing.T) {
	raw := []byte(`{"a":1,"b":2}`)
	m, ok := scanObject(raw)
	if !ok {
		t.Fatal("not scanned")
	}
	_ = append(m["a"], '9')
	if string(raw) != `{"a":1,"b":2}` {
		t.Fatalf("the frame changed: %s", raw)
	}
}

// FuzzScanObject holds the hand-written scanner to encoding/json on arbitrary input.
func FuzzScanObject(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{"a":[1,2.5e3,"x",true,false,null,{}]}}`,
		`{"a":"\u0041\n"}`, `{"a":-0.0E+1}`, `{"a":[[[]]]}`, `{}`, `{"a":1,}`, `[1]`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !utf8.Valid(raw) {
			return // Classify rejects these before scanning
		}
		agreesWithEncodingJSON(t, bytes.Trim(raw, " \t\r\n"))
	})
}
