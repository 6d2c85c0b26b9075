package probe

import (
	"encoding/json"
	"testing"

	"github.com/mcpwatch/mcpwatch/protocol"
)

func TestWithMetaKeepsParamsAndMetaKeys(t *testing.T) {
	o := Options{}.WithDefaults()
	got := withMeta(json.RawMessage(`{"cursor":"c1","_meta":{"progressToken":7,"io.modelcontextprotocol/protocolVersion":"x"}}`), requestMeta(protocol.Revision20260728, o))
	var p struct {
		Cursor string                     `json:"cursor"`
		Meta   map[string]json.RawMessage `json:"_meta"`
	}
	if err := json.Unmarshal(got, &p); err != nil {
		t.Fatal(err)
	}
	if p.Cursor != "c1" || string(p.Meta["progressToken"]) != "7" || string(p.Meta[protocol.MetaProtocolVersion]) != `"x"` ||
		string(p.Meta[protocol.MetaClientCapabilities]) != "{}" || p.Meta[protocol.MetaClientInfo] == nil {
		t.Errorf("params %s", got)
	}
	if got := withMeta(nil, map[string]any{protocol.MetaProtocolVersion: "v"}); string(got) != `{"_meta":{"io.modelcontextprotocol/protocolVersion":"v"}}` {
		t.Errorf("no params: %s", got)
	}
}
