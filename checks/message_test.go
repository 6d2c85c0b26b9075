package checks

import (
	"bytes"
	"encoding/json"
	"testing"
	"unicode/utf8"
)

func TestClassifyNamesWhatTheBytesAre(t *testing.T) {
	rows := []struct {
		name string
		raw  string
		kind MessageKind
		// check inspects the decoded members where the kind alone says too little.
		check func(t *testing.T, m Message)
	}{
		{name: "a request", raw: `{"jsonrpc":"2.0","id":1,"method":"ping"}`, kind: Request,
			check: func(t *testing.T, m Message) {
				if m.Method != "ping" || string(m.ID) != "1" || !m.HasJSONRPC || m.IsResponse() {
					t.Errorf("members %+v", m)
				}
			}},
		{name: "a request with a string id", raw: `{"jsonrpc":"2.0","id":"a","method":"x","params":{}}`, kind: Request,
			check: func(t *testing.T, m Message) {
				if string(m.ID) != `"a"` || string(m.Params) != `{}` {
					t.Errorf("id %s params %s", m.ID, m.Params)
				}
			}},
		{name: "a request with a null id is still a request", raw: `{"jsonrpc":"2.0","id":null,"method":"x"}`, kind: Request,
			check: func(t *testing.T, m Message) {
				if !m.NullID() {
					t.Error("NullID false for an explicit null")
				}
			}},
		{name: "a notification", raw: `{"jsonrpc":"2.0","method":"notifications/initialized"}`, kind: Notification},
		{name: "a result", raw: `{"jsonrpc":"2.0","id":1,"result":{}}`, kind: ResultResponse,
			check: func(t *testing.T, m Message) {
				if !m.IsResponse() || m.NullID() {
					t.Errorf("IsResponse %v NullID %v", m.IsResponse(), m.NullID())
				}
			}},
		{name: "a null result is a result", raw: `{"jsonrpc":"2.0","id":1,"result":null}`, kind: ResultResponse},
		{name: "an error", raw: `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"m"}}`, kind: ErrorResponse},
		{name: "an error with a null id", raw: `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"m"}}`, kind: ErrorResponse,
			check: func(t *testing.T, m Message) {
				if !m.NullID() || !m.HasID {
					t.Error("null id not seen")
				}
			}},
		{name: "an error without an id", raw: `{"jsonrpc":"2.0","error":{"code":-32600,"message":"m"}}`, kind: ErrorResponse,
			check: func(t *testing.T, m Message) {
				if m.HasID || m.NullID() {
					t.Error("an absent id reported as present")
				}
			}},
		{name: "surrounding whitespace is JSON's", raw: " \t{\"jsonrpc\":\"2.0\",\"method\":\"x\"}\r\n", kind: Notification},
		{name: "result and error", raw: `{"jsonrpc":"2.0","id":1,"result":{},"error":{}}`, kind: Malformed,
			check: func(t *testing.T, m Message) {
				if !m.IsResponse() {
					t.Error("a response with both members is still meant as a response")
				}
			}},
		{name: "neither result nor error", raw: `{"jsonrpc":"2.0","id":1}`, kind: Malformed},
		{name: "an empty object", raw: `{}`, kind: Malformed},
		{name: "a numeric method", raw: `{"jsonrpc":"2.0","method":1}`, kind: Malformed},
		{name: "a null method", raw: `{"jsonrpc":"2.0","id":1,"method":null}`, kind: Malformed},
		{name: "a method with a result", raw: `{"jsonrpc":"2.0","id":1,"method":"x","result":{}}`, kind: Malformed,
			check: func(t *testing.T, m Message) {
				if m.IsResponse() {
					t.Error("a message with a method counted as a response")
				}
			}},
		{name: "a batch", raw: `[{"jsonrpc":"2.0","method":"x"}]`, kind: NotObject},
		{name: "a string", raw: `"hello"`, kind: NotObject},
		{name: "a number", raw: `42`, kind: NotObject},
		{name: "null", raw: `null`, kind: NotObject},
		{name: "a banner", raw: `Server started on stdio`, kind: NotJSON,
			check: func(t *testing.T, m Message) {
				if m.ParseErr == "" || m.BadUTF8 {
					t.Errorf("ParseErr %q BadUTF8 %v", m.ParseErr, m.BadUTF8)
				}
			}},
		{name: "a cut message", raw: `{"jsonrpc":"2.0","id":1,`, kind: NotJSON},
		{name: "two messages on one line", raw: `{"jsonrpc":"2.0","method":"a"}{"jsonrpc":"2.0","method":"b"}`, kind: NotJSON},
		{name: "an empty line", raw: ``, kind: NotJSON,
			check: func(t *testing.T, m Message) {
				if m.ParseErr != "empty" {
					t.Errorf("ParseErr %q, want empty", m.ParseErr)
				}
			}},
		{name: "blanks only", raw: "  \t ", kind: NotJSON},
		{name: "invalid UTF-8", raw: "{\"jsonrpc\":\"2.0\",\"method\":\"\xff\"}", kind: NotJSON,
			check: func(t *testing.T, m Message) {
				if !m.BadUTF8 {
					t.Error("BadUTF8 false")
				}
			}},
		{name: "a duplicate member keeps the last", raw: `{"jsonrpc":"2.0","id":1,"id":2,"result":{}}`, kind: ResultResponse,
			check: func(t *testing.T, m Message) {
				if string(m.ID) != "2" {
					t.Errorf("id %s", m.ID)
				}
			}},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			m := Classify([]byte(row.raw))
			if m.Kind != row.kind {
				t.Fatalf("kind %s, want %s", m.Kind, row.kind)
			}
			if row.check != nil {
				row.check(t, m)
			}
		})
	}
}

