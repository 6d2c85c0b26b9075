package monitor

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/mcpwatch/mcpwatch/alert"
)

// alerts decodes the alerts: section. The alert package owns its keys, their defaults and
// their validation; this puts its problems among the file's own, in the same
// file:line: field: problem form, so that one run of the loader reports every mistake.
// An empty section (`alerts:` alone) turns alerting off, as leaving it out does.
func (d *configDecoder) alerts(n *yaml.Node) *alert.Config {
	n = resolve(n)
	if isNull(n) {
		return nil
	}
	if n.Kind != yaml.MappingNode {
		d.fail(n, alert.SectionName, "want a mapping of alert settings (see docs/alerts.md), got %s", describe(n))
		return nil
	}
	var cfg alert.Config
	if err := n.Decode(&cfg); err != nil {
		d.alertProblems(n, err)
		return nil
	}
	if err := cfg.ValidateAndSetDefaults(); err != nil {
		d.alertProblems(n, err)
		return nil
	}
	return &cfg
}

// typeProblem is how the YAML library words a value of the wrong type. It is compiled where
// a bad file needs it, not at package init, which every `prober check` would pay for.
const typeProblem = `^line (\d+): cannot unmarshal (\S+)(?: ` + "`" + `(.*)` + "`" + `)? into (\S+)$`

// alertProblems turns the alert package's errors into the file's.
func (d *configDecoder) alertProblems(section *yaml.Node, err error) {
	var fields alert.ConfigErrors
	var types *yaml.TypeError
	switch {
	case errors.As(err, &fields):
		for _, fe := range fields {
			line, column := fe.Line, fe.Column
			if line == 0 {
				line, column = section.Line, section.Column // a default that cannot hold: name the section
			}
			d.errs = append(d.errs, &ConfigError{File: d.file, Line: line, Column: column, Field: fe.Field, Problem: fe.Msg})
		}
	case errors.As(err, &types):
		typeProblem := regexp.MustCompile(typeProblem)
		for _, msg := range types.Errors {
			e := &ConfigError{File: d.file, Line: section.Line, Field: alert.SectionName, Problem: msg}
			if m := typeProblem.FindStringSubmatch(msg); m != nil {
				e.Line, _ = strconv.Atoi(m[1])
				if path, n := pathAtLine(section, alert.SectionName, e.Line, m[2]); n != nil {
					e.Field, e.Column = path, n.Column
				}
				e.Problem = fmt.Sprintf("want %s, got %s", goTypeWords(m[4]), yamlValueWords(m[2], m[3]))
			}
			d.errs = append(d.errs, e)
		}
	default:
		d.fail(section, alert.SectionName, "%v", err)
	}
}

// pathAtLine finds the value that starts on line with the YAML tag the library complained
// of (the outermost one, for a flow list of strings such as [a, b] has both on one line) and
// returns its key as a field path such as alerts.channels[0].type, and the value's node
// (for its column); nil when there is none.
func pathAtLine(n *yaml.Node, at string, line int, tag string) (string, *yaml.Node) {
	n = resolve(n)
	if n.Line == line && n.ShortTag() == tag {
		return at, n
	}
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if p, v := pathAtLine(n.Content[i+1], join(at, n.Content[i].Value), line, tag); v != nil {
				return p, v
			}
		}
	case yaml.SequenceNode:
		for i, item := range n.Content {
			if p, v := pathAtLine(item, fmt.Sprintf("%s[%d]", at, i), line, tag); v != nil {
				return p, v
			}
		}
	}
	return "", nil
}

// goTypeWords says what a Go type of the alert configuration accepts.
func goTypeWords(t string) string {
	t = strings.TrimLeft(t, "*")
	switch {
	case t == "time.Duration":
		return "a duration such as 90s, 15m or 4h"
	case t == "int":
		return "a whole number"
	case t == "float64":
		return "a number"
	case t == "bool":
		return "true or false"
	case t == "string":
		return "a string"
	case strings.HasPrefix(t, "[]"):
		return "a list"
	case strings.HasPrefix(t, "map["):
		return "a mapping"
	}
	return "a mapping" // the structs of the section
}

// yamlValueWords describes a value the way describe does: "the string "x"", "int 5", "a list".
func yamlValueWords(tag, value string) string {
	switch tag {
	case "!!seq":
		return "a list"
	case "!!map":
		return "a mapping"
	case "!!str":
		return fmt.Sprintf("the string %q", value)
	}
	return strings.TrimSpace(strings.TrimPrefix(tag, "!!") + " " + value)
}

// ParseAlerts reads the alerts: section of a configuration file alone (`prober alerts test`
// needs no servers), with its problems in the form ParseConfig gives them: ConfigErrors, each
// with its file, line, column and field. It is nil, nil when the file has no alerts section.
func ParseAlerts(path string, data []byte) (*alert.Config, error) {
	d := &configDecoder{file: path}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, ConfigErrors{d.syntaxError(data, err)}
	}
	var section *yaml.Node
	if doc.Kind == yaml.DocumentNode && len(doc.Content) > 0 {
		if root := resolve(doc.Content[0]); root.Kind == yaml.MappingNode {
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
	cfg := d.alerts(section)
	if err := d.problems(); err != nil {
		return nil, err
	}
	return cfg, nil
}
