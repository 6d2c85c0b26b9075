package mcpschema

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
)

func TestToolSchema(t *testing.T) {
	const (
		legacy    = "2025-06-18"
		current   = "2025-11-25"
		stateless = "2026-07-28"
	)
	type want int
	const (
		valid want = iota
		invalid
		uncheckable
	)
	tests := []struct {
		name    string
		rev     string
		output  bool
		schema  string
		want    want
		mention string // a fragment the error must contain
	}{
		{"plain object schema", legacy, false, `{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}`, valid, ""},
		{"zod style draft-07 schema", current, false, `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"n":{"type":"number","minimum":1}},"additionalProperties":false}`, valid, ""},
		{"recursive reference to the root", current, false, `{"type":"object","properties":{"child":{"$ref":"#"}}}`, valid, ""},
		{"draft-07 definitions reference", legacy, false, `{"type":"object","definitions":{"x":{"type":"integer"}},"properties":{"a":{"$ref":"#/definitions/x"}}}`, valid, ""},
		{"2020-12 $defs reference", current, false, `{"type":"object","$defs":{"x":{"type":"integer"}},"properties":{"a":{"$ref":"#/$defs/x"}}}`, valid, ""},
		{"RE2 compatible pattern", current, false, `{"type":"object","properties":{"a":{"type":"string","pattern":"^[a-z]+$"}}}`, valid, ""},
		{"not JSON", current, false, `{"type":`, invalid, "not valid JSON"},
		{"null", current, false, `null`, invalid, "not a JSON object but null"},
		{"boolean schema", current, false, `true`, invalid, "not a JSON object but a boolean"},
		{"root type string", legacy, false, `{"type":"string"}`, invalid, `root "type" is "string"`},
		{"root type as a list", current, false, `{"type":["object"]}`, invalid, `root "type" is ["object"]`},
		{"root without type", current, false, `{"properties":{}}`, invalid, `root has no "type"`},
		{"unknown type name", legacy, false, `{"type":"object","properties":{"a":{"type":"strin"}}}`, invalid, "/properties/a/type"},
		{"required is not an array", current, false, `{"type":"object","required":"a"}`, invalid, "/required"},
		{"negative minLength", current, false, `{"type":"object","properties":{"a":{"type":"string","minLength":-1}}}`, invalid, "minLength"},
		{"dangling reference", legacy, false, `{"type":"object","properties":{"a":{"$ref":"#/definitions/nope"}}}`, invalid, "not found"},
		{"reference loop", current, false, `{"type":"object","$ref":"#"}`, invalid, "loop"},
		{"broken pattern", current, false, `{"type":"object","properties":{"a":{"type":"string","pattern":"^[a-"}}}`, invalid, "regex"},
		{"non-string $schema", current, false, `{"type":"object","$schema":7}`, invalid, "$schema is a number"},
		{"draft-07 keyword shapes under 2020-12 default", current, false, `{"type":"object","properties":{"a":{"type":"array","items":[{"type":"string"}]}}}`, invalid, "items"},
		{"same tuple items under draft-07 default", legacy, false, `{"type":"object","properties":{"a":{"type":"array","items":[{"type":"string"}]}}}`, valid, ""},
		{"lookahead pattern", current, false, `{"type":"object","properties":{"a":{"type":"string","pattern":"^(?!\\.)[a-z.]+$"}}}`, uncheckable, "(?!"},
		{"unicode escape in pattern property", current, false, `{"type":"object","patternProperties":{"^[\\u0041-\\u005A]+$":{}}}`, uncheckable, "RE2"},
		{"network reference", current, false, `{"type":"object","properties":{"a":{"$ref":"https://example.com/s.json"}}}`, uncheckable, "https://example.com/s.json"},
		{"relative reference", legacy, false, `{"type":"object","properties":{"a":{"$ref":"other.json#/x"}}}`, uncheckable, `"other.json"`},
		{"unknown dialect", current, false, `{"type":"object","$schema":"https://example.com/meta"}`, uncheckable, "https://example.com/meta"},
		{"output schema root object before 2026", legacy, true, `{"type":"object","properties":{"r":{"type":"number"}}}`, valid, ""},
		{"output schema array before 2026", current, true, `{"type":"array"}`, invalid, `root "type" is "array"`},
		{"output schema array in 2026", stateless, true, `{"type":"array","items":{"type":"string"}}`, valid, ""},
		{"output schema without type in 2026", stateless, true, `{"anyOf":[{"type":"string"},{"type":"number"}]}`, valid, ""},
		{"input schema array in 2026", stateless, false, `{"type":"array"}`, invalid, `root "type" is "array"`},
		{"invalid output schema in 2026", stateless, true, `{"type":"wrong"}`, invalid, "/type"},
	}
	v := newValidator(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Twice: the second answer comes from the cache and must be the same.
			for round := 0; round < 2; round++ {
				err := v.ToolSchema(tt.rev, []byte(tt.schema), tt.output)
				switch tt.want {
				case valid:
					if err != nil {
						t.Fatalf("round %d: want valid, got %v", round, err)
					}
					continue
				case invalid:
					if !errors.Is(err, ErrInvalidSchema) || errors.Is(err, ErrUncheckable) {
						t.Fatalf("round %d: want ErrInvalidSchema, got %v", round, err)
					}
				case uncheckable:
					if !errors.Is(err, ErrUncheckable) || errors.Is(err, ErrInvalidSchema) {
						t.Fatalf("round %d: want ErrUncheckable, got %v", round, err)
					}
				}
				if !strings.Contains(err.Error(), tt.mention) {
					t.Fatalf("round %d: error %q does not mention %q", round, err, tt.mention)
				}
			}
		})
	}
}

