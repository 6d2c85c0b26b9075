package calls

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcpwatch/mcpwatch/jsondoc"

	"go.yaml.in/yaml/v3"

	"github.com/mcpwatch/mcpwatch/internal/envname"
	"github.com/mcpwatch/mcpwatch/probe"
)

// fromEnvKey is the key of an argument value read from the environment, in an Entry's
// arguments: {"fromEnv": "VAR"}. The file's other spelling, from-env, is stored as it.
const fromEnvKey = "fromEnv"

// Entry is one call as checked, every {fromEnv: VAR} argument still a reference to its
// variable: the form kept where a secret must not be (the monitor stores a server's calls in
// its database), resolved into the probe's call by Resolve when the call is to be made.
type Entry struct {
	Tool string `json:"tool"`
	// Arguments is a JSON object. A value {"fromEnv": "VAR"} in it, at any depth, is the
	// value of the environment variable VAR; nothing else in it is read from anywhere.
	Arguments json.RawMessage `json:"arguments"`
	// TimeoutMs bounds the call; 0 takes the probe's request timeout.
	TimeoutMs        int64        `json:"timeoutMs,omitempty"`
	InvalidArguments bool         `json:"invalidArguments,omitempty"`
	Expect           *Expectation `json:"expect,omitempty"`
}

// Expectation is an entry's expect, checked (see Expect for what each field means).
type Expectation struct {
	IsError      *bool           `json:"isError,omitempty"`
	TextContains string          `json:"textContains,omitempty"`
	Pointer      string          `json:"pointer,omitempty"`
	Equals       json.RawMessage `json:"equals,omitempty"`
	Matches      string          `json:"matches,omitempty"`
}

// Timeout is the entry's timeout as a duration.
func (e Entry) Timeout() time.Duration { return time.Duration(e.TimeoutMs) * time.Millisecond }

// Env lists the environment variables the entry's arguments read, in the order of their
// argument names.
func (e Entry) Env() []string {
	var tree any
	if decodeJSON(e.Arguments, &tree) != nil {
		return nil
	}
	var out []string
	walkRefs(tree, "", func(_ string, name string) { out = append(out, name) })
	return out
}

// Entries checks the calls of a list as decoded (at is the list's path: "calls", or
// "servers[2].calls" in the monitor's configuration) and returns them as entries. fail gets
// each problem with the path of its field (its line and column are the caller's to look up
// with the yamlstrict.Places of the decoding); an entry with a problem is left out.
func Entries(cs []Call, at string, fail func(path, format string, args ...any)) []Entry {
	var out []Entry
	for i, c := range cs {
		p := at + "[" + strconv.Itoa(i) + "]"
		ok := true
		bad := func(path, format string, args ...any) {
			ok = false
			fail(path, format, args...)
		}
		if strings.TrimSpace(c.Tool) == "" {
			bad(p+".tool", "want the name of a tool the server lists")
		}
		switch {
		case c.Timeout < 0:
			bad(p+".timeout", "want a positive duration such as 30s")
		case c.Timeout > 0 && c.Timeout < time.Millisecond:
			bad(p+".timeout", "%v is shorter than a millisecond", c.Timeout)
		}
		e := Entry{Tool: c.Tool, TimeoutMs: c.Timeout.Milliseconds(), InvalidArguments: c.InvalidArguments}
		args, err := arguments(&c.Arguments)
		if err != nil {
			bad(p+".arguments", "%v", err)
		}
		e.Arguments = args
		if c.Expect != nil {
			x, err := expectation(c.Expect)
			if err != nil {
				bad(p+".expect", "%v", err)
			}
			e.Expect = x
		}
		if ok {
			out = append(out, e)
		}
	}
	return out
}

// Resolve turns entries into the probe's calls, reading each fromEnv argument with lookupEnv
// now. secrets are the values read, for the caller's redactor. A call whose variable is not
// set (or is empty) is returned with NotSent saying so: the probe records it untested with
// that reason and never sends it, nor anything in place of the value.
func Resolve(entries []Entry, lookupEnv func(string) (string, bool)) (out []probe.ToolCall, secrets []string) {
	for _, e := range entries {
		tc, sec, err := resolve(e, lookupEnv)
		if err != nil {
			tc = probe.ToolCall{Tool: e.Tool, NotSent: err.Error() + ", so the call was not sent"}
		}
		out = append(out, tc)
		secrets = append(secrets, sec...)
	}
	return out, secrets
}

