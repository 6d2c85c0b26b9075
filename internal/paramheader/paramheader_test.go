package paramheader

import (
	"strings"
	"testing"

	"github.com/mcpwatch/mcpwatch/jsondoc"
)

func doc(t *testing.T, text string) jsondoc.Value {
	t.Helper()
	d, err := jsondoc.ParseString(text)
	if err != nil {
		t.Fatalf("%s: %v", text, err)
	}
	return d.Root()
}

// 2026-07-28 basic/transports/streamable-http, Value Encoding: "clients MUST use Base64
// encoding of the UTF-8 representation" for a value with "non-ASCII characters, control
// characters, or ... leading/trailing whitespace", and "MUST also Base64-encode any
// plain-ASCII value that matches the sentinel pattern". The rows are the specification's
// own encoding examples, plus the edges of the plain set.
func TestEncodeFollowsTheSpecificationsExamples(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"us-west1", "us-west1"},
		{"Hello, 世界", "=?base64?SGVsbG8sIOS4lueVjA==?="},
		{" padded ", "=?base64?IHBhZGRlZCA=?="},
		{"line1\nline2", "=?base64?bGluZTEKbGluZTI=?="},
		{"=?base64?literal?=", "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="},
		{"inner space\tand tab", "inner space\tand tab"},
		{"trailing\t", "=?base64?dHJhaWxpbmcJ?="},
		{"del\x7f", "=?base64?ZGVsfw==?="},
		{"", ""},
	} {
		got := Encode(tc.in)
		if got != tc.want {
			t.Errorf("Encode(%q) = %q, want %q", tc.in, got, tc.want)
		}
		back, err := Decode(got)
		if err != nil || back != tc.in {
			t.Errorf("Decode(%q) = %q, %v; want %q", got, back, err, tc.in)
		}
	}
}

// "Servers MUST reject requests with a recognized Mcp-Param-{Name} header that contains
// invalid characters": Decode refuses them, and broken Base64.
func TestDecodeRefusesInvalidValues(t *testing.T) {
	for _, in := range []string{"a\nb", "Zürich", "=?base64?not base64!?="} {
		if got, err := Decode(in); err == nil {
			t.Errorf("Decode(%q) = %q, want an error", in, got)
		}
	}
}

// Type conversion: "string: Use the value as-is; integer: Convert to decimal string
// representation; boolean: Convert to lowercase"; "Header extraction is defined as reading
// the instance value at the exact property path ... If no value is present at that path in
// the call arguments, the header is omitted."
func TestHeadersReadTheExactPropertyPath(t *testing.T) {
	schema := `{"type":"object","properties":{
		"region":{"type":"string","x-mcp-header":"Region"},
		"count":{"type":"integer","x-mcp-header":"Count"},
		"opts":{"type":"object","properties":{"dry":{"type":"boolean","x-mcp-header":"Dry-Run"}}},
		"city":{"type":"string","x-mcp-header":"City"},
		"query":{"type":"string"}}}`
	for _, tc := range []struct{ name, args, want string }{
		{"all present", `{"region":"us-west1","count":42,"opts":{"dry":false},"city":"Zürich","query":"x"}`,
			"Mcp-Param-Region: us-west1 (/region); Mcp-Param-Count: 42 (/count); Mcp-Param-Dry-Run: false (/opts/dry); Mcp-Param-City: =?base64?WsO8cmljaA==?= (/city)"},
		{"absent ones omitted", `{"count":-7}`, "Mcp-Param-Count: -7 (/count)"},
		{"an integer written with an exponent", `{"count":1e3}`, "Mcp-Param-Count: 1000 (/count)"},
		{"a nested value under another name is not the path", `{"dry":true,"opts":{}}`, ""},
		{"null is no value to mirror", `{"region":null}`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hs, err := Headers(doc(t, schema), doc(t, tc.args))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, h := range hs {
				got = append(got, h.Name+": "+h.Value+" ("+h.Path+")")
			}
			// Members are walked in the schema's order.
			if strings.Join(got, "; ") != tc.want {
				t.Errorf("got %q\nwant %q", strings.Join(got, "; "), tc.want)
			}
		})
	}
}

// "Clients using the Streamable HTTP transport MUST reject tool definitions where any
// x-mcp-header value violates these constraints": Headers refuses such a schema, naming why.
func TestHeadersRefuseAnInvalidTool(t *testing.T) {
	for _, tc := range []struct{ name, schema, why string }{
		{"not a token", `{"properties":{"c":{"type":"string","x-mcp-header":"City Name"}}}`, "not an RFC 9110 token"},
		{"duplicate", `{"properties":{"a":{"type":"string","x-mcp-header":"A"},"b":{"type":"string","x-mcp-header":"a"}}}`, "unique, case-insensitively"},
		{"number", `{"properties":{"a":{"type":"number","x-mcp-header":"A"}}}`, `type "number"`},
		{"under items", `{"properties":{"a":{"type":"array","items":{"type":"string","x-mcp-header":"A"}}}}`, "statically reachable"},
		{"on the root", `{"type":"string","x-mcp-header":"A"}`, "statically reachable"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Headers(doc(t, tc.schema), doc(t, `{}`))
			if err == nil || !strings.Contains(err.Error(), tc.why) {
				t.Errorf("err = %v, want one saying %q", err, tc.why)
			}
		})
	}
}
