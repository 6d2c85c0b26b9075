package probe

import (
	"bytes"
	"encoding/json"
	"errors"
	"mime"
	"testing"
)

// decodedEnvelope is what json.Unmarshal makes of a message: peekEnvelope must agree with it.
func decodedEnvelope(raw []byte) (envelope, bool) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method json.RawMessage `json:"method"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return envelope{}, false
	}
	e := envelope{id: m.ID, hasID: m.ID != nil && !bytes.Equal(m.ID, []byte("null")), result: m.Result, errValue: m.Error}
	if m.Method != nil {
		e.hasMethod = true
		_ = json.Unmarshal(m.Method, &e.method)
	}
	return e, true
}

func sameEnvelope(a, b envelope) bool {
	return bytes.Equal(a.id, b.id) && a.hasID == b.hasID && a.method == b.method && a.hasMethod == b.hasMethod &&
		bytes.Equal(a.result, b.result) && (a.result == nil) == (b.result == nil) &&
		bytes.Equal(a.errValue, b.errValue) && (a.errValue == nil) == (b.errValue == nil)
}

var envelopeCorpus = []string{
	`{"jsonrpc":"2.0","id":1,"result":{}}`,
	`{"jsonrpc":"2.0","id":"a\"b","method":"tools/list","params":{"cursor":"x"}}`,
	` { "id" : null , "error" : {"code":-32601,"message":"no"} } `,
	`{"ID":7,"Method":"ping"}`,
	`{"id":1,"id":2}`,
	`{"method":5}`,
	`{"method":"p\u0069ng"}`,
	`{"me\u0074hod":"ping","id":[1,{"a":"}"}]}`,
	`{"result":"\\\\","id":-1.5e3}`,
	`{"method":"caf\u00e9 ` + "\xff" + `"}`,
	`{"result":null,"error":null,"id":null,"method":null}`,
	`null`, `[]`, `"x"`, `3`, `{}`, `{"id":1`, `{"id":1}x`, ``, `{"id":tru}`,
	`{"a":{"b":[[[]]],"c":"]}"},"id":"z","result":[1,2,{"x":null}]}`,
}

func TestPeekEnvelopeAgreesWithEncodingJSON(t *testing.T) {
	for _, c := range envelopeCorpus {
		got, gotOK := peekEnvelope([]byte(c))
		want, wantOK := decodedEnvelope([]byte(c))
		if gotOK != wantOK || (gotOK && !sameEnvelope(got, want)) {
			t.Errorf("%q: peek %+v %v, json.Unmarshal %+v %v", c, got, gotOK, want, wantOK)
		}
	}
}

func FuzzPeekEnvelope(f *testing.F) {
	for _, c := range envelopeCorpus {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		got, gotOK := peekEnvelope(raw)
		want, wantOK := decodedEnvelope(raw)
		if gotOK != wantOK || (gotOK && !sameEnvelope(got, want)) {
			t.Fatalf("%q: peek %+v %v, json.Unmarshal %+v %v", raw, got, gotOK, want, wantOK)
		}
	})
}

func TestQuickMediaTypeAgreesWithMime(t *testing.T) {
	for _, ct := range []string{"application/json", "APPLICATION/JSON", " application/json ", "application/json; charset=utf-8",
		"application/jsonx", "application/json-seq", "text/event-stream", "application/json;", "application/json garbage", "", "text/plain"} {
		if fast, sure := quickMediaType(ct, "application/json"); sure {
			mt, _, err := mime.ParseMediaType(ct)
			full := (err == nil || errors.Is(err, mime.ErrInvalidMediaParameter)) && mt == "application/json"
			if fast != full {
				t.Errorf("%q: quick says %v, mime says %v", ct, fast, full)
			}
		}
	}
}

func TestAppendJSONStringMatchesEncodingJSON(t *testing.T) {
	for _, s := range []string{"", "tools/list", "notifications/initialized", `a"b`, `a\b`, "tab\t", "<html>", "café", "\x7f", "mcpwatch/dev"} {
		want, _ := json.Marshal(s)
		if got := appendJSONString(nil, s); !bytes.Equal(got, want) {
			t.Errorf("%q: %s, want %s", s, got, want)
		}
	}
}

func TestIDKeyDecodesStringIDs(t *testing.T) {
	for _, c := range []struct{ id, want string }{
		{`7`, `7`},
		{`"7"`, `7`},
		{` "abc-1" `, `abc-1`},
		{`"a\"b"`, `a"b`},
		{`"caf\u00e9"`, "café"},
		{`"é"`, "é"},
		{`""`, ``},
		{`null`, `null`},
		{`"unterminated`, `"unterminated`},
		{`"`, `"`},
	} {
		if got := idKey(json.RawMessage(c.id)); got != c.want {
			t.Errorf("idKey(%s) = %q, want %q", c.id, got, c.want)
		}
	}
}
