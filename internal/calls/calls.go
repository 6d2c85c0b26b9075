// Package calls reads and starts a calls file: the tool calls a user allows the prober to make
// (prober check --calls FILE), with the arguments of each, its timeout, what its result is
// expected to be, and whether a call with invalid arguments may be sent too. The probe never
// calls a listed tool without one.
//
// The file is YAML read by internal/yamlstrict (kebab-case keys, their camelCase aliases,
// unknown keys and wrong types named by line and column):
//
//	calls:
//	  - tool: echo
//	    arguments: {text: hello, token: {fromEnv: ECHO_TOKEN}}
//	    timeout: 5s
//	    invalid-arguments: true
//	    expect: {isError: false, textContains: hello}
//	  - tool: add
//	    arguments: {a: 1, b: 2}
//	    expect: {pointer: /sum, equals: 3}
//
// prober check --write-calls writes a starter file from the server's tool list
// (WriteStarter): every tool an entry, commented out, its arguments built from its
// inputSchema.
//
// An argument value {fromEnv: VAR} (or {from-env: VAR}) is read from the environment when
// the file is loaded and is a secret from then on: Set.Secrets lists the values, for the
// caller's redactor.
package calls

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/mcpwatch/mcpwatch/internal/yamlstrict"
	"github.com/mcpwatch/mcpwatch/probe"
)

// File is the calls file as written.
type File struct {
	Calls []Call `yaml:"calls"`
}

// Call is one entry of the file.
type Call struct {
	Tool string `yaml:"tool"`
	// Arguments is a mapping; any value in it may be {fromEnv: VAR}.
	Arguments        yaml.Node     `yaml:"arguments"`
	Timeout          time.Duration `yaml:"timeout"`
	InvalidArguments bool          `yaml:"invalid-arguments" alias:"invalidArguments"`
	Expect           *Expect       `yaml:"expect"`
}

// Expect is what the result of a call must be (tools.call-expectations).
type Expect struct {
	IsError      *bool  `yaml:"is-error" alias:"isError"`
	TextContains string `yaml:"text-contains" alias:"textContains"`
	// Pointer is a JSON Pointer (RFC 6901) into structuredContent; Equals the value it must
	// point at, Matches a regular expression its text (a string, or the JSON of any other
	// value) must match.
	Pointer string    `yaml:"pointer"`
	Equals  yaml.Node `yaml:"equals"`
	Matches string    `yaml:"matches"`
}

// Set is a loaded calls file: the calls as the probe takes them, and the secrets read from
// the environment for them.
type Set struct {
	Calls   []probe.ToolCall
	Secrets []string
}

// Problems are every problem of a calls file, each with its line and column.
type Problems []string

func (p Problems) Error() string { return strings.Join(p, "\n") }

// Parse reads a calls file (name is for the messages) with lookupEnv for its fromEnv values.
func Parse(name string, data []byte, lookupEnv func(string) (string, bool)) (*Set, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return nil, Problems{name + ": the file is empty: it needs a calls list"}
	}
	var f File
	places, problems := yamlstrict.Decode(&doc, &f, "")
	var out Problems
	for _, p := range problems {
		out = append(out, name+": "+p.Error())
	}
	fail := func(path, format string, args ...any) {
		pl := places.Of(path)
		out = append(out, fmt.Sprintf("%s: line %d, column %d: %s: %s", name, pl.Value.Line, pl.Value.Column, pl.Written, fmt.Sprintf(format, args...)))
	}
	set := &Set{}
	switch {
	case len(problems) > 0 || len(f.Calls) > 0:
	case strings.Contains(string(data), starterMarker):
		// A file of prober check --write-calls as written: every call commented out.
		fail("calls", "every call is commented out: uncomment the calls to make (remove the first \"# \" of every line of their entries)")
	default:
		fail("calls", "want a list of at least one call")
	}
	for i, c := range f.Calls {
		at := "calls[" + strconv.Itoa(i) + "]"
		if strings.TrimSpace(c.Tool) == "" {
			fail(at+".tool", "want the name of a tool the server lists")
		}
		if c.Timeout < 0 {
			fail(at+".timeout", "want a positive duration such as 30s")
		}
		tc := probe.ToolCall{Tool: c.Tool, Timeout: c.Timeout, InvalidArguments: c.InvalidArguments}
		args, secrets, err := arguments(&c.Arguments, lookupEnv)
		if err != nil {
			fail(at+".arguments", "%v", err)
		}
		tc.Arguments, set.Secrets = args, append(set.Secrets, secrets...)
		if c.Expect != nil {
			e, err := expectation(c.Expect)
			if err != nil {
				fail(at+".expect", "%v", err)
			}
			tc.Expect = e
		}
		set.Calls = append(set.Calls, tc)
	}
	if len(out) > 0 {
		return nil, out
	}
	return set, nil
}