// FuzzClassify feeds Classify arbitrary bytes: it must never panic, and the kind it gives
// must agree with what encoding/json makes of the same bytes.
func FuzzClassify(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":"x","result":{}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`,
		`{"jsonrpc":"2.0","id":1,"result":{},"error":{}}`,
		`{"method":7}`, `{"id":1,"\u0069d":2,"result":{}}`, `[]`, `"s"`, `1e400`, ``, "\xff", `{"a":`, `{}`, "\ufeff{}",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		m := Classify(raw)
		trimmed := bytes.Trim(raw, " \t\r\n")
		switch {
		case !utf8.Valid(raw):
			if m.Kind != NotJSON || !m.BadUTF8 {
				t.Fatalf("invalid UTF-8 classified %s", m.Kind)
			}
			return
		case len(trimmed) == 0 || !json.Valid(trimmed):
			if m.Kind != NotJSON {
				t.Fatalf("invalid JSON classified %s", m.Kind)
			}
			return
		case trimmed[0] != '{':
			if m.Kind != NotObject {
				t.Fatalf("a JSON %s classified %s", jsonType(trimmed), m.Kind)
			}
			return
		}
		var members map[string]json.RawMessage
		if err := json.Unmarshal(trimmed, &members); err != nil {
			t.Fatalf("valid object did not decode: %v", err)
		}
		_, hasMethod := members["method"]
		_, hasID := members["id"]
		_, hasResult := members["result"]
		_, hasError := members["error"]
		var method string
		stringMethod := hasMethod && bytes.HasPrefix(bytes.TrimSpace(members["method"]), []byte(`"`)) &&
			json.Unmarshal(members["method"], &method) == nil
		want := Malformed
		switch {
		case hasMethod && stringMethod && !hasResult && !hasError && hasID:
			want = Request
		case hasMethod && stringMethod && !hasResult && !hasError:
			want = Notification
		case !hasMethod && hasResult && !hasError:
			want = ResultResponse
		case !hasMethod && hasError && !hasResult:
			want = ErrorResponse
		}
		if m.Kind != want {
			t.Fatalf("classified %s, want %s for %q", m.Kind, want, raw)
		}
		if m.HasID != hasID || m.HasMethod != hasMethod || m.HasResult != hasResult || m.HasError != hasError {
			t.Fatalf("member flags disagree with the object %q: %+v", raw, m)
		}
		// The values too, duplicated and escaped names included: the last of a name wins.
		for name, got := range map[string]json.RawMessage{"jsonrpc": m.JSONRPC, "id": m.ID, "method": m.MethodRaw, "params": m.Params, "result": m.Result, "error": m.Error} {
			if want := bytes.TrimSpace(members[name]); !bytes.Equal(got, want) {
				t.Fatalf("%s is %q, want %q in %q", name, got, want, raw)
			}
		}
		if (m.Kind == Request || m.Kind == Notification) && m.Method != method {
			t.Fatalf("method %q, want %q", m.Method, method)
		}
		if m.IsResponse() && m.HasMethod {
			t.Fatal("a message with a method counted as a response")
		}
		_ = m.Kind.String()
	})
}
