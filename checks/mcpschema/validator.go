// Package mcpschema validates MCP messages against JSON schemas this project wrote, one per
// protocol revision (schemas/<revision>.json, embedded), and judges the JSON Schemas that tools
// publish as their inputSchema and outputSchema.
//
// Everything is compiled once in New; a Validator is safe for concurrent use.
package mcpschema

import (
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

//go:embed schemas/*.json
var schemaFiles embed.FS

// Sentinel errors callers branch on.
var (
	// ErrUnknownRevision: no schema for that protocol revision.
	ErrUnknownRevision = errors.New("mcpschema: no schema for this revision")
	// ErrUnknownDefinition: the revision has no definition of that name (InitializeResult
	// under 2026-07-28, for example).
	ErrUnknownDefinition = errors.New("mcpschema: no such definition in this revision")
	// ErrNotJSON: the document is not one JSON value.
	ErrNotJSON = errors.New("not valid JSON")
)

// schemaBase is the URL the embedded files are known by inside the compiler; nothing is ever
// loaded from it.
const schemaBase = "https://mcpwatch.invalid/schemas/"

// Validator holds the compiled message schemas of every revision, the dialect metaschemas for
// tool schemas, and a bounded cache of tool schema verdicts.
type Validator struct {
	defs  map[string]map[string]*jsonschema.Schema // revision -> definition -> schema
	metas map[*jsonschema.Draft]*jsonschema.Schema
	tools *verdictCache
}

// New compiles the embedded schemas of every revision and the dialect metaschemas.
func New() (*Validator, error) {
	v := &Validator{
		defs:  map[string]map[string]*jsonschema.Schema{},
		tools: newVerdictCache(toolCacheSize),
	}
	entries, err := schemaFiles.ReadDir("schemas")
	if err != nil {
		return nil, fmt.Errorf("mcpschema: reading embedded schemas: %w", err)
	}
	for _, e := range entries {
		rev := strings.TrimSuffix(e.Name(), ".json")
		defs, err := compileRevision(path.Join("schemas", e.Name()), rev)
		if err != nil {
			return nil, err
		}
		v.defs[rev] = defs
	}
	if v.metas, err = compileMetaschemas(); err != nil {
		return nil, err
	}
	return v, nil
}

func compileRevision(file, rev string) (map[string]*jsonschema.Schema, error) {
	raw, err := schemaFiles.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("mcpschema: reading %s: %w", file, err)
	}
	var doc struct {
		Defs map[string]json.RawMessage `json:"$defs"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("mcpschema: %s: %w", file, err)
	}
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	// The specification means its formats (uri, uri-template) as constraints; 2020-12 would
	// only annotate them otherwise.
	c.AssertFormat = true
	c.LoadURL = refuseLoad
	url := schemaBase + rev + ".json"
	if err := c.AddResource(url, strings.NewReader(string(raw))); err != nil {
		return nil, fmt.Errorf("mcpschema: %s: %w", file, err)
	}
	defs := map[string]*jsonschema.Schema{}
	for name := range doc.Defs {
		if !isPublicDefinition(name) {
			continue
		}
		s, err := c.Compile(url + "#/$defs/" + name)
		if err != nil {
			return nil, fmt.Errorf("mcpschema: compiling %s of %s: %w", name, rev, err)
		}
		defs[name] = s
	}
	return defs, nil
}

// isPublicDefinition: capitalised definitions are messages; lower-case ones are their parts.
func isPublicDefinition(name string) bool { return name != "" && name[0] >= 'A' && name[0] <= 'Z' }

// refuseLoad keeps every compiler of this package off the network and the file system: a
// schema a server sent must not make the prober fetch anything (MCP-RULES E3).
func refuseLoad(url string) (io.ReadCloser, error) {
	return nil, &refusedLoadError{url: url}
}

type refusedLoadError struct{ url string }

func (e *refusedLoadError) Error() string { return "mcpschema: refused to load " + e.url }

// Revisions lists the revisions with a schema, oldest first.
func (v *Validator) Revisions() []string {
	out := make([]string, 0, len(v.defs))
	for r := range v.defs {
		out = append(out, r)
	}
	sort.Strings(out)
	return out
}

// Definitions lists the definitions a revision can validate, sorted.
func (v *Validator) Definitions(revision string) []string {
	out := make([]string, 0, len(v.defs[revision]))
	for d := range v.defs[revision] {
		out = append(out, d)
	}
	sort.Strings(out)
	return out
}

// Validate checks doc (raw JSON) against a definition (e.g. "InitializeResult") of a
// revision. A document that does not match returns a *Violation; an unknown revision or
// definition returns an error wrapping ErrUnknownRevision or ErrUnknownDefinition.
//
// Envelopes are named as each revision names them (JSONRPCResponse is the result response up
// to 2025-06-18 and the union from 2025-11-25 on); JSONRPCResultResponse and
// JSONRPCErrorResponse work in every revision.
func (v *Validator) Validate(revision, definition string, doc json.RawMessage) error {
	s, err := v.schema(revision, definition)
	if err != nil {
		return err
	}
	val, err := Decode(doc)
	if err != nil {
		return err
	}
	return check(s, val)
}

// ValidateValue is Validate for a document already decoded with Decode (so that a caller that
// needs the values too decodes once).
func (v *Validator) ValidateValue(revision, definition string, doc any) error {
	s, err := v.schema(revision, definition)
	if err != nil {
		return err
	}
	return check(s, doc)
}

func (v *Validator) schema(revision, definition string) (*jsonschema.Schema, error) {
	defs, ok := v.defs[revision]
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrUnknownRevision, revision)
	}
	s, ok := defs[definition]
	if !ok {
		return nil, fmt.Errorf("%w: %s in %s", ErrUnknownDefinition, definition, revision)
	}
	return s, nil
}

func check(s *jsonschema.Schema, doc any) error {
	err := s.Validate(doc)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if errors.As(err, &ve) {
		return violationOf(ve)
	}
	// An infinite loop or a value that is not JSON: neither can come from Decode and our own
	// schemas, so say what happened rather than guess.
	return fmt.Errorf("mcpschema: validating: %w", err)
}
