package checks

import (
	"fmt"
	"strings"
	"testing"
)

// TestPageVerdictsAreToolSchemaVerdicts: the verdicts judged while a page is parsed are the
// ones ToolSchema gives on the schemas' bytes, whatever the schema and revision.
func TestPageVerdictsAreToolSchemaVerdicts(t *testing.T) {
	schemas := []string{
		`{"type":"object","properties":{"a":{"type":"string","pattern":"^[a-z]+$"}}}`,
		`{"type":"object","properties":{"a":{"type":"strin"}}}`,
		`{"type":"string"}`,
		`{"type":"array","items":{"type":"number"}}`,
		`{"type":"object","definitions":{"x":{}},"properties":{"a":{"$ref":"#/definitions/x"}}}`,
		`{"type":"object","properties":{"a":{"$ref":"#/definitions/nope"}}}`,
		`{"type":"object","$schema":"https://example.com/meta"}`,
		`{"type":"object","$schema":"http://json-schema.org/draft-04/schema#","properties":{"a":{"minimum":1,"exclusiveMinimum":true}}}`,
		`{"type":"object","properties":{"a":{"pattern":"(?!x)"}}}`,
		`{"type":"object","properties":{"a":{"type":"array","items":[{"type":"string"}]}}}`,
		`{"type":"object","a":1,"a":{"type":5}}`,
		`7`, `null`, `[]`,
	}
	var tools []string
	for i, s := range schemas {
		tools = append(tools, fmt.Sprintf(`{"name":"t%d","description":"d","inputSchema":%s,"outputSchema":%s}`, i, s, s))
	}
	page := []byte(toolsPage(tools...))
	for _, rev := range []string{"2024-11-05", "2025-06-18", "2025-11-25", "2026-07-28"} {
		l := newToolLister(newTestValidator(t))
		p := l.decodePage(rev, string(page), &schemaBudget{})
		fresh := newTestValidator(t)
		for i, tl := range p.tools {
			if !tl.inputJudged || tl.outputJudged != (rev >= outputSchemaSince) {
				t.Fatalf("%s tool %d: input judged %v, output judged %v", rev, i, tl.inputJudged, tl.outputJudged)
			}
			same(t, fmt.Sprintf("%s input %s", rev, schemas[i]), tl.inputVerdict, fresh.ToolSchema(rev, []byte(tl.input), false))
			if tl.outputJudged {
				same(t, fmt.Sprintf("%s output %s", rev, schemas[i]), tl.outputVerdict, fresh.ToolSchema(rev, []byte(tl.output), true))
			}
		}
	}
}

func same(t *testing.T, what string, got, want error) {
	t.Helper()
	if (got == nil) != (want == nil) || (got != nil && got.Error() != want.Error()) {
		t.Errorf("%s: judged with the page %v, by ToolSchema %v", what, got, want)
	}
}

// TestSchemaJudgingStaysWithinItsBudget: a listing judges no more schemas while parsing its
// pages than the checks judge, and the checks still reach the verdicts they need.
func TestSchemaJudgingStaysWithinItsBudget(t *testing.T) {
	page := func(from, n int, cursor string) string {
		tools := make([]string, n)
		for i := range tools {
			tools[i] = fmt.Sprintf(`{"name":"t%d","description":"d","inputSchema":{"type":"object","properties":{"p%d":{}}}}`, from+i, from+i)
		}
		if cursor == "" {
			return toolsPage(tools...)
		}
		return toolsPageWith(fmt.Sprintf(`"nextCursor":%q`, cursor), tools...)
	}
	res := newToolProbe("2025-11-25", toolsCaps).page(page(0, 700, "c1")).page(page(700, 700, "")).result()
	v := newTestValidator(t)
	reg, err := NewRegistry(toolChecks(v)...)
	if err != nil {
		t.Fatal(err)
	}
	var input Finding
	for _, f := range reg.Evaluate(res) {
		if f.ID == "tools.input-schema" {
			input = f
		}
	}
	if input.Status != StatusPass || !strings.Contains(input.Message, "each of 1000 tools") || input.Data["notChecked"] != 400 {
		t.Fatalf("tools.input-schema: %s %q %v", input.Status, input.Message, input.Data)
	}
	l := newToolLister(v)
	judged := 0
	for _, p := range l.listing(NewCapture(res)).pages {
		for _, tl := range p.tools {
			if tl.inputJudged {
				judged++
			}
		}
	}
	if judged != maxSchemasJudged {
		t.Fatalf("%d schemas judged while parsing, want %d", judged, maxSchemasJudged)
	}
}
