package mcpschema

import (
	"encoding/json"
	"errors"
	"strconv"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/mcpwatch/mcpwatch/internal/textclip"
)

// ValidateAgainst validates a value a tool produced (its structuredContent) against the
// schema the tool declares (its outputSchema), in the schema's dialect: its $schema, or the
// revision's default (draft-07 before 2025-11-25, 2020-12 from then on). Nothing is ever
// loaded. A value that breaks the schema returns a *Violation; a schema that cannot be used
// returns an error wrapping ErrUncheckable.
func (v *Validator) ValidateAgainst(revision string, schema, value json.RawMessage) error {
	draft := rulesFor(revision, true).draft
	var head struct {
		Schema *string `json:"$schema"`
	}
	if json.Unmarshal(schema, &head) == nil && head.Schema != nil {
		if draft = dialectOf(*head.Schema); draft == nil {
			return uncheckable(ErrUnknownDialect, "its $schema %s is not a dialect this validator knows", strconv.Quote(textclip.Bytes(*head.Schema, 120)))
		}
	}
	s, err := compileInstanceSchema(draft, string(schema))
	if err != nil {
		return err
	}
	doc, err := Decode(value)
	if err != nil {
		return err
	}
	return check(s, doc, "validating structured content")
}

// compileInstanceSchema compiles a tool's schema for validating values against it: what the
// library refuses makes the schema unusable for that, not a finding of this check.
func compileInstanceSchema(draft *jsonschema.Draft, raw string) (*jsonschema.Schema, error) {
	s, err := compileSchema(draft, raw, true)
	var bad *schemaCompileError
	if errors.As(err, &bad) {
		if bad.adding {
			return nil, uncheckable(ErrUncheckable, "%v", bad.err)
		}
		return nil, uncheckable(ErrUncheckable, "not a usable %s schema: %s", dialectName(draft), compileMessage(bad.err))
	}
	return s, err
}
