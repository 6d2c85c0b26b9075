package yamlsyntax

import (
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// Each error is placed at the character where the document stops being YAML, whatever line
// the library names.
func TestLocateNamesTheLineAndColumnAtFault(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, doc string
		want      string
	}{
		{"key indented one space too little",
			"servers:\n  - name: a\n    url: http://x\n   timeout: 5s\n",
			"line 4, column 4: did not find expected '-' indicator"},
		{"unclosed quote",
			"servers:\n  - name: a\n    url: \"http://x\n    timeout: 5s\n",
			"line 3, column 10: found unexpected end of stream"},
		{"tab in indentation",
			"servers:\n  - name: a\n    url: http://x\n\ttimeout: 5s\n",
			"line 4, column 1: found a tab character that violates indentation"},
		{"unclosed flow mapping",
			"servers:\n  - name: a\n    url: http://x\n    labels: {a: b\n",
			"line 4, column 17: did not find expected ',' or '}'"},
		{"mapping in a plain value",
			"a: b\nc: d: e\n",
			"line 2, column 5: mapping values are not allowed in this context"},
		{"a line without a colon",
			"servers:\n  - name: a\n    url: http://x\n  bad\n",
			"line 4, column 3: could not find expected ':'"},
		{"unknown alias",
			"x: &a 1\ny: *b\n",
			"line 2, column 5: unknown anchor 'b' referenced"},
		{"columns count characters, not bytes",
			"name: \"é\"\né: [\n",
			"line 2, column 4: did not find expected node content"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var n yaml.Node
			err := yaml.Unmarshal([]byte(tc.doc), &n)
			if err == nil {
				t.Fatal("the document parses")
			}
			if got := Locate([]byte(tc.doc), err).Error(); got != tc.want {
				t.Errorf("got  %s\nwant %s\n(library: %v)", got, tc.want, err)
			}
		})
	}
}

// Past the bound, the search is not made: the library's line stands, without a column.
func TestLocateKeepsTheLibrarysLineInAHugeDocument(t *testing.T) {
	t.Parallel()
	doc := []byte("servers:\n" + strings.Repeat("  - name: s\n    url: http://127.0.0.1:1/mcp\n", maxSearchBytes/40) + "   timeout: 5s\n")
	var n yaml.Node
	err := yaml.Unmarshal(doc, &n)
	if err == nil {
		t.Fatal("the document parses")
	}
	if got := Locate(doc, err); got.Line != 1 || got.Column != 0 || got.Problem != "did not find expected '-' indicator" {
		t.Errorf("got %+v (library: %v)", got, err)
	}
}
