package mcpschema

import (
	"errors"
	"regexp/syntax"
	"strconv"
	"strings"

	"github.com/mcpwatch/mcpwatch/jsondoc"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/mcpwatch/mcpwatch/internal/textclip"
)

// metaFailure turns a metaschema violation into a verdict. Patterns are checked with Go's
// RE2, which lacks parts of ECMA-262 that JSON Schema patterns may use; a schema whose only
// fault is such a pattern cannot be judged rather than being wrong.
func metaFailure(draft *jsonschema.Draft, doc any, err error) error {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return uncheckable(ErrUncheckable, "metaschema validation failed: %v", err)
	}
	onlyRegexSyntax, pattern := true, ""
	for _, l := range leaves(ve) {
		p, ecma := ecmaOnlyPattern(doc, l)
		if !ecma {
			onlyRegexSyntax = false
			break
		}
		pattern = p
	}
	if onlyRegexSyntax {
		return uncheckable(ErrRegexSyntax, "its pattern %s uses ECMA-262 syntax that Go's RE2 does not implement", strconv.Quote(textclip.Bytes(pattern, 80)))
	}
	return invalid("not a valid %s schema: %v", dialectName(draft), violationOf(ve))
}

// ecmaOnlyPattern reports whether a metaschema failure is a "regex" format failure of a
// pattern that RE2 rejects for syntax it does not implement (as opposed to a pattern that is
// broken in any dialect, such as an unclosed bracket).
func ecmaOnlyPattern(doc any, l *jsonschema.ValidationError) (string, bool) {
	if lastKeyword(l.KeywordLocation) != "format" || !strings.HasSuffix(l.Message, "'regex'") {
		return "", false
	}
	// A pattern is the value at the location; a patternProperties key is the last token.
	loc := plainPointer(l.InstanceLocation)
	pattern, ok := valueAt(doc, loc).(string)
	if !ok {
		pattern = lastPointerToken(loc)
	}
	_, err := syntax.Parse(pattern, syntax.Perl)
	var se *syntax.Error
	if !errors.As(err, &se) {
		return pattern, false
	}
	switch se.Code {
	case syntax.ErrInvalidPerlOp, syntax.ErrInvalidEscape, syntax.ErrInvalidNamedCapture,
		syntax.ErrInvalidRepeatSize, syntax.ErrLarge, syntax.ErrNestingDepth:
		return pattern, true
	}
	return pattern, false
}

func leaves(ve *jsonschema.ValidationError) []*jsonschema.ValidationError {
	if len(ve.Causes) == 0 {
		return []*jsonschema.ValidationError{ve}
	}
	var out []*jsonschema.ValidationError
	for _, c := range ve.Causes {
		out = append(out, leaves(c)...)
	}
	return out
}

func valueAt(doc any, pointer string) any {
	if pointer == "" {
		return doc
	}
	cur := doc
	tokens, _ := jsondoc.PointerTokens("/" + strings.TrimPrefix(pointer, "/"))
	for _, tok := range tokens {
		switch c := cur.(type) {
		case map[string]any:
			cur = c[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil
			}
			cur = c[i]
		default:
			return nil
		}
	}
	return cur
}

// lastPointerToken is the last reference token of a JSON Pointer, unescaped.
func lastPointerToken(pointer string) string {
	tokens, ok := jsondoc.PointerTokens(pointer[max(strings.LastIndexByte(pointer, '/'), 0):])
	if !ok || len(tokens) == 0 {
		return pointer
	}
	return tokens[len(tokens)-1]
}
