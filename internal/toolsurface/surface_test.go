package toolsurface

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestSchemaHashIgnoresMemberOrderAndSpacing(t *testing.T) {
	t.Parallel()
	a := SchemaHash(json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}}}`), nil)
	b := SchemaHash(json.RawMessage(`{ "properties": {"q": {"type": "string"}}, "type": "object" }`), nil)
	c := SchemaHash(json.RawMessage(`{"type":"object","properties":{"q":{"type":"integer"}}}`), nil)
	d := SchemaHash(json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}}}`), json.RawMessage(`{"type":"object"}`))
	if a != b {
		t.Error("member order or spacing changed the hash")
	}
	if a == c || a == d {
		t.Error("a changed schema kept its hash")
	}
}

// TestSchemaHashIsPinned: the memory of every monitored server keeps its tools' schema hashes,
// so a schema whose hash changed with the code would be reported as drift after an upgrade.
// The values were computed before the tool surface had a package of its own.
func TestSchemaHashIsPinned(t *testing.T) {
	t.Parallel()
	tests := []struct{ input, output, want string }{
		{"", "", "ebf7f51a13198bc6b01c07383ec42297533a06b9720e387eb214e359666e6c4a"},
		{`null`, ``, "e496befaebe5d6d7757b58efca9edac771d0f0396660a818ca32f779ee97e529"},
		{`{"type":"object","properties":{"url":{"type":"string","description":"the URL\nto fetch\t\"x\" \\ \u0001 \b\f\r <b>&amp;</b> \u2028\u2029 é"}}}`, `{"type":"object"}`, "bb4b5d4bc7cb41ee5b0b06b0d7b26c949208198ee698010cfede02c21ae7a2af"},
		{`{"b":1.50,"a":[1e5,-0,true,null],"a":{"z":0}}`, ``, "c03d9f8381399eef35c7ddf807325a4476560e8826916e7467620ae79b8ab463"},
		{"{\"s\":\"bad \xff\",\"\xfe\":1}", ``, "c276c54a84c9952cc4a47f1d879880e601bbd104da5305e242cb0f7c532f2d68"},
		{`{"unclosed":`, `[]`, "1bbf4c4bde741d5287e43eb17ad744bb977303ea5cca36fcd38bc80c6d2b73af"},
	}
	for _, tt := range tests {
		var in, out json.RawMessage
		if tt.input != "" {
			in = json.RawMessage(tt.input)
		}
		if tt.output != "" {
			out = json.RawMessage(tt.output)
		}
		if got := SchemaHash(in, out); got != tt.want {
			t.Errorf("SchemaHash(%q, %q) = %s, want %s", tt.input, tt.output, got, tt.want)
		}
	}
}

func TestNewSurfaceBoundsWhatItKeeps(t *testing.T) {
	t.Parallel()
	huge := strings.Repeat("x", 100_000)
	s := NewSurface([]Entry{{Name: "t", Description: huge}, {Name: "u", Description: huge + "y"}})
	if len(s.Tools[0].Description) != MaxDescriptionBytes {
		t.Errorf("description kept to %d bytes, want %d", len(s.Tools[0].Description), MaxDescriptionBytes)
	}
	// A change past the kept part is still a change.
	d := DiffSurfaces(NewSurface([]Entry{{Name: "t", Description: huge}}), NewSurface([]Entry{{Name: "t", Description: huge + "y"}}))
	if len(d.Changed) != 1 || !d.Changed[0].Description {
		t.Errorf("diff %+v misses a change past the kept part", d)
	}
}
