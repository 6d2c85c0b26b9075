// Package mcpschema validates MCP messages against JSON schemas this project wrote, one per
// protocol revision (schemas/<revision>.json, embedded), and judges the JSON Schemas that tools
// publish as their inputSchema and outputSchema.
//
// Nothing is compiled up front: `prober check` starts in a few milliseconds and pays only for
// the revision it speaks. A revision's schemas are compiled on first use into matchers that
// say yes or no fast; the jsonschema library compiles a definition only when a document
// fails it, to say why. A Validator is safe for concurrent use.
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
	"sync"

	"github.com/mcpwatch/mcpwatch/jsondoc"
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

// Validator holds the message schemas of every revision (each compiled when first used), the
// dialect metaschemas for tool schemas, and bounded caches of tool schema verdicts and
// pattern checks.
type Validator struct {
	revisions map[string]*revision // fixed by New; each loads itself once

	metaOnce sync.Once
	metas    map[*jsonschema.Draft]*jsonschema.Schema
	metaErr  error

	tools    *verdictCache
	patterns *patternCache
}

// New lists the embedded schemas. It compiles nothing: see the package comment.
func New() (*Validator, error) {
	v := &Validator{
		revisions: map[string]*revision{},
		tools:     newVerdictCache(toolCacheSize),
		patterns:  newPatternCache(patternCacheSize),
	}
	entries, err := schemaFiles.ReadDir("schemas")
	if err != nil {
		return nil, fmt.Errorf("mcpschema: reading embedded schemas: %w", err)
	}
	for _, e := range entries {
		rev := strings.TrimSuffix(e.Name(), ".json")
		v.revisions[rev] = &revision{name: rev, file: path.Join("schemas", e.Name())}
	}
	return v, nil
}

// revision is the schema file of one protocol revision.
type revision struct {
	name, file string

	load    sync.Once
	raw     []byte
	public  map[string]bool // the public definitions
	loadErr error

	// matchMu guards matchers, which compiles a definition when it is first asked for, and
	// matchErr, the first compile error: it sticks, as matchers that failed half-way may be
	// referenced by others. Compiled matchers never change: they are used outside the lock.
	matchMu  sync.Mutex
	matchers *matcherCompiler
	matchErr error

	// The library's compiler is not safe for concurrent use; it compiles a definition the
	// first time a document fails it.
	mu       sync.Mutex
	compiler *jsonschema.Compiler
	compiled map[string]*jsonschema.Schema
}

func (r *revision) loaded() error {
	r.load.Do(func() { r.loadErr = r.read() })
	return r.loadErr
}

func (r *revision) read() error {
	raw, err := schemaFiles.ReadFile(r.file)
	if err != nil {
		return fmt.Errorf("mcpschema: reading %s: %w", r.file, err)
	}
	doc, err := parse(raw)
	if err != nil {
		return fmt.Errorf("mcpschema: %s: %w", r.file, err)
	}
	c, err := newMatcherCompiler(doc.Root())
	if err != nil {
		return fmt.Errorf("mcpschema: %s: %w", r.file, err)
	}
	r.raw = raw
	r.public = map[string]bool{}
	for _, name := range c.names() {
		if isPublicDefinition(name) {
			r.public[name] = true
		}
	}
	r.matchers = c
	return nil
}

// matcher returns the compiled matcher of a public definition (compiling it when first
// asked for).
func (r *revision) matcher(definition string) (*matcher, error) {
	if !r.public[definition] {
		return nil, fmt.Errorf("%w: %s in %s", ErrUnknownDefinition, definition, r.name)
	}
	r.matchMu.Lock()
	defer r.matchMu.Unlock()
	if r.matchErr != nil {
		return nil, r.matchErr
	}
	m, err := r.matchers.definition(definition)
	if err != nil {
		r.matchErr = fmt.Errorf("mcpschema: %s: %w", r.file, err)
		return nil, r.matchErr
	}
	return m, nil
}

