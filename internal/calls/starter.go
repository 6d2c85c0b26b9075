package calls

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/mcpwatch/mcpwatch/jsondoc"
	"github.com/mcpwatch/mcpwatch/probe"
)

// A starter calls file (prober check --write-calls) lists every tool the server lists, one
// entry each, all commented out: the prober calls no tool unasked, and the author decides
// which calls are safe to run. Its layout is what makes uncommenting simple:
//
//	calls:
//
//	  # ## Echo: Echoes the text back.
//	  # ## hints (the server's own, untrusted): readOnlyHint true
//	  # ## outputSchema: none
//	  # - tool: echo
//	  #   arguments:
//	  #     text: ""  # string: Text to return.
//	  #     # upper: false  # boolean: optional
//	  #   # invalidArguments: true  # ...
//	  #   # expect:
//	  #   #   isError: false
//
// Removing the first "# " of every line of an entry (what an editor's toggle-comment does)
// gives a call the file parses; lines that then start "##" are notes and stay comments,
// and the optional arguments, invalidArguments and expect are commented once more. As
// written, with every call commented out, the file holds "calls:" and nothing else, which
// Parse refuses with a message that says to uncomment a call.

// starterMarker is the line of an entry that names its tool, commented out: Parse looks
// for it to tell a starter file with nothing uncommented from an empty one.
const starterMarker = "# - tool:"

// errMultiline: a value the encoder did not write on one line.
var errMultiline = errors.New("a value does not fit on one line")

// ErrNoTools is wrapped by StarterFromResult when there is no tool to write a call of.
var ErrNoTools = errors.New("no tools to write calls for")

// Starter is what a starter calls file is written from.
type Starter struct {
	// Server names the server in the header ("name version" of its serverInfo; "" when
	// unknown); Revision is the protocol revision of the session.
	Server, Revision string
	// Tools are the entries of the tools/list pages, in order, one per name.
	Tools []jsondoc.Value
	// Incomplete says why tools may be missing ("" when the listing was complete); Skipped
	// counts the entries left out because they had no name.
	Incomplete string
	Skipped    int
}

// StarterFromResult reads the tools of the main connection's tools/list pages of a probe
// (every page, a tool listed twice taken once). Without a tool to write it returns an error
// wrapping ErrNoTools that says why.
func StarterFromResult(res *probe.Result) (*Starter, error) {
	handshake, kind := res.Handshake()
	if kind == probe.HandshakeNone {
		return nil, fmt.Errorf("%w: the server never answered initialize, so its tools are unknown", ErrNoTools)
	}
	if !res.Declares("tools") {
		return nil, fmt.Errorf("%w: the server declares no tools capability", ErrNoTools)
	}
	s := &Starter{Revision: res.ProtocolVersion}
	if doc, err := jsondoc.Parse(handshake); err == nil {
		info := doc.Root().Get("serverInfo")
		for _, k := range []string{"name", "version"} {
			if v := info.Get(k); v.Kind() == jsondoc.String {
				s.Server = strings.TrimSpace(s.Server + " " + v.Str())
			}
		}
	}
	seen := map[string]bool{}
	var last jsondoc.Value
	pages := 0
	for _, st := range res.Steps {
		if st.Name != probe.StepToolsList || st.Conn != probe.ConnMain {
			continue
		}
		if st.Outcome != probe.OutcomeOK {
			s.Incomplete = fmt.Sprintf("tools/list page %d failed (%s)", pages+1, st.Outcome)
			if st.Err != "" {
				s.Incomplete += ": " + st.Err
			}
			break
		}
		pages++
		doc, err := jsondoc.Parse(st.Result)
		if err != nil || doc.Root().Kind() != jsondoc.Object {
			s.Incomplete = fmt.Sprintf("tools/list page %d is not a JSON object", pages)
			break
		}
		last = doc.Root()
		for _, t := range last.Get("tools").Elements() {
			name := t.Get("name")
			if name.Kind() != jsondoc.String || name.Str() == "" {
				s.Skipped++
				continue
			}
			if !seen[name.Str()] {
				seen[name.Str()] = true
				s.Tools = append(s.Tools, t)
			}
		}
	}
	if s.Incomplete == "" {
		switch nc := last.Get("nextCursor"); {
		case pages == 0:
			msg := "tools/list was never sent"
			if res.Err != "" {
				msg += ": " + res.Err
			}
			return nil, fmt.Errorf("%w: %s", ErrNoTools, msg)
		case nc.Exists() && nc.Kind() != jsondoc.Null:
			s.Incomplete = "the last page the probe read points to a further page (the probe stops at a cursor loop or its page limit)"
		}
	}
	if len(s.Tools) == 0 {
		if s.Incomplete != "" {
			return nil, fmt.Errorf("%w: %s", ErrNoTools, s.Incomplete)
		}
		return nil, fmt.Errorf("%w: the server lists no tools", ErrNoTools)
	}
	return s, nil
}

