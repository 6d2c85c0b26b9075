package mcpschema

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/mcpwatch/mcpwatch/internal/textclip"
	"github.com/mcpwatch/mcpwatch/jsondoc"
	"github.com/mcpwatch/mcpwatch/protocol"
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
// draft-07 message schemas); 2025-11-25 made 2020-12 the default (basic, JSON Schema Usage).
const (
	defaultDialectSince = protocol.Revision20251125
	// From 2026-07-28 an outputSchema may be any schema (server/tools, Output Schema).
	anyOutputRootSince = protocol.Revision20260728
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
	if err, ok := v.tools.GetBytes(rules.index(), schema); ok {
		return err
	}
	text := string(schema) // one copy, for the parsed schema and the cache key both
	var err error
	if doc, perr := parseString(text); perr != nil {
		err = invalid("%v", perr)
	} else {
		err = v.judgeToolSchema(rules, doc.Root(), text)
	}
	v.tools.PutText(rules.index(), text, err)
	return err
}

// ToolSchemaValue is ToolSchema for a schema already parsed as part of a larger document (a
// tools/list page), so that it is not parsed again. key is the schema's JSON text, in any
// form with the same value (the page's canonical form, say): verdicts are cached by it (the
// cache keeps the string itself), and the library reads it when the walker leaves the
// schema to it.
func (v *Validator) ToolSchemaValue(revision string, schema jsondoc.Value, key string, output bool) error {
	rules := rulesFor(revision, output)
	if err, ok := v.tools.GetText(rules.index(), key); ok {
		return err
	}
	err := v.judgeToolSchema(rules, schema, key)
	v.tools.PutText(rules.index(), key, err)
	return err
}

// judgeToolSchema judges a parsed schema (root) whose text is raw.
func (v *Validator) judgeToolSchema(rules toolRules, root jsondoc.Value, raw string) error {
	if root.Kind() != jsondoc.Object {
		return invalid("not a JSON object but %s", jsonKind(root.Any()))
	}
	if rules.rootObject {
		if t := root.Get("type"); !t.Exists() {
			return invalid(`the root has no "type" (it must be "object")`)
		} else if t.Kind() != jsondoc.String || t.Str() != "object" {
			return invalid(`the root "type" is %s, not "object"`, shortJSON(t.Any()))
		}
	}
	draft := rules.draft
	if s := root.Get("$schema"); s.Exists() {
		if s.Kind() != jsondoc.String {
			return invalid("$schema is %s, not a string", jsonKind(s.Any()))
		}
		url := s.Str()
		if draft = dialectOf(url); draft == nil {
			return uncheckable(ErrUnknownDialect, "its $schema %s is not a dialect this validator knows", strconv.Quote(textclip.Bytes(url, 120)))
		}
	}
	if draft == jsonschema.Draft7 || draft == jsonschema.Draft2020 {
		w := toolWalker{draft2020: draft == jsonschema.Draft2020, patterns: v.patterns}
		if w.walk(root) == walkValid {
			return nil
		}
	}
	return v.libraryJudgement(draft, root.Any(), raw)
}

// libraryJudgement judges a tool schema with the jsonschema library: its metaschema, then
// the compiler where references may point nowhere. It is the authority where the walker
// finds fault or cannot tell, and the judge of the drafts the walker does not know.
func (v *Validator) libraryJudgement(draft *jsonschema.Draft, doc any, raw string) error {
	metas, err := v.metaschemas()
	if err != nil {
		return uncheckable(ErrUncheckable, "%v", err)
	}
	if err := validateMeta(metas[draft], doc); err != nil {
		return metaFailure(draft, doc, err)
	}
	if draft == jsonschema.Draft4 || needsCompile(doc) {
		return compileToolSchema(draft, raw)
	}
	return nil
}

// validateMeta validates a schema against a metaschema, turning the library's panics (on
// numbers beyond what big.Rat reads, such as 1e9999999) into a verdict.
func validateMeta(meta *jsonschema.Schema, doc any) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("the metaschema validator failed on it (%v)", p)
		}
	}()
	return meta.Validate(doc)
}

func (v *Validator) metaschemas() (map[*jsonschema.Draft]*jsonschema.Schema, error) {
	v.metaOnce.Do(func() { v.metas, v.metaErr = compileMetaschemas() })
	return v.metas, v.metaErr
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

func compileToolSchema(draft *jsonschema.Draft, raw string) error {
	_, err := compileSchema(draft, raw, false)
	var bad *schemaCompileError
	if errors.As(err, &bad) {
		if bad.adding {
			return invalid("%v", bad.err)
		}
		return invalid("not a valid %s schema: %s", dialectName(draft), compileMessage(bad.err))
	}
	return err
}

// schemaCompileError is a schema the library does not accept: adding it failed (adding), or
// compiling it did.
type schemaCompileError struct {
	adding bool
	err    error
}

func (e *schemaCompileError) Error() string { return e.err.Error() }

// compileSchema compiles a schema a server wrote, under an internal URL, loading nothing: a
// reference outside it is uncheckable (ErrExternalRef), a panic of the compiler too (a hostile
// schema must not take the prober down with the library), and what the library refuses is a
// *schemaCompileError for the caller to word. assertFormats makes "format" assert, as
// validating values does.
func compileSchema(draft *jsonschema.Draft, raw string, assertFormats bool) (s *jsonschema.Schema, err error) {
	defer func() {
		if r := recover(); r != nil {
			s, err = nil, uncheckable(ErrUncheckable, "the schema compiler failed on it (%v)", r)
		}
	}()
	c := jsonschema.NewCompiler()
	c.Draft = draft
	c.LoadURL = refuseLoad
	if assertFormats {
		withFormats(c)
	}
	if err := c.AddResource(toolSchemaURL, strings.NewReader(raw)); err != nil {
		return nil, &schemaCompileError{adding: true, err: err}
	}
	s, err = c.Compile(toolSchemaURL)
	if err != nil {
		var refused *refusedLoadError
		if errors.As(err, &refused) {
			// A relative reference resolves against the internal URL the schema was
			// compiled under; show it as the server wrote it.
			return nil, uncheckable(ErrExternalRef, "it refers to %s, outside itself, and nothing is ever fetched",
				strconv.Quote(textclip.Bytes(strings.TrimPrefix(refused.url, toolSchemaBase), 120)))
		}
		return nil, &schemaCompileError{err: err}
	}
	return s, nil
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
	return textclip.Bytes(string(b), 80)
}
