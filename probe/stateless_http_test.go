package probe

import (
	"encoding/json"
	"testing"
)

func TestAddressedName(t *testing.T) {
	tests := []struct {
		method, params, want string
		ok                   bool
	}{
		{"tools/call", `{"name":"echo","arguments":{}}`, "echo", true},
		{"prompts/get", `{"name":"greet"}`, "greet", true},
		{"resources/read", `{"uri":"file:///a"}`, "file:///a", true},
		{"tools/list", `{"name":"x"}`, "", false},
		{"tools/call", `{"name":5}`, "", false},
	}
	for _, tt := range tests {
		if got, ok := addressedName(tt.method, json.RawMessage(tt.params)); got != tt.want || ok != tt.ok {
			t.Errorf("%s %s: %q %v, want %q %v", tt.method, tt.params, got, ok, tt.want, tt.ok)
		}
	}
}