// WriteStarter writes the starter calls file. clean is applied to every text taken from
// the server (a redactor of the run's secrets); nil leaves them as they are.
func WriteStarter(w io.Writer, s *Starter, clean func(string) string) error {
	if clean == nil {
		clean = func(s string) string { return s }
	}
	b := bufio.NewWriter(w)
	from := "the server"
	if s.Server != "" {
		from = commentText(clean(s.Server), noteRunes)
	}
	rev := ""
	if s.Revision != "" {
		rev = " (revision " + commentText(s.Revision, 40) + ")"
	}
	fmt.Fprintf(b, `# A starter calls file for prober check --calls, written by prober check --write-calls
# from the %s that %s lists%s.
#
# Every call is commented out: the prober calls no tool unasked, and a call runs the tool
# for real. To make a call, remove the first "# " of every line of its entry (an editor's
# toggle-comment does it), fill in its arguments, and run prober check --calls FILE.
# Lines that then start "##" are notes; optional arguments, invalidArguments and expect
# stay commented until you uncomment them too. Until one call is uncommented, --calls
# refuses this file: it has no call to make.
#
# Annotations (readOnlyHint, destructiveHint) are what the server says of its own tools:
# untrusted hints, not a promise that a call is safe.
`, plural(len(s.Tools), "tool", "tools"), from, rev)
	if s.Incomplete != "" {
		fmt.Fprintf(b, "#\n# The listing is incomplete, so tools may be missing: %s\n", commentText(clean(s.Incomplete), 200))
	}
	if s.Skipped > 0 {
		fmt.Fprintf(b, "#\n# %s without a name left out.\n", plural(s.Skipped, "entry of tools/list", "entries of tools/list"))
	}
	b.WriteString("calls:\n")
	for _, t := range s.Tools {
		lines, err := starterEntry(t, clean)
		if err != nil {
			return fmt.Errorf("tool %s: %w", strconv.Quote(textclipName(t)), err)
		}
		b.WriteString("\n")
		for _, l := range lines {
			b.WriteString("  # " + l + "\n")
		}
	}
	return b.Flush()
}

func textclipName(t jsondoc.Value) string { return commentText(t.Get("name").Str(), 80) }