func TestToolSchemaVerdictDependsOnRevisionNotOnlyOnBytes(t *testing.T) {
	v := newValidator(t)
	schema := []byte(`{"type":"array"}`)
	if err := v.ToolSchema("2026-07-28", schema, true); err != nil {
		t.Fatalf("2026 output: %v", err)
	}
	if err := v.ToolSchema("2025-11-25", schema, true); err == nil {
		t.Fatal("2025-11-25 output: want invalid after the 2026 verdict was cached")
	}
	if err := v.ToolSchema("2026-07-28", schema, false); err == nil {
		t.Fatal("2026 input: want invalid")
	}
}

func TestToolSchemaIsSafeForConcurrentUse(t *testing.T) {
	v := newValidator(t)
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				schema := fmt.Sprintf(`{"type":"object","properties":{"p%d":{"type":"string"}}}`, i%10)
				if err := v.ToolSchema("2025-11-25", []byte(schema), false); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// toolSchemaSamples are tool schemas as real servers publish them.
func toolSchemaSamples(n int) [][]byte {
	out := make([][]byte, n)
	for i := range out {
		out[i] = []byte(fmt.Sprintf(`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"message%d":{"type":"string","description":"Message to echo"},"count":{"type":"number","minimum":1,"maximum":10,"default":3},"mode":{"type":"string","enum":["a","b","c"]}},"required":["message%d"],"additionalProperties":false}`, i, i))
	}
	return out
}

// BenchmarkToolSchema measures one verdict: cold (the cache is cleared for every call, so the
// schema is parsed and walked; with a reference, the library compiles it) and warm (the
// verdict of the same bytes again).
func BenchmarkToolSchema(b *testing.B) {
	v := newValidator(b)
	samples := toolSchemaSamples(13)
	b.Run("cold", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			v.tools = newVerdictCache(toolCacheSize)
			if err := v.ToolSchema("2025-11-25", samples[i%len(samples)], false); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("cold-with-ref", func(b *testing.B) {
		schema := []byte(`{"type":"object","$defs":{"x":{"type":"integer"}},"properties":{"a":{"$ref":"#/$defs/x"}}}`)
		for i := 0; i < b.N; i++ {
			v.tools = newVerdictCache(toolCacheSize)
			if err := v.ToolSchema("2025-11-25", schema, false); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("warm", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if err := v.ToolSchema("2025-11-25", samples[i%len(samples)], false); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// FuzzToolSchema: whatever a server sends as a tool schema, ToolSchema answers (never
// panics) and says the same thing twice.
func FuzzToolSchema(f *testing.F) {
	for _, s := range []string{
		`{"type":"object"}`, `null`, `{"type":"object","$ref":"#"}`, `{"type":"object","properties":{"a":{"$ref":"#/definitions/x"}},"definitions":{"x":{}}}`,
		`{"type":"object","patternProperties":{"(?!a)":{}}}`, `{"$schema":"http://json-schema.org/draft-04/schema#","type":"object","id":"x"}`,
		`{"type":"object","$id":"https://e.com/a","$defs":{"b":{"$id":"b","$anchor":"c"}},"$ref":"b#c"}`,
		`{"type":"object","$dynamicRef":"#meta","$dynamicAnchor":"meta"}`, `{"type":"object","$vocabulary":{"x":true}}`,
	} {
		f.Add([]byte(s), false)
	}
	v := newValidator(f)
	f.Fuzz(func(t *testing.T, schema []byte, output bool) {
		first := v.ToolSchema("2025-11-25", schema, output)
		second := v.ToolSchema("2025-11-25", schema, output)
		if (first == nil) != (second == nil) || (first != nil && first.Error() != second.Error()) {
			t.Fatalf("verdicts differ: %v then %v", first, second)
		}
		if first != nil && !errors.Is(first, ErrInvalidSchema) && !errors.Is(first, ErrUncheckable) {
			t.Fatalf("verdict of no known kind: %v", first)
		}
	})
}
