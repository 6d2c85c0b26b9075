package mcpschema

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"

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

func compileInstanceSchema(draft *jsonschema.Draft, raw string) (s *jsonschema.Schema, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = uncheckable(ErrUncheckable, "the schema compiler failed on it (%v)", r)
		}
	}()
	c := jsonschema.NewCompiler()
	c.Draft = draft
	c.LoadURL = refuseLoad
	withFormats(c)
	if err := c.AddResource(toolSchemaURL, strings.NewReader(raw)); err != nil {
		return nil, uncheckable(ErrUncheckable, "%v", err)
	}
	s, err = c.Compile(toolSchemaURL)
	if err != nil {
		var refused *refusedLoadError
		if errors.As(err, &refused) {
			return nil, uncheckable(ErrExternalRef, "it refers to %s, outside itself, and nothing is ever fetched",
				strconv.Quote(textclip.Bytes(strings.TrimPrefix(refused.url, toolSchemaBase), 120)))
		}
		return nil, uncheckable(ErrUncheckable, "not a usable %s schema: %s", dialectName(draft), compileMessage(err))
	}
	return s, nil
}
