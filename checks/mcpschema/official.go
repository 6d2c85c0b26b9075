package mcpschema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/mcpwatch/mcpwatch/internal/textclip"
)

// ErrOfficialSchemas: the directory given for the official schemas cannot be used as one.
var ErrOfficialSchemas = errors.New("not a directory of official MCP schemas")

// maxOfficialSchemaBytes bounds one schema file (the official ones are under 200 KiB).
const maxOfficialSchemaBytes = 16 << 20

// isRevisionDir reports whether name is that of a revision folder in the specification
// repository's schema/: a date, YYYY-MM-DD.
func isRevisionDir(name string) bool {
	if len(name) != len("2006-01-02") {
		return false
	}
	for i := 0; i < len(name); i++ {
		if i == 4 || i == 7 {
			if name[i] != '-' {
				return false
			}
		} else if name[i] < '0' || name[i] > '9' {
			return false
		}
	}
	return true
}

// Official validates messages with the schema files of the specification repository, which
// a user may have (its schema/ folder: <revision>/schema.json). They are not shipped with
// the prober; pointed at them, it judges messages by them as well as by its own schemas.
// An Official is safe for concurrent use.
type Official struct {
	dir       string
	revisions map[string]*officialRevision
}

type officialRevision struct {
	name, file, url string
	// defs is where the file keeps its definitions: "#/definitions/" (draft-07) or
	// "#/$defs/" (2020-12).
	defs  string
	names map[string]bool

	// The library's compiler is not safe for concurrent use; it compiles a definition the
	// first time a document needs it.
	mu       sync.Mutex
	compiler *jsonschema.Compiler
	compiled map[string]*jsonschema.Schema
}

// LoadOfficial reads dir/<revision>/schema.json for every folder of dir named like a
// revision (YYYY-MM-DD); other entries (README, LICENSE, draft/) are ignored. Each file must
// be a JSON Schema (draft-07 or 2020-12) valid against its metaschema. A directory that is
// missing, holds no revision, or holds a revision folder without a usable schema.json is an
// error wrapping ErrOfficialSchemas that says what is wrong and where.
func LoadOfficial(dir string) (*Official, error) {
	fi, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %w", dir, ErrOfficialSchemas, err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("%s: %w: it is a file; give the folder that holds <revision>/schema.json", dir, ErrOfficialSchemas)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %w", dir, ErrOfficialSchemas, err)
	}
	o := &Official{dir: dir, revisions: map[string]*officialRevision{}}
	for _, e := range entries {
		if !e.IsDir() || !isRevisionDir(e.Name()) {
			continue
		}
		r, err := loadOfficialRevision(filepath.Join(dir, e.Name(), "schema.json"), e.Name())
		if err != nil {
			return nil, err
		}
		o.revisions[e.Name()] = r
	}
	if len(o.revisions) == 0 {
		return nil, fmt.Errorf("%s: %w: no <revision>/schema.json in it (want e.g. %s, as in the schema/ folder of the specification repository)",
			dir, ErrOfficialSchemas, filepath.Join(dir, "2025-11-25", "schema.json"))
	}
	return o, nil
}

func loadOfficialRevision(file, name string) (*officialRevision, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%s: %w: %s", file, ErrOfficialSchemas, fmt.Sprintf(format, args...))
	}
	f, err := os.Open(file)
	if err != nil {
		return nil, bad("the revision folder %s has no readable schema.json (%v)", name, err)
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, maxOfficialSchemaBytes+1))
	if err != nil {
		return nil, bad("%v", err)
	}
	if len(raw) > maxOfficialSchemaBytes {
		return nil, bad("larger than %d bytes", maxOfficialSchemaBytes)
	}
	var head struct {
		Schema      string                     `json:"$schema"`
		Definitions map[string]json.RawMessage `json:"definitions"`
		Defs        map[string]json.RawMessage `json:"$defs"`
	}
	if err := json.Unmarshal(raw, &head); err != nil {
		return nil, bad("not a JSON object: %v", err)
	}
	r := &officialRevision{
		name: name, file: file,
		// The files have no $id: each is known to the compiler by a URL of its own that
		// nothing is ever loaded from.
		url:   "https://official-schemas.invalid/" + name + "/schema.json",
		names: map[string]bool{},
	}
	defs := head.Defs
	switch draft := dialectOf(head.Schema); draft {
	case jsonschema.Draft7:
		r.defs, defs = "#/definitions/", head.Definitions
	case jsonschema.Draft2020:
		r.defs = "#/$defs/"
	default:
		return nil, bad("$schema %q: want draft-07 or 2020-12, the dialects of the official schemas", textclip.Bytes(head.Schema, 80))
	}
	if len(defs) == 0 {
		return nil, bad("no definitions under %s", r.defs)
	}
	for d := range defs {
		r.names[d] = true
	}
	c := jsonschema.NewCompiler()
	// Formats are constraints in every dialect, as in this package's own schemas.
	c.AssertFormat = true
	withFormats(c)
	c.LoadURL = refuseLoad
	if err := c.AddResource(r.url, bytes.NewReader(raw)); err != nil {
		return nil, bad("%v", err)
	}
	// Compiling the root validates the whole file against its metaschema: a broken file is
	// reported now, not in the middle of a probe.
	if _, err := c.Compile(r.url); err != nil {
		return nil, bad("not a valid schema: %v", err)
	}
	r.compiler, r.compiled = c, map[string]*jsonschema.Schema{}
	return r, nil
}

// File is the schema file of a revision ("" when there is none).
func (o *Official) File(revision string) string {
	if r, ok := o.revisions[revision]; ok {
		return r.file
	}
	return ""
}

// Validate checks doc (a value from Decode) against a definition of a revision's official
// schema. A document that does not match returns a *Violation; a revision or definition the
// directory lacks returns an error wrapping ErrUnknownRevision or ErrUnknownDefinition.
func (o *Official) Validate(revision, definition string, doc any) error {
	if err := o.Has(revision, definition); err != nil {
		return err
	}
	s, err := o.revisions[revision].schema(definition)
	if err != nil {
		return err
	}
	return check(s, doc, "validating with the official schema")
}

// Has returns nil when the revision's file defines definition, else an error wrapping
// ErrUnknownRevision or ErrUnknownDefinition that names the directory or file.
func (o *Official) Has(revision, definition string) error {
	r, ok := o.revisions[revision]
	if !ok {
		return fmt.Errorf("%w: %q in %s", ErrUnknownRevision, revision, o.dir)
	}
	if !r.names[definition] {
		return fmt.Errorf("%w: %s in %s", ErrUnknownDefinition, definition, r.file)
	}
	return nil
}

func (r *officialRevision) schema(definition string) (*jsonschema.Schema, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if s, ok := r.compiled[definition]; ok {
		return s, nil
	}
	s, err := r.compiler.Compile(r.url + r.defs + definition)
	if err != nil {
		return nil, fmt.Errorf("mcpschema: compiling %s of %s: %w", definition, r.file, err)
	}
	r.compiled[definition] = s
	return s, nil
}
