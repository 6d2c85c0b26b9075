package probe

import (
	"encoding/json"
	"strings"
	"testing"
)

// invalidArguments breaks the inputSchema the way tools.invalid-arguments needs: a required
// property left out, else a typed property of another type, else nothing to send.
func TestInvalidArgumentsBreakTheInputSchema(t *testing.T) {
	for _, tc := range []struct {
		name, args, schema, want string
		ok                       bool
	}{
		{"required left out", `{"text":"hi","n":1}`, `{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`, `{"n":1}`, true},
		{"string given a number", `{}`, `{"type":"object","properties":{"text":{"type":"string"}}}`, `{"text":12345}`, true},
		{"number given a string", `{"n":1}`, `{"type":"object","properties":{"n":{"type":"number"}}}`, `{"n":"mcpwatch-invalid"}`, true},
		{"nothing to break", `{}`, `{"type":"object"}`, ``, false},
		{"a nested required property left out", `{"opts":{"label":"x","n":1}}`, `{"type":"object","properties":{"opts":{"type":"object","properties":{"label":{"type":"string"}},"required":["label"]}}}`, `{"opts":{"n":1}}`, true},
		{"the nested object made when absent", `{}`, `{"type":"object","properties":{"opts":{"type":"object","properties":{"label":{"type":"string"}},"required":["label"]}}}`, `{"opts":{}}`, true},
		{"two levels down", `{"a":{"b":{"c":1}}}`, `{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":"object","required":["c"]}}}}}`, `{"a":{"b":{}}}`, true},
		{"beyond the depth bound a type swap", `{}`, `{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"properties":{"c":{"properties":{"d":{"properties":{"e":{"required":["f"]}}}}}}}}}}}`, `{"a":"mcpwatch-invalid"}`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, how, ok := invalidArguments(json.RawMessage(tc.args), json.RawMessage(tc.schema))
			if ok != tc.ok || string(got) != tc.want || how == "" {
				t.Errorf("got %s (%q, %v), want %s (%v)", got, how, ok, tc.want, tc.ok)
			}
			if strings.HasPrefix(tc.name, "two levels") && !strings.Contains(how, "/a/b/c") {
				t.Errorf("how = %q, want it to name the path /a/b/c", how)
			}
		})
	}
}
