package probe

import (
	"encoding/json"
	"testing"
)

// unmarshalledRevision is what answeredRevision must agree with: json.Unmarshal into a
// struct with a protocolVersion string.
func unmarshalledRevision(result []byte) string {
	var ir struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	_ = json.Unmarshal(result, &ir)
	return ir.ProtocolVersion
}

func TestAnsweredRevisionReadsAsJSONUnmarshal(t *testing.T) {
	for _, result := range []string{
		`{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"x","version":"1"}}`,
		`{"capabilities":{"tools":{"protocolVersion":"nested, not it"}}}`,
		`{"PROTOCOLVERSION":"any case"}`,
		`{"protocol\u0056ersion":"an escaped name"}`,
		`{"protocolVersion":"first","protocolVersion":"the last wins"}`,
		`{"protocolVersion":"kept","protocolVersion":null}`,
		`{"protocolVersion":"kept","protocolVersion":20251125}`,
		`{"protocolVersion":"kept","protocolVersion":{"a":1}}`,
		`{"protocolVersion":2025,"protocolVersion":"a later string"}`,
		`{"protocolVersion":"2025-\u0031\u0031-25"}`,
		`{"protocolVersion":"bad utf-8 ` + "\xff" + `"}`,
		`{"protocolVersion":"an unpaired surrogate \ud800"}`,
		` { "protocolVersion" : "spaced" } `,
		`{"protocolVersion":"not valid",}`,
		`{"protocolVersion":"trailing garbage"} x`,
		`{"protocolversion":"lower case"}`,
		`{"protocolVerſion":"a long s folds to s"}`,
		`{"protocolVersionX":"another name"}`,
		`["protocolVersion","an array"]`,
		`"a string"`,
		`null`,
		`{}`,
		``,
	} {
		if got, want := answeredRevision([]byte(result)), unmarshalledRevision([]byte(result)); got != want {
			t.Errorf("%s: %q, json.Unmarshal reads %q", result, got, want)
		}
	}
}

func FuzzAnsweredRevisionReadsAsJSONUnmarshal(f *testing.F) {
	f.Add([]byte(`{"protocolVersion":"2025-11-25","capabilities":{}}`))
	f.Add([]byte(`{"protocolVersion":"a","PROTOCOLVERSION":null,"protocolversion":1}`))
	f.Add([]byte(`{"protocol\u0056ersion":"\ud83d\ude00"}`))
	f.Fuzz(func(t *testing.T, result []byte) {
		if got, want := answeredRevision(result), unmarshalledRevision(result); got != want {
			t.Errorf("%q: %q, json.Unmarshal reads %q", result, got, want)
		}
	})
}