// resolve is Resolve for one entry; the error names the first variable missing.
func resolve(e Entry, lookupEnv func(string) (string, bool)) (probe.ToolCall, []string, error) {
	tc := probe.ToolCall{Tool: e.Tool, Timeout: e.Timeout(), InvalidArguments: e.InvalidArguments, Arguments: json.RawMessage(`{}`)}
	if x := e.Expect; x != nil {
		tc.Expect = &probe.CallExpect{IsError: x.IsError, TextContains: x.TextContains, Pointer: x.Pointer, Equals: x.Equals, Matches: x.Matches}
	}
	if len(e.Arguments) == 0 {
		return tc, nil, nil
	}
	var tree any
	if err := decodeJSON(e.Arguments, &tree); err != nil {
		return probe.ToolCall{}, nil, fmt.Errorf("the arguments of %s are not JSON: %w", strconv.Quote(e.Tool), err)
	}
	var secrets []string
	var missing error
	tree = replaceRefs(tree, "", func(path, name string) any {
		v, ok := lookupEnv(name)
		if !ok || v == "" {
			if missing == nil {
				missing = fmt.Errorf("the environment variable %s is not set or empty (the argument %s is read from it)", name, path)
			}
			return nil
		}
		secrets = append(secrets, v)
		return v
	})
	if missing != nil {
		return probe.ToolCall{}, nil, missing
	}
	raw, err := json.Marshal(tree)
	if err != nil {
		return probe.ToolCall{}, nil, fmt.Errorf("the arguments of %s: %w", strconv.Quote(e.Tool), err)
	}
	tc.Arguments = raw
	return tc, secrets, nil
}

// Encode is the JSON of entries, nil for none: what the monitor stores with a server.
func Encode(entries []Entry) (json.RawMessage, error) {
	if len(entries) == 0 {
		return nil, nil
	}
	raw, err := json.Marshal(entries)
	if err != nil {
		return nil, fmt.Errorf("calls: encode: %w", err)
	}
	return raw, nil
}

// Decode reads what Encode wrote; nil or an empty list is no entries.
func Decode(raw json.RawMessage) ([]Entry, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, nil
	}
	var out []Entry
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, fmt.Errorf("calls: decode: %w", err)
	}
	return out, nil
}

// isRef reports whether m is a reference {fromEnv: VAR}, and the variable's name.
func isRef(m map[string]any) (string, bool) {
	if len(m) != 1 {
		return "", false
	}
	name, ok := m[fromEnvKey].(string)
	return name, ok
}

// replaceRefs is v with every reference replaced by what with gives for it (path is the
// JSON Pointer of the value in the arguments).
func replaceRefs(v any, path string, with func(path, name string) any) any {
	switch x := v.(type) {
	case map[string]any:
		if name, ok := isRef(x); ok {
			return with(path, name)
		}
		for _, k := range slices.Sorted(maps.Keys(x)) {
			x[k] = replaceRefs(x[k], path+"/"+jsondoc.PointerToken(k), with)
		}
	case []any:
		for i := range x {
			x[i] = replaceRefs(x[i], path+"/"+strconv.Itoa(i), with)
		}
	}
	return v
}

// walkRefs calls fn for every reference in v.
func walkRefs(v any, path string, fn func(path, name string)) {
	replaceRefs(v, path, func(p, name string) any { fn(p, name); return nil })
}

// decodeJSON reads JSON keeping numbers as written (a large integer stays exact).
func decodeJSON(raw []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	return dec.Decode(v)
}

// arguments turns the arguments mapping into JSON, each {fromEnv: VAR} kept as a reference.
func arguments(n *yaml.Node) (json.RawMessage, error) {
	if n.Kind == 0 || (n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null") {
		return json.RawMessage(`{}`), nil
	}
	if n.Kind != yaml.MappingNode {
		return nil, errors.New("want a mapping of argument names to values")
	}
	v, err := value(n, true)
	if err != nil {
		return nil, err
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("not JSON: %w", err)
	}
	return raw, nil
}

// value is the JSON value of a YAML node; with refs, a mapping {fromEnv: VAR} (or
// {from-env: VAR}) is the reference {"fromEnv": "VAR"}.
func value(n *yaml.Node, refs bool) (any, error) {
	for n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	switch n.Kind {
	case yaml.MappingNode:
		if refs && len(n.Content) == 2 && (n.Content[0].Value == fromEnvKey || n.Content[0].Value == "from-env") {
			name := n.Content[1].Value
			if n.Content[1].Kind != yaml.ScalarNode || !envname.Valid(name) {
				return nil, fmt.Errorf("line %d: %s wants the name of an environment variable (letters, digits and _)", n.Line, n.Content[0].Value)
			}
			return map[string]any{fromEnvKey: name}, nil
		}
		m := map[string]any{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			v, err := value(n.Content[i+1], refs)
			if err != nil {
				return nil, err
			}
			m[n.Content[i].Value] = v
		}
		return m, nil
	case yaml.SequenceNode:
		l := []any{}
		for _, c := range n.Content {
			v, err := value(c, refs)
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

// expectation checks an expect mapping.
func expectation(x *Expect) (*Expectation, error) {
	e := &Expectation{IsError: x.IsError, TextContains: x.TextContains, Pointer: x.Pointer, Matches: x.Matches}
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
		v, err := value(&x.Equals, false)
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
