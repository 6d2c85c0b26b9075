package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/mcpwatch/mcpwatch/checks"
)

// A rule that comes from JSON-RPC 2.0 (-32601 is defined by its §5.1, not by an MCP page)
// is cited as that document in the text and Markdown reports, not as a bare link.
func TestJSONRPCRulesSayTheyComeFromJSONRPC(t *testing.T) {
	reg, err := checks.Default()
	if err != nil {
		t.Fatal(err)
	}
	res := stdioResult() // its unknown method got no answer: lifecycle.unknown-method fails
	r := Build(res, reg.Evaluate(res), BuildOptions{Catalog: reg})
	wants := map[string]string{
		"text":     "JSON-RPC 2.0 §5.1 Error object https://www.jsonrpc.org/specification#error_object",
		"markdown": "[JSON-RPC 2.0 §5.1 Error object](https://www.jsonrpc.org/specification#error_object)",
	}
	for format, want := range wants {
		f, _ := LookupFormat(format)
		var b bytes.Buffer
		if err := f.Write(&b, r, WriteOptions{}); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), want) {
			t.Errorf("%s report lacks %q:\n%s", format, want, b.String())
		}
	}
}
