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
// An argument value {fromEnv: VAR} (or {from-env: VAR}) is a secret read from the
// environment. One decoder serves both readers of the form: Entries checks the calls (a calls
// file's, or a server's calls: in the monitor's configuration) and keeps each such value as a
// reference to its variable, so that what the monitor stores holds no secret; Resolve reads
// the variables when the probe is to call, and returns the values read for the caller's
// redactor. Parse, for prober check, does both at once.
package calls

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/mcpwatch/mcpwatch/internal/yamlstrict"
	"github.com/mcpwatch/mcpwatch/internal/yamlsyntax"
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

// Parse reads a calls file (name is for the messages) with lookupEnv for its fromEnv values:
// the entries of Entries, resolved at once. A variable not set is a problem of the file here,
// since the file is read when the probe starts (the monitor, which keeps its entries for
// later probes, resolves them at each probe instead).
func Parse(name string, data []byte, lookupEnv func(string) (string, bool)) (*Set, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		// The library names the line where the construct it could not finish began, never
		// a column; Locate finds where the parser stopped, as the monitor's configuration does.
		at := yamlsyntax.Locate(data, err)
		at.Problem = "not valid YAML: " + at.Problem
		return nil, Problems{name + ": " + at.Error()}
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
	switch {
	case len(problems) > 0 || len(f.Calls) > 0:
	case strings.Contains(string(data), starterMarker):
		// A file of prober check --write-calls as written: every call commented out.
		fail("calls", "every call is commented out: uncomment the calls to make (remove the first \"# \" of every line of their entries)")
	default:
		fail("calls", "want a list of at least one call")
	}
	entries := Entries(f.Calls, "calls", fail)
	if len(out) > 0 {
		return nil, out
	}
	set := &Set{}
	for i, e := range entries { // every call is an entry: none had a problem
		tc, secrets, err := resolve(e, lookupEnv)
		if err != nil {
			fail("calls["+strconv.Itoa(i)+"].arguments", "%v", err)
		}
		set.Calls = append(set.Calls, tc)
		set.Secrets = append(set.Secrets, secrets...)
	}
	if len(out) > 0 {
		return nil, out
	}
	return set, nil
}