// starterEntry is the lines of one tool's entry as YAML, before they are commented out.
func starterEntry(t jsondoc.Value, clean func(string) string) ([]string, error) {
	name := t.Get("name").Str()
	var lines []string
	note := func(s string) { lines = append(lines, "## "+s) }

	title := ""
	for _, v := range []jsondoc.Value{t.Get("title"), t.Get("annotations").Get("title")} {
		if v.Kind() == jsondoc.String && strings.TrimSpace(v.Str()) != "" {
			title = v.Str()
			break
		}
	}
	desc := ""
	if d := t.Get("description"); d.Kind() == jsondoc.String {
		desc = d.Str()
	}
	switch {
	case title != "" && desc != "":
		note(commentText(clean(title+": "+desc), noteRunes))
	case title != "" || desc != "":
		note(commentText(clean(title+desc), noteRunes))
	default:
		note(commentText(clean(name), 60) + ": no title or description")
	}
	note(hintsNote(t.Get("annotations")))
	if o := t.Get("outputSchema"); o.Exists() && o.Kind() != jsondoc.Null {
		note("outputSchema: declared; tools.structured-content checks structuredContent against it")
	} else {
		note("outputSchema: none")
	}

	tool, err := inline(scalarNode(clean(name)))
	if err != nil {
		return nil, err
	}
	lines = append(lines, "- tool: "+tool)

	input := t.Get("inputSchema")
	args, notes := starterArguments(input, clean)
	if !input.Exists() {
		notes = append([]string{"the tool lists no inputSchema"}, notes...)
	}
	if len(args) == 0 {
		for _, n := range notes {
			lines = append(lines, "  ## "+n)
		}
		lines = append(lines, "  arguments: {}")
	} else {
		lines = append(lines, "  arguments:")
		body, err := argumentLines(args, notes)
		if err != nil {
			return nil, err
		}
		for _, l := range body {
			lines = append(lines, "    "+l)
		}
	}
	lines = append(lines,
		"  # invalidArguments: true  # also send arguments that break its inputSchema: the tool must refuse them",
		"  # expect:  # what the result must be; also textContains, or pointer with equals or matches",
		"  #   isError: false")
	return lines, nil
}

// hintsNote says what the annotations hint, as the hints they are.
func hintsNote(a jsondoc.Value) string {
	var hints []string
	for _, k := range []string{"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"} {
		if v := a.Get(k); v.Kind() == jsondoc.True || v.Kind() == jsondoc.False {
			hints = append(hints, k+" "+v.Text())
		}
	}
	if len(hints) == 0 {
		return "hints: none given (when absent, readOnlyHint is false and destructiveHint true)"
	}
	return "hints (the server's own, untrusted): " + strings.Join(hints, ", ")
}

// argumentLines are the lines of a mapping of arguments, relative to its indentation:
// required ones as they are, optional ones commented out, objects built from properties
// as nested mappings.
func argumentLines(args []argument, notes []string) ([]string, error) {
	var lines []string
	for _, n := range notes {
		lines = append(lines, "## "+n)
	}
	for _, a := range args {
		prefix := ""
		if !a.required {
			prefix = "# "
		}
		key, err := inline(scalarNode(a.name))
		if err != nil {
			return nil, err
		}
		comment := ""
		if a.comment != "" {
			comment = "  # " + a.comment
		}
		if a.value != nil {
			v, err := inline(a.value)
			if err != nil {
				return nil, err
			}
			lines = append(lines, prefix+key+": "+v+comment)
			continue
		}
		sub, err := argumentLines(a.fields, a.notes)
		if err != nil {
			return nil, err
		}
		if !anyRequired(a.fields) {
			// A block mapping cannot be empty: with every field commented out, "key:" would
			// send null where the schema wants an object. {} is a valid object, and its
			// fields are shown as notes, which stay comments however often the entry is
			// uncommented.
			if a.comment == "" {
				comment = "  # "
			} else {
				comment += "; "
			}
			comment += "every field optional: to send some, write them in place of {}"
			lines = append(lines, prefix+key+": {}"+comment)
			for _, l := range sub {
				lines = append(lines, prefix+"  ## "+strings.TrimPrefix(strings.TrimPrefix(l, "#"), " "))
			}
			continue
		}
		lines = append(lines, prefix+key+":"+comment)
		for _, l := range sub {
			lines = append(lines, prefix+"  "+l)
		}
	}
	return lines, nil
}

// anyRequired says whether one of the arguments must be sent.
func anyRequired(args []argument) bool {
	for _, a := range args {
		if a.required {
			return true
		}
	}
	return false
}
