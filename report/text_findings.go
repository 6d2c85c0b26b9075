package report

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcpwatch/mcpwatch/checks"
)

// problems lists failures and warnings grouped by area: areas with a failure first, and in
// each area failures before warnings, in catalogue order. Advice has its own section.
func (t *textWriter) problems() {
	type area struct {
		name   string
		failed bool
		checks []Check
	}
	var areas []*area
	byName := map[string]*area{}
	for _, c := range t.r.Checks {
		if c.Status != string(checks.StatusFail) && c.Status != string(checks.StatusWarn) || c.advice() {
			continue
		}
		a := byName[c.Area]
		if a == nil {
			a = &area{name: c.Area}
			byName[c.Area] = a
			areas = append(areas, a)
		}
		a.checks = append(a.checks, c)
		a.failed = a.failed || c.Status == string(checks.StatusFail)
	}
	if len(areas) == 0 {
		return
	}
	slices.SortStableFunc(areas, func(a, b *area) int { return boolRank(a.failed) - boolRank(b.failed) })
	n := t.r.shownCounts()
	title := fmt.Sprintf("Failures and warnings (%d failed, %d warned", n.failed, n.warned)
	if n.accepted > 0 {
		title += fmt.Sprintf(", %d accepted by the baseline", n.accepted)
	}
	t.section(title + ")")
	for _, a := range areas {
		slices.SortStableFunc(a.checks, func(x, y Check) int {
			return boolRank(x.Status == string(checks.StatusFail)) - boolRank(y.Status == string(checks.StatusFail))
		})
		name := a.name
		if name == "" {
			name = "other"
		}
		t.line("")
		t.line("%s", t.p.cyan(name))
		for _, c := range a.checks {
			t.problem(c)
		}
	}
}

func boolRank(first bool) int {
	if first {
		return 0
	}
	return 1
}

func (t *textWriter) problem(c Check) {
	meta := []string{}
	if c.Severity != nil {
		meta = append(meta, *c.Severity)
	}
	if c.Rule != "" {
		meta = append(meta, "rule "+c.Rule)
	}
	if c.Baselined {
		meta = append(meta, acceptedText(c))
	}
	const indent = "       "
	head := "  " + t.p.status(c.Status) + " " + t.p.bold(c.ID) + "  "
	if 2+5+len(c.ID)+2+utf8.RuneCountInString(strings.Join(meta, " · ")) > t.width {
		t.line("%s", strings.TrimRight(head, " "))
		head = indent
	}
	t.para(head, indent, strings.Join(meta, " · "), t.p.dim)
	if c.Title != "" {
		t.para(indent, indent, clip(c.Title, 600), t.p.dim)
	}
	if len(c.Evidence) == 0 {
		t.para(indent, indent, clip(c.Message, 600), nil)
	}
	// Many violations can point at one frame (every badly named tool of one tools/list
	// page): its bytes are shown once, at the first, and only referred to afterwards.
	shown := map[int]bool{}
	for _, e := range c.Evidence {
		mark := t.p.red("✗")
		switch e.Severity {
		case string(checks.SeverityWarning):
			mark = t.p.yellow("!")
		case string(checks.SeverityAdvice):
			mark = t.p.cyan("›")
		case "":
			mark = t.p.dim("·")
		}
		msg := clip(e.Message, 600)
		if e.Tool != "" {
			msg = "tool " + clip(e.Tool, 80) + ": " + msg
		}
		if len(e.Frames) > 0 {
			msg += " " + frameRefs(e.Frames)
		}
		t.para(indent+mark+" ", indent+"  ", msg, nil)
		t.cited(indent+"    ", c.ID, e.Frames, shown)
	}
	if c.MoreEvidence > 0 {
		t.para(indent, indent, fmt.Sprintf("… and %s not shown", plural(c.MoreEvidence, "more occurrence", "more occurrences")), t.p.dim)
	}
	if c.Spec != "" {
		t.para(indent, indent+"      ", "spec: "+specText(c.Spec), t.p.dim)
	}
	if c.Hint != "" {
		t.para(indent, indent+"      ", "hint: "+clip(c.Hint, plainMessageWidth), nil)
	}
}

func frameRefs(seqs []int) string {
	refs := make([]string, 0, len(seqs))
	for _, s := range seqs {
		refs = append(refs, "#"+strconv.Itoa(s))
	}
	label := "frame "
	if len(seqs) > 1 {
		label = "frames "
	}
	return "[" + label + strings.Join(refs, " ") + "]"
}

// cited shows the first frames an evidence line points at, so that a reader sees the bytes
// without asking for the whole transcript. Frames in already (shown for an earlier line of
// the same finding) are skipped; the ones shown here are added to it.
func (t *textWriter) cited(indent, id string, seqs []int, already map[int]bool) {
	shown := 0
	for i, seq := range seqs {
		if already[seq] {
			continue
		}
		f, ok := t.r.Frame(seq)
		if !ok {
			continue
		}
		if shown == citedPerItem {
			t.line("%s%s", indent, t.p.dim(fmt.Sprintf("… %d more frames", len(seqs)-i)))
			return
		}
		t.citedFrame(indent, f)
		if h := headerEvidence(id, f); h != "" {
			t.para(indent+frameHeaderIndent, indent+frameHeaderIndent+"  ", h, nil)
		}
		already[seq] = true
		shown++
	}
}

// others is the compact part: passes on a few lines, facts and skips one per line.
func (t *textWriter) others() {
	var passed []string
	var infos, skips []Check
	for _, c := range t.r.Checks {
		switch checks.Status(c.Status) {
		case checks.StatusPass:
			passed = append(passed, c.ID)
		case checks.StatusInfo:
			infos = append(infos, c)
		case checks.StatusSkip:
			skips = append(skips, c)
		}
	}
	if len(passed) > 0 {
		t.section(fmt.Sprintf("Passed (%d)", len(passed)))
		t.wrapped("  ", passed)
	}
	if len(infos) > 0 {
		t.section(fmt.Sprintf("Facts (%d)", len(infos)))
		for _, c := range infos {
			t.idLine(c.ID, plain, clip(c.Message, lineWidth+40), nil)
		}
	}
	if len(skips) > 0 {
		t.section(fmt.Sprintf("Skipped (%d)", len(skips)))
		if t.r.Unreached && !t.verbose {
			t.line("  %s", t.p.dim(fmt.Sprintf("%d checks that do not apply to this transport or to what the server would have answered; --verbose lists them", len(skips))))
			return
		}
		for _, c := range skips {
			t.idLine(c.ID, t.p.dim, clip(c.Message, lineWidth+40), t.p.dim)
		}
	}
}

// wrapped prints words separated by commas, wrapped at the line width.
func (t *textWriter) wrapped(indent string, words []string) {
	var b strings.Builder
	b.WriteString(indent)
	width := len(indent)
	for i, w := range words {
		item := w
		if i < len(words)-1 {
			item += ","
		}
		if width > len(indent) && width+1+len(item) > t.width {
			t.line("%s", t.p.green(b.String()))
			b.Reset()
			b.WriteString(indent)
			width = len(indent)
		}
		if width > len(indent) {
			b.WriteByte(' ')
			width++
		}
		b.WriteString(item)
		width += len(item)
	}
	t.line("%s", t.p.green(b.String()))
}
