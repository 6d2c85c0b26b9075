package report

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcpwatch/mcpwatch/probe"
)

// TextOptions tune the text report.
type TextOptions struct {
	// Color uses ANSI colours (only for a terminal; the CLI decides).
	Color bool
	// Verbose appends the transcript frame by frame (Build must have had Verbose).
	Verbose bool
	// Width is the number of columns to wrap prose at (the terminal's); 0 means
	// defaultWidth, and less than minWidth is taken as minWidth.
	Width int
}

// Layout widths of the text report. Prose (titles, messages, hints, the verdict) wraps at
// the width the report is given, defaultWidth for a CI log; the bytes of frames are clipped
// to it instead, since they have no spaces to wrap at.
const (
	defaultWidth    = 100
	minWidth        = 40
	lineWidth       = 100
	idColumn        = 34
	citedPerItem    = 4
	citedRawWidth   = 110
	verboseRawWidth = 160
	stderrLines     = 20
	stderrWidth     = 160
)

// WriteText writes the report for people: what was probed, what failed and why (with the
// frames that show it), what passed, the steps with their latencies, and the verdict.
func WriteText(w io.Writer, r *Report, o TextOptions) error {
	width := o.Width
	switch {
	case width == 0:
		width = defaultWidth
	case width < minWidth:
		width = minWidth
	}
	t := textWriter{w: bufio.NewWriter(w), p: palette{on: o.Color}, r: r, verbose: o.Verbose, width: width}
	t.header()
	t.revisions()
	t.problems()
	t.advice()
	t.untested()
	t.revisionProblems()
	t.others()
	t.steps()
	t.stderr()
	if o.Verbose {
		t.transcript()
	}
	t.baselineNotes()
	t.verdict()
	if err := t.w.Flush(); err != nil {
		return fmt.Errorf("report: writing text: %w", err)
	}
	return nil
}

func textFormat() Format {
	return Format{
		Name:        "text",
		Description: "for people: failures with their evidence, the steps, the verdict",
		Write: func(w io.Writer, r *Report, o WriteOptions) error {
			return WriteText(w, r, TextOptions{Color: o.Color, Verbose: o.Verbose, Width: o.Width})
		},
	}
}

// textWriter renders one report. bufio keeps the first write error, checked at Flush.
type textWriter struct {
	w *bufio.Writer
	p palette
	r *Report
	// verbose: every list in full (see Report.Unreached).
	verbose bool
	// width is the column the report wraps prose at.
	width int
}

// para writes prose wrapped at the report's width: the first line after first, the others
// under it after indent (both plain spaces or a mark, counted as visible runes), each line
// painted by style (nil for none).
func (t *textWriter) para(first, indent, text string, style func(string) string) {
	avail := max(t.width-utf8.RuneCountInString(indent), minWidth/2)
	for i, l := range wrapWords(text, avail) {
		if style != nil {
			l = style(l)
		}
		if i == 0 {
			t.line("%s%s", first, l)
		} else {
			t.line("%s%s", indent, l)
		}
	}
}

func (t *textWriter) line(format string, args ...any) {
	fmt.Fprintf(t.w, format, args...)
	t.w.WriteByte('\n')
}

func (t *textWriter) section(title string) {
	t.line("")
	t.para("", "", title, t.p.bold)
}

// idLine writes a check id and its message: in a column when the width leaves the message
// room beside it, else the message under the id.
func (t *textWriter) idLine(id string, idStyle func(string) string, msg string, msgStyle func(string) string) {
	column := "  " + pad("", idColumn) + " "
	if t.width-len(column) < minWidth {
		t.line("  %s", idStyle(id))
		t.para("      ", "      ", msg, msgStyle)
		return
	}
	t.para("  "+idStyle(pad(id, idColumn))+" ", column, msg, msgStyle)
}

func (t *textWriter) header() {
	r := t.r
	name := r.Generator.Name
	if name == "" {
		name = "mcpwatch"
	}
	t.line("%s", t.p.bold("MCP conformance report")+t.p.dim(" · "+strings.TrimSpace(name+" "+r.Generator.Version)))
	field := func(k, v string) { t.line("  %s %s", t.p.dim(pad(k, 10)), v) }
	field("target", clip(r.Target, lineWidth-13))
	field("transport", r.Transport)
	revision := "none negotiated"
	if r.ProtocolVersion != nil {
		revision = clip(*r.ProtocolVersion, 40)
	}
	if r.RequestedVersion != "" {
		revision += t.p.dim(" (requested " + r.RequestedVersion + ")")
	}
	if r.ProtocolVersion != nil && r.EvaluatedVersion != *r.ProtocolVersion {
		revision += t.p.dim(", checked as " + r.EvaluatedVersion)
	}
	field("revision", revision)
	if name, version := r.ServerName(); name != "" || version != "" {
		field("server", clip(strings.TrimSpace(name+" "+version), lineWidth-13))
	}
	if p, ok := t.mainProcess(); ok {
		field("process", processSummary(p))
	}
	field("duration", humanMillis(r.DurationMs))
	if r.Error != "" {
		t.line("")
		t.para("  "+t.p.red("probe error:")+" ", "  "+pad("", len("probe error: ")), clip(r.Error, 400), nil)
	}
}

func (t *textWriter) mainProcess() (Process, bool) {
	for _, p := range t.r.Processes {
		if p.Conn == probe.ConnMain {
			return p, true
		}
	}
	return Process{}, false
}

func processSummary(p Process) string {
	var parts []string
	if p.PID != 0 {
		parts = append(parts, "pid "+strconv.Itoa(p.PID))
	}
	switch {
	case !p.Started && p.Error != "":
		parts = append(parts, "not started: "+clip(p.Error, 200))
	case !p.Started:
		parts = append(parts, "not started")
	case !p.Exited:
		parts = append(parts, "running when the probe ended")
	case p.Signal != "":
		parts = append(parts, "killed by "+p.Signal)
	default:
		parts = append(parts, "exit "+strconv.Itoa(*p.ExitCode))
	}
	if p.EndedBy != "" {
		s := "ended by " + p.EndedBy
		if p.ShutdownAfterMs != nil {
			s += " after " + humanMillis(*p.ShutdownAfterMs)
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " · ")
}

func (t *textWriter) verdict() {
	r := t.r
	t.line("")
	t.line("%s", t.p.dim(strings.Repeat("─", 60)))
	parts := r.countParts()
	colour := map[string]func(string) string{"failed": t.p.red, "warned": t.p.yellow, "passed": t.p.green}
	for i, part := range parts {
		word := part[strings.IndexByte(part, ' ')+1:]
		if paint, ok := colour[word]; ok && !strings.HasPrefix(part, "0 ") {
			parts[i] = paint(part)
		}
	}
	t.line("%s  %s", strings.Join(parts, " · "), t.p.dim(fmt.Sprintf("(%s, fail on %s)", plural(r.Summary.Total, "check", "checks"), r.FailOn)))
	word := r.verdictWord()
	switch word {
	case "PASS":
		word = t.p.green(word)
	case "FAIL":
		word = t.p.red(word)
	default:
		word = t.p.yellow(word)
	}
	t.para(word+" ", "     ", r.verdictSentence(), nil)
}
