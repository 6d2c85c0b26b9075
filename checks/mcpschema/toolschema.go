package mcpschema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// Kinds of ToolSchema verdicts that a caller branches on (with errors.Is).
var (
	// ErrInvalidSchema: the tool schema breaks a rule (not an object, root type not "object"
	// where required, not valid for its dialect, a $ref that resolves to nothing).
	ErrInvalidSchema = errors.New("invalid tool schema")
	// ErrUncheckable: the schema may be valid, but this validator cannot tell. A check should
	// warn, not fail. The three errors below wrap it.
	ErrUncheckable = errors.New("tool schema cannot be checked")
	// ErrExternalRef: the schema refers to a document outside itself; nothing is fetched
	// (2026-07-28 forbids dereferencing network $refs automatically).
	ErrExternalRef = fmt.Errorf("%w: external reference", ErrUncheckable)
	// ErrUnknownDialect: $schema names a metaschema this validator does not know.
	ErrUnknownDialect = fmt.Errorf("%w: unknown dialect", ErrUncheckable)
	// ErrRegexSyntax: a pattern uses ECMA-262 syntax (lookaround, \u escapes, backreferences)
	// that Go's RE2 cannot compile, so the pattern cannot be judged.
	ErrRegexSyntax = fmt.Errorf("%w: regular expression syntax", ErrUncheckable)
)

// ToolSchemaError is a verdict of ToolSchema against a schema. Its kind (ErrInvalidSchema,
// or one wrapping ErrUncheckable) is reachable with errors.Is; Reason says what is wrong.
type ToolSchemaError struct {
	Reason string
	kind   error
}

func (e *ToolSchemaError) Error() string { return e.Reason }
func (e *ToolSchemaError) Unwrap() error { return e.kind }

func invalid(format string, args ...any) error {
	return &ToolSchemaError{Reason: fmt.Sprintf(format, args...), kind: ErrInvalidSchema}
}

func uncheckable(kind error, format string, args ...any) error {
	return &ToolSchemaError{Reason: fmt.Sprintf(format, args...), kind: kind}
}

// Draft-07 is the default dialect of tool schemas before 2025-11-25 (the era of the
// draft-07 message schemas); 2025-11-25 made 2020-12 the default (MCP-RULES E3).
const (
	defaultDialectSince = "2025-11-25"
	// From 2026-07-28 an outputSchema may be any schema (MCP-RULES E2).
	anyOutputRootSince = "2026-07-28"
)

// toolRules are the revision-dependent parts of judging a tool schema.
type toolRules struct {
	draft      *jsonschema.Draft // dialect when $schema is absent
	rootObject bool              // the root must say type: "object"
}

// index numbers the four rule combinations for the verdict cache.
func (r toolRules) index() int {
	i := 0
	if r.draft == jsonschema.Draft2020 {
		i = 2
	}
	if r.rootObject {
		i++
	}
	return i
}

func rulesFor(revision string, output bool) toolRules {
	r := toolRules{draft: jsonschema.Draft7, rootObject: true}
	if revision >= defaultDialectSince {
		r.draft = jsonschema.Draft2020
	}
	if output && revision >= anyOutputRootSince {
		r.rootObject = false
	}
	return r
}

// ToolSchema checks that a tool's inputSchema (output=false) or outputSchema (output=true) is
// a valid JSON Schema for its dialect under the revision's rules: a JSON object, valid against
// the metaschema of its $schema (draft-07 before 2025-11-25, 2020-12 from then on when there
// is none), compilable without loading anything, with root type "object" (inputSchema always,
// outputSchema before 2026-07-28).
//
// A broken rule returns a *ToolSchemaError of kind ErrInvalidSchema; a schema that cannot be
// judged one whose kind wraps ErrUncheckable. Verdicts are cached by the schema's bytes.
func (v *Validator) ToolSchema(revision string, schema json.RawMessage, output bool) error {
	rules := rulesFor(revision, output)
	if err, ok := v.tools.get(rules.index(), schema); ok {
		return err
	}
	err := v.judgeToolSchema(rules, schema)
	v.tools.put(rules.index(), schema, err)
	return err
}

