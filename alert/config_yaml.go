package alert

import (
	"go.yaml.in/yaml/v3"

	"github.com/mcpwatch/mcpwatch/internal/yamlstrict"
)

// UnmarshalYAML decodes the section by the rules of the whole configuration file
// (internal/yamlstrict): an unknown key is an error, with its line, as a misspelt key
// silently ignored would be a setting silently not applied; durations follow the grammar of
// internal/units. It remembers the place of every key for the errors of
// ValidateAndSetDefaults.
func (c *Config) UnmarshalYAML(n *yaml.Node) error {
	type plain Config // without this method
	places, problems := yamlstrict.Decode(n, (*plain)(c), "")
	if len(problems) > 0 {
		errs := make(ConfigErrors, len(problems))
		for i, p := range problems {
			errs[i] = &FieldError{Line: p.Line, Column: p.Column, Field: sectionPath(p.Field), Msg: p.Message}
		}
		return errs
	}
	c.places = places
	return nil
}

// sectionPath is the path of a field of the section in the whole file.
func sectionPath(field string) string {
	if field == "" {
		return SectionName
	}
	return SectionName + "." + field
}
