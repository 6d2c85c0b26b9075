package mcpschema

import "testing"

// The templates of RFC 6570 (its §1.2 level examples and §3 expansions) are templates; what
// its §2 grammar excludes is not.
func TestURITemplateFollowsTheGrammarOfRFC6570(t *testing.T) {
	tests := []struct {
		template string
		want     bool
	}{
		{"http://example.com/~{username}/", true},
		{"http://example.com/dictionary/{term:1}/{term}", true},
		{"http://example.com/search{?q,lang}", true},
		{"{+path}/here", true},
		{"X{#var}", true},
		{"{/var,x}/here", true},
		{"{;x,y,empty}", true},
		{"?fixed=yes{&x}", true},
		{"{var:30}{list*}{keys*}", true},
		{"{a.b}{%41b}", true},
		{"exported-data://{exportName}", true},
		{"file:///{path}", true},
		{"no expressions at all", false}, // a space is no literal
		{"plain", true},
		{"caf\u00e9/{x}", true},
		{"100%25/{x}", true},
		{"{}", false},
		{"{x", false},
		{"x}", false},
		{"{x y}", false},
		{"{x,}", false},
		{"{.x.}", false},
		{"{x..y}", false},
		{"{x:0}", false},
		{"{x:10000}", false},
		{"{x:}", false},
		{"{x*y}", false},
		{"{{x}}", false},
		{"100%/{x}", false},
		{"a<b", false},
	}
	for _, tt := range tests {
		if got := isURITemplate(tt.template); got != tt.want {
			t.Errorf("isURITemplate(%q) = %v, want %v", tt.template, got, tt.want)
		}
	}
	if !isURITemplate(42) {
		t.Error("a number is not the format's to judge")
	}
}
