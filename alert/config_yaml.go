package alert

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// UnmarshalYAML decodes the section strictly (an unknown key is an error, with its line, as a
// misspelt key silently ignored would be a setting silently not applied) and remembers the
// line and column of every key for the errors of ValidateAndSetDefaults.
func (c *Config) UnmarshalYAML(n *yaml.Node) error {
	type plain Config // without this method
	lines := map[string]position{}
	var errs ConfigErrors
	walkYAML(n, reflect.TypeFor[plain](), "", lines, &errs)
	if len(errs) > 0 {
		return errs
	}
	if err := n.Decode((*plain)(c)); err != nil {
		return err
	}
	c.lines = lines
	return nil
}

var durationType = reflect.TypeFor[time.Duration]()

// walkYAML records the place of each key under n, named by its path, and reports keys that
// the Go type t has no field for.
func walkYAML(n *yaml.Node, t reflect.Type, at string, lines map[string]position, errs *ConfigErrors) {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	if n.Kind == yaml.DocumentNode && len(n.Content) == 1 {
		n = n.Content[0]
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if at != "" {
		lines[at] = position{n.Line, n.Column}
	}
	switch {
	case t == durationType:
	case t.Kind() == reflect.Struct && n.Kind == yaml.MappingNode:
		fields := yamlFields(t)
		for i := 0; i+1 < len(n.Content); i += 2 {
			key, value := n.Content[i], n.Content[i+1]
			ft, ok := fields[key.Value]
			if !ok {
				*errs = append(*errs, &FieldError{Line: key.Line, Column: key.Column, Field: SectionName + "." + joinPath(at, key.Value),
					Msg: fmt.Sprintf("unknown key (known: %s)", strings.Join(slices.Sorted(maps.Keys(fields)), ", "))})
				continue
			}
			walkYAML(value, ft, joinPath(at, key.Value), lines, errs)
			lines[joinPath(at, key.Value)] = position{key.Line, key.Column} // the key's place, not its value's
		}
	case t.Kind() == reflect.Slice && n.Kind == yaml.SequenceNode:
		for i, item := range n.Content {
			walkYAML(item, t.Elem(), fmt.Sprintf("%s[%d]", at, i), lines, errs)
		}
	case t.Kind() == reflect.Map && n.Kind == yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			walkYAML(n.Content[i+1], t.Elem(), joinPath(at, n.Content[i].Value), lines, errs)
		}
	}
	// Anything else is a scalar, or a shape the decoder rejects with its own error.
}

func joinPath(at, key string) string {
	if at == "" {
		return key
	}
	return at + "." + key
}

// yamlFields maps the YAML keys of a struct to their types.
func yamlFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for f := range t.Fields() {
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		out[name] = f.Type
	}
	return out
}