// arguments turns the arguments mapping into JSON, reading fromEnv values.
func arguments(n *yaml.Node, lookupEnv func(string) (string, bool)) (json.RawMessage, []string, error) {
	if n.Kind == 0 || (n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null") {
		return json.RawMessage(`{}`), nil, nil
	}
	if n.Kind != yaml.MappingNode {
		return nil, nil, errors.New("want a mapping of argument names to values")
	}
	var secrets []string
	v, err := value(n, lookupEnv, &secrets)
	if err != nil {
		return nil, nil, err
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, nil, fmt.Errorf("not JSON: %w", err)
	}
	return raw, secrets, nil
}

// value is the JSON value of a YAML node, with {fromEnv: VAR} read from the environment.
func value(n *yaml.Node, lookupEnv func(string) (string, bool), secrets *[]string) (any, error) {
	for n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	switch n.Kind {
	case yaml.MappingNode:
		if len(n.Content) == 2 && (n.Content[0].Value == "fromEnv" || n.Content[0].Value == "from-env") {
			name := n.Content[1].Value
			v, ok := lookupEnv(name)
			if !ok || v == "" {
				return nil, fmt.Errorf("line %d: the environment variable %s is not set or empty", n.Line, name)
			}
			*secrets = append(*secrets, v)
			return v, nil
		}
		m := map[string]any{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			v, err := value(n.Content[i+1], lookupEnv, secrets)
			if err != nil {
				return nil, err
			}
			m[n.Content[i].Value] = v
		}
		return m, nil
	case yaml.SequenceNode:
		l := []any{}
		for _, c := range n.Content {
			v, err := value(c, lookupEnv, secrets)
			if err != nil {
				return nil, err
			}
			l = append(l, v)
		}
		return l, nil
	case yaml.ScalarNode:
		var v any
		if err := n.Decode(&v); err != nil {
			return nil, fmt.Errorf("line %d: %w", n.Line, err)
		}
		if _, isTime := v.(time.Time); isTime {
			return n.Value, nil // a date stays the text the file gave
		}
		return v, nil
	}
	return nil, fmt.Errorf("line %d: a value of an unknown kind", n.Line)
}

// expectation checks an expect mapping and turns it into the probe's form.
func expectation(x *Expect) (*probe.CallExpect, error) {
	e := &probe.CallExpect{IsError: x.IsError, TextContains: x.TextContains, Pointer: x.Pointer, Matches: x.Matches}
	hasEquals := x.Equals.Kind != 0
	if (hasEquals || x.Matches != "") && x.Pointer == "" {
		return nil, errors.New("equals and matches need a pointer into structuredContent (such as /sum)")
	}
	if x.Pointer != "" && !strings.HasPrefix(x.Pointer, "/") {
		return nil, fmt.Errorf("pointer %q: want a JSON Pointer such as /sum (it starts with /)", x.Pointer)
	}
	if x.Pointer != "" && !hasEquals && x.Matches == "" {
		return nil, errors.New("a pointer needs equals or matches")
	}
	if hasEquals && x.Matches != "" {
		return nil, errors.New("give equals or matches, not both")
	}
	if x.Matches != "" {
		if _, err := regexp.Compile(x.Matches); err != nil {
			return nil, fmt.Errorf("matches: not a regular expression: %w", err)
		}
	}
	if hasEquals {
		var none []string
		v, err := value(&x.Equals, func(string) (string, bool) { return "", false }, &none)
		if err != nil {
			return nil, fmt.Errorf("equals: %w", err)
		}
		e.Equals, _ = json.Marshal(v)
	}
	if e.IsError == nil && e.TextContains == "" && e.Pointer == "" {
		return nil, errors.New("want at least one of isError, textContains, pointer")
	}
	return e, nil
}
