package monitor

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/mcpwatch/mcpwatch/internal/yamlstrict"
	"github.com/mcpwatch/mcpwatch/internal/yamlsyntax"
)

// ConfigError is one problem of a configuration file, located by line and field.
type ConfigError struct {
	File   string
	Line   int
	Column int
	// Field is the path of the field, such as servers[2].headers.Authorization.fromEnv.
	Field   string
	Problem string
}

func (e *ConfigError) Error() string {
	loc := e.File
	switch {
	case e.Line > 0 && e.Column > 0:
		loc = fmt.Sprintf("%s:%d:%d", e.File, e.Line, e.Column)
	case e.Line > 0:
		loc = fmt.Sprintf("%s:%d", e.File, e.Line)
	}
	if e.Field == "" {
		return fmt.Sprintf("%s: %s", loc, e.Problem)
	}
	return fmt.Sprintf("%s: %s: %s", loc, e.Field, e.Problem)
}

func (e *ConfigError) Unwrap() error { return ErrInvalidConfig }

// ConfigErrors are all the problems of a file, in file order.
type ConfigErrors []*ConfigError

func (es ConfigErrors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

func (es ConfigErrors) Unwrap() []error {
	out := make([]error, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}

// validator collects the problems of a file, each at the place of its field: the decoder's
// (a key unknown, a value of the wrong shape) and those of the validate methods (a value
// well-formed but wrong).
type validator struct {
	file   string
	places yamlstrict.Places
	errs   ConfigErrors
	// broken are the written paths of fields the decoder refused: their entries are not
	// judged again, and a field refused is not also "missing".
	broken []string
}

func (v *validator) decodeProblems(problems []*yamlstrict.Problem) {
	for _, p := range problems {
		v.errs = append(v.errs, &ConfigError{File: v.file, Line: p.Line, Column: p.Column, Field: p.Field, Problem: p.Message})
		v.broken = append(v.broken, p.Field)
	}
}

// refused reports whether the decoder refused the field at path or one inside it.
func (v *validator) refused(path string) bool {
	written := v.places.Of(path).Written
	for _, b := range v.broken {
		if b == written || strings.HasPrefix(b, written+".") || strings.HasPrefix(b, written+"[") {
			return true
		}
	}
	return false
}

// fail reports a problem of the value of the field at path (its canonical path); a field
// the file left out is placed at the value of the nearest enclosing one.
func (v *validator) fail(path, format string, args ...any) {
	at := v.places.Of(path)
	v.add(at.Value, at.Written, format, args...)
}

// failKey reports a problem of a field as a whole (it does not belong there, or is given
// twice), at its key.
func (v *validator) failKey(path, format string, args ...any) {
	at := v.places.Of(path)
	v.add(at.Key, at.Written, format, args...)
}

func (v *validator) add(at yamlstrict.Pos, field, format string, args ...any) {
	v.errs = append(v.errs, &ConfigError{File: v.file, Line: at.Line, Column: at.Column, Field: field, Problem: fmt.Sprintf(format, args...)})
}

// given reports whether the file has the field at path.
func (v *validator) given(path string) bool {
	_, ok := v.places[path]
	return ok
}

// text reports whether a string can be a setting at all: only a "\0" escape makes one with a
// NUL, and neither the database's text nor a command's arguments and environment hold it.
func (v *validator) text(path, s string) bool {
	if strings.IndexByte(s, 0) >= 0 {
		v.fail(path, "holds a NUL character")
		return false
	}
	return true
}

// result is the problems found, in file order; nil when there are none.
func (v *validator) result() error {
	if len(v.errs) == 0 {
		return nil
	}
	slices.SortStableFunc(v.errs, func(a, b *ConfigError) int { return cmp.Or(a.Line-b.Line, a.Column-b.Column) })
	return v.errs
}

// syntaxError places a YAML syntax error at the line and column where the parser stopped:
// the library's own line is where the construct it could not finish began (line 1 for a key
// indented wrongly further down).
func syntaxError(file string, data []byte, err error) *ConfigError {
	at := yamlsyntax.Locate(data, err)
	return &ConfigError{File: file, Line: at.Line, Column: at.Column, Problem: "not valid YAML: " + at.Problem}
}

func isNull(n *yaml.Node) bool {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n == nil || (n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null")
}
