package mcpschema

import (
	"errors"
	"testing"
)

func TestValidateNamesThePointerAndTheConstraint(t *testing.T) {
	tests := []struct {
		name, rev, def, doc string
		want                string // the error text; "" for valid
	}{
		{"valid initialize result", "2025-06-18", "InitializeResult",
			`{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"s","version":"1"}}`, ""},
		{"missing serverInfo", "2025-06-18", "InitializeResult",
			`{"protocolVersion":"2025-06-18","capabilities":{}}`, `(root): required: missing properties: 'serverInfo'`},
		{"null id names the id", "2024-11-05", "JSONRPCResultResponse",
			`{"jsonrpc":"2.0","id":null,"result":{}}`, `/id: type: expected string or integer, but got null`},
		{"deepest failure of a union wins", "2025-11-25", "JSONRPCResponse",
			`{"jsonrpc":"2.0","id":null,"result":{}}`, `/id: type: expected string or integer, but got null (and 2 more)`},
		{"tool schema type", "2025-11-25", "ListToolsResult",
			`{"tools":[{"name":"a","inputSchema":{"type":"string"}}]}`, `/tools/0/inputSchema/type: const: value must be "object"`},
		{"non-string nextCursor", "2025-03-26", "ListToolsResult",
			`{"tools":[],"nextCursor":2}`, `/nextCursor: type: expected string, but got number`},
		{"missing resultType", "2026-07-28", "ListToolsResult",
			`{"tools":[],"ttlMs":0,"cacheScope":"public"}`, `(root): required: missing properties: 'resultType'`},
		{"member names are plain in pointers", "2026-07-28", "ServerCapabilities",
			`{"experimental":{"a b/c":{"x":0.5}}}`, `/experimental/a b~1c/x: type: expected object, but got number (and 2 more)`},
		{"large integers keep their precision", "2025-11-25", "JSONRPCRequest",
			`{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"x"}`, ""},
		// mongodb-mcp-server lists this template: RFC 6570 lets an expression stand where a
		// URL could have no brace.
		{"a template variable in the authority", "2025-11-25", "ListResourceTemplatesResult",
			`{"resourceTemplates":[{"name":"e","uriTemplate":"exported-data://{exportName}"}]}`, ""},
		{"an unclosed expression", "2025-11-25", "ListResourceTemplatesResult",
			`{"resourceTemplates":[{"name":"e","uriTemplate":"file:///{path"}]}`, `/resourceTemplates/0/uriTemplate: format: 'file:///{path' is not valid 'uri-template'`},
	}
	v := newValidator(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := v.Validate(tt.rev, tt.def, []byte(tt.doc))
			if tt.want == "" {
				if err != nil {
					t.Fatalf("want valid, got %v", err)
				}
				return
			}
			var viol *Violation
			if !errors.As(err, &viol) {
				t.Fatalf("want a *Violation, got %v", err)
			}
			if err.Error() != tt.want {
				t.Fatalf("error\n got %s\nwant %s", err, tt.want)
			}
		})
	}
}

func TestValidateRefusesWhatItCannotJudge(t *testing.T) {
	v := newValidator(t)
	tests := []struct {
		name, rev, def, doc string
		want                error
	}{
		{"unknown revision", "1900-01-01", "InitializeResult", `{}`, ErrUnknownRevision},
		{"definition absent from the revision", "2026-07-28", "InitializeResult", `{}`, ErrUnknownDefinition},
		{"lower-case parts are not definitions", "2025-11-25", "icon", `{}`, ErrUnknownDefinition},
		{"not JSON", "2025-11-25", "EmptyResult", `{`, ErrNotJSON},
		{"trailing data", "2025-11-25", "EmptyResult", `{} {}`, ErrNotJSON},
		{"empty", "2025-11-25", "EmptyResult", ``, ErrNotJSON},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := v.Validate(tt.rev, tt.def, []byte(tt.doc)); !errors.Is(err, tt.want) {
				t.Fatalf("want %v, got %v", tt.want, err)
			}
		})
	}
}

// listToolsPage is a ListToolsResult of 13 tools with zod-style schemas.
func listToolsPage() []byte {
	page := []byte(`{"tools":[`)
	for i, s := range toolSchemaSamples(13) {
		if i > 0 {
			page = append(page, ',')
		}
		page = append(page, `{"name":"tool","description":"Does something useful with its input.","inputSchema":`...)
		page = append(page, s...)
		page = append(page, '}')
	}
	return append(page, `]}`...)
}

func BenchmarkValidateListToolsResult(b *testing.B) {
	v := newValidator(b)
	page := listToolsPage()
	doc, err := Decode(page)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("decode+validate", func(b *testing.B) {
		b.SetBytes(int64(len(page)))
		for i := 0; i < b.N; i++ {
			if err := v.Validate("2025-11-25", "ListToolsResult", page); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("validate-decoded", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if err := v.ValidateValue("2025-11-25", "ListToolsResult", doc); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkNew is the start-up cost of a Validator.
func BenchmarkNew(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := New(); err != nil {
			b.Fatal(err)
		}
	}
}