func (v *Validator) judgeToolSchema(rules toolRules, raw []byte) error {
	doc, err := Decode(raw)
	if err != nil {
		return invalid("%v", err)
	}
	root, ok := doc.(map[string]any)
	if !ok {
		return invalid("not a JSON object but %s", jsonKind(doc))
	}
	if rules.rootObject {
		if t, ok := root["type"]; !ok {
			return invalid(`the root has no "type" (it must be "object")`)
		} else if t != "object" {
			return invalid(`the root "type" is %s, not "object"`, shortJSON(t))
		}
	}
	draft := rules.draft
	if s, ok := root["$schema"]; ok {
		url, isString := s.(string)
		if !isString {
			return invalid("$schema is %s, not a string", jsonKind(s))
		}
		if draft = dialectOf(url); draft == nil {
			return uncheckable(ErrUnknownDialect, "its $schema %s is not a dialect this validator knows", strconv.Quote(clipText(url, 120)))
		}
	}
	if err := v.metas[draft].Validate(doc); err != nil {
		return metaFailure(draft, doc, err)
	}
	if draft == jsonschema.Draft4 || needsCompile(doc) {
		return compileToolSchema(draft, raw)
	}
	return nil
}

// needsCompile reports whether a metaschema-valid schema could still fail to compile: only
// references (which may point nowhere) and identifiers or vocabularies (which change how
// references resolve) can do that. Everything else the metaschema has already judged, and
// compiling costs a second parse.
func needsCompile(v any) bool {
	switch v := v.(type) {
	case map[string]any:
		for k, sub := range v {
			switch k {
			case "$ref", "$dynamicRef", "$recursiveRef", "$id", "$anchor", "$dynamicAnchor", "$recursiveAnchor", "$vocabulary":
				return true
			}
			if needsCompile(sub) {
				return true
			}
		}
	case []any:
		for _, sub := range v {
			if needsCompile(sub) {
				return true
			}
		}
	}
	return false
}

const (
	toolSchemaBase = "https://mcpwatch.invalid/"
	toolSchemaURL  = toolSchemaBase + "tool-schema.json"
)

func compileToolSchema(draft *jsonschema.Draft, raw []byte) (err error) {
	defer func() {
		// A hostile schema must not take the prober down with the library.
		if r := recover(); r != nil {
			err = uncheckable(ErrUncheckable, "the schema compiler failed on it (%v)", r)
		}
	}()
	c := jsonschema.NewCompiler()
	c.Draft = draft
	c.LoadURL = refuseLoad
	if err := c.AddResource(toolSchemaURL, bytes.NewReader(raw)); err != nil {
		return invalid("%v", err)
	}
	if _, err := c.Compile(toolSchemaURL); err != nil {
		var refused *refusedLoadError
		if errors.As(err, &refused) {
			// A relative reference resolves against the internal URL the schema was
			// compiled under; show it as the server wrote it.
			return uncheckable(ErrExternalRef, "it refers to %s, outside itself, and nothing is ever fetched",
				strconv.Quote(clipText(strings.TrimPrefix(refused.url, toolSchemaBase), 120)))
		}
		return invalid("not a valid %s schema: %s", dialectName(draft), compileMessage(err))
	}
	return nil
}

// compileMessage is the library's reason without its "jsonschema ... compilation failed"
// framing and without the internal URL the schema was compiled under.
func compileMessage(err error) string {
	var se *jsonschema.SchemaError
	msg := err.Error()
	if errors.As(err, &se) && se.Err != nil {
		msg = se.Err.Error()
	}
	msg = strings.TrimPrefix(msg, "jsonschema: ")
	return strings.ReplaceAll(msg, toolSchemaURL, "")
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	}
	return "an object"
}

func shortJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return jsonKind(v)
	}
	return clipText(string(b), 80)
}

func clipText(s string, max int) string {
	if len(s) <= max {
		return s
	}
	for max > 0 && s[max]&0xC0 == 0x80 {
		max--
	}
	return s[:max] + "…"
}
