package monitor

import (
	"errors"

	"go.yaml.in/yaml/v3"

	"github.com/mcpwatch/mcpwatch/alert"
	"github.com/mcpwatch/mcpwatch/internal/yamlstrict"
)

// alerts decodes the alerts: section. The alert package owns its keys, their defaults and
// their validation; this puts its problems among the file's own, in the same
// file:line:column: field: problem form, so that one run of the loader reports every mistake.
// An empty section (`alerts:` alone) turns alerting off, as leaving it out does.
func (v *validator) alerts(n *yaml.Node) *alert.Config {
	if isNull(n) {
		return nil
	}
	if n.Kind != yaml.MappingNode {
		v.add(yamlstrict.Pos{Line: n.Line, Column: n.Column}, alert.SectionName, "want a mapping of alert settings (see docs/alerts.md), got %s", yamlstrict.Describe(n))
		return nil
	}
	var cfg alert.Config
	if err := n.Decode(&cfg); err != nil {
		v.alertProblems(n, err)
		return nil
	}
	if err := cfg.ValidateAndSetDefaults(); err != nil {
		v.alertProblems(n, err)
		return nil
	}
	return &cfg
}

// alertProblems turns the alert package's errors into the file's.
func (v *validator) alertProblems(section *yaml.Node, err error) {
	var fields alert.ConfigErrors
	if !errors.As(err, &fields) {
		v.add(yamlstrict.Pos{Line: section.Line, Column: section.Column}, alert.SectionName, "%v", err)
		return
	}
	for _, fe := range fields {
		line, column := fe.Line, fe.Column
		if line == 0 {
			line, column = section.Line, section.Column // a default that cannot hold: name the section
		}
		v.errs = append(v.errs, &ConfigError{File: v.file, Line: line, Column: column, Field: fe.Field, Problem: fe.Msg})
	}
}

// ParseAlerts reads the alerts: section of a configuration file alone (`prober alerts test`
// needs no servers), with its problems in the form ParseConfig gives them: ConfigErrors, each
// with its file, line, column and field. It is nil, nil when the file has no alerts section.
func ParseAlerts(path string, data []byte) (*alert.Config, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, ConfigErrors{syntaxError(path, data, err)}
	}
	var section *yaml.Node
	if doc.Kind == yaml.DocumentNode && len(doc.Content) > 0 {
		if root := doc.Content[0]; root.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(root.Content); i += 2 {
				if root.Content[i].Value == alert.SectionName {
					section = root.Content[i+1]
				}
			}
		}
	}
	if section == nil {
		return nil, nil
	}
	v := &validator{file: path}
	cfg := v.alerts(section)
	if err := v.result(); err != nil {
		return nil, err
	}
	return cfg, nil
}
