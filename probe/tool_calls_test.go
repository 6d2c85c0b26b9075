package probe

import (
	"encoding/json"
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
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, how, ok := invalidArguments(json.RawMessage(tc.args), json.RawMessage(tc.schema))
			if ok != tc.ok || string(got) != tc.want || how == "" {
				t.Errorf("got %s (%q, %v), want %s (%v)", got, how, ok, tc.want, tc.ok)
			}
		})
	}
}