// librarySchema compiles (once) a definition with the jsonschema library.
func (r *revision) librarySchema(definition string) (*jsonschema.Schema, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if s, ok := r.compiled[definition]; ok {
		return s, nil
	}
	url := schemaBase + r.name + ".json"
	if r.compiler == nil {
		c := jsonschema.NewCompiler()
		c.Draft = jsonschema.Draft2020
		// The specification means its formats (uri, uri-template) as constraints; 2020-12
		// would only annotate them otherwise.
		c.AssertFormat = true
		withFormats(c)
		c.LoadURL = refuseLoad
		if err := c.AddResource(url, strings.NewReader(string(r.raw))); err != nil {
			return nil, fmt.Errorf("mcpschema: %s: %w", r.file, err)
		}
		r.compiler, r.compiled = c, map[string]*jsonschema.Schema{}
	}
	s, err := r.compiler.Compile(url + "#/$defs/" + definition)
	if err != nil {
		return nil, fmt.Errorf("mcpschema: compiling %s of %s: %w", definition, r.name, err)
	}
	r.compiled[definition] = s
	return s, nil
}

// isPublicDefinition: capitalised definitions are messages; lower-case ones are their parts.
func isPublicDefinition(name string) bool { return name != "" && name[0] >= 'A' && name[0] <= 'Z' }

// refuseLoad keeps every compiler of this package off the network and the file system: a
// schema a server sent must not make the prober fetch anything (basic, JSON Schema Usage).
func refuseLoad(url string) (io.ReadCloser, error) {
	return nil, &refusedLoadError{url: url}
}

type refusedLoadError struct{ url string }

func (e *refusedLoadError) Error() string { return "mcpschema: refused to load " + e.url }

// Revisions lists the revisions with a schema, oldest first.
func (v *Validator) Revisions() []string {
	out := make([]string, 0, len(v.revisions))
	for r := range v.revisions {
		out = append(out, r)
	}
	sort.Strings(out)
	return out
}

// Definitions lists the definitions a revision can validate, sorted (none for a revision
// without a schema).
func (v *Validator) Definitions(revision string) []string {
	r, ok := v.revisions[revision]
	if !ok || r.loaded() != nil {
		return nil
	}
	out := make([]string, 0, len(r.public))
	for d := range r.public {
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
	r, m, err := v.definition(revision, definition)
	if err != nil {
		return err
	}
	parsed, err := parse(doc)
	if err != nil {
		return err
	}
	if m.match(parsed.Root()) {
		return nil
	}
	return r.explain(definition, parsed.Root().Any())
}

// ValidateDoc is Validate for a document already parsed (so that a caller that reads the
// document too parses it once).
func (v *Validator) ValidateDoc(revision, definition string, doc jsondoc.Value) error {
	r, m, err := v.definition(revision, definition)
	if err != nil {
		return err
	}
	if m.match(doc) {
		return nil
	}
	return r.explain(definition, doc.Any())
}

// ValidateValue is Validate for a document decoded with Decode.
func (v *Validator) ValidateValue(revision, definition string, doc any) error {
	r, m, err := v.definition(revision, definition)
	if err != nil {
		return err
	}
	raw, err := json.Marshal(doc)
	if err != nil {
		return fmt.Errorf("mcpschema: %w: %v", ErrNotJSON, err)
	}
	parsed, err := parse(raw)
	if err != nil {
		return err
	}
	if m.match(parsed.Root()) {
		return nil
	}
	return r.explain(definition, doc)
}

func (v *Validator) definition(revision, definition string) (*revision, *matcher, error) {
	r, ok := v.revisions[revision]
	if !ok {
		return nil, nil, fmt.Errorf("%w: %q", ErrUnknownRevision, revision)
	}
	if err := r.loaded(); err != nil {
		return nil, nil, err
	}
	m, err := r.matcher(definition)
	if err != nil {
		return nil, nil, err
	}
	return r, m, nil
}

// explain says why doc fails a definition, in the library's words: the matcher said no, and
// the library, the authority on messages, finds the violation. Should the two ever
// disagree the library's verdict stands (and the tests that hold them to the same verdicts
// fail).
func (r *revision) explain(definition string, doc any) error {
	s, err := r.librarySchema(definition)
	if err != nil {
		return err
	}
	return check(s, doc, "validating")
}

// check validates doc with s; what names the validation in errors.
func check(s *jsonschema.Schema, doc any, what string) (err error) {
	defer func() {
		// The library panics on numbers beyond what big.Rat reads (1e9999999); a hostile
		// document must not take the prober down with it.
		if p := recover(); p != nil {
			err = fmt.Errorf("mcpschema: %s: the validator failed on the document (%v)", what, p)
		}
	}()
	err = s.Validate(doc)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if errors.As(err, &ve) {
		return violationOf(ve)
	}
	// An infinite loop or a value that is not JSON: neither can come from Decode and our own
	// schemas, so say what happened rather than guess.
	return fmt.Errorf("mcpschema: %s: %w", what, err)
}
