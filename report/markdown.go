package report

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpwatch/mcpwatch/checks"
)

// The markdown format is a pull request comment (or a job summary): the verdict, a table of
// failures and warnings with links to the rules, a table of advice, the checks the probe
// could not judge, then collapsed sections with the evidence, the passes, the skips and the
// steps.
//
// A comment is limited to 65536 characters; sections are added in the order they are shown
// while they fit in maxMarkdownBytes (bytes, which are never fewer than characters), row by
// row, and what does not fit is counted instead of shown.
//
// Everything a server controls (messages, evidence, step errors) is shown in code spans or
// fenced blocks, where markdown, HTML, links and @mentions are not interpreted.

const (
	maxMarkdownBytes = 60000
	// markdownReserve is kept for the lines that say what was left out, and the footer.
	markdownReserve   = 600
	markdownCellWidth = 300
)

// WriteMarkdown writes the report as GitHub-flavoured markdown of bounded size.
func WriteMarkdown(w io.Writer, r *Report) error {
	m := &markdownWriter{r: r, limit: maxMarkdownBytes - markdownReserve}
	m.header()
	m.problems()
	m.advice()
	m.untested()
	m.revisions()
	m.stale()
	m.evidence()
	m.passed()
	m.skipped()
	m.steps()
	m.footer()
	if _, err := io.WriteString(w, m.b.String()); err != nil {
		return fmt.Errorf("report: writing markdown: %w", err)
	}
	return nil
}

func markdownFormat() Format {
	return Format{
		Name:        "markdown",
		Description: "a pull request comment or job summary",
		Write:       func(w io.Writer, r *Report, _ WriteOptions) error { return WriteMarkdown(w, r) },
	}
}

type markdownWriter struct {
	r     *Report
	b     strings.Builder
	limit int
	// left counts what did not fit, by what it is ("failures", "steps" ...).
	left []string
}

// add appends s when it fits the budget.
func (m *markdownWriter) add(s string) bool {
	if m.b.Len()+len(s) > m.limit {
		return false
	}
	m.b.WriteString(s)
	return true
}

// must appends s whatever the budget (the header and the closing lines are small and bounded).
func (m *markdownWriter) must(s string) { m.b.WriteString(s) }

// header is the verdict line first (what a reader of a pull request wants before anything),
// then what was probed, then the counts.
func (m *markdownWriter) header() {
	r := m.r
	icon := "✅"
	if r.Failed() {
		icon = "❌"
	}
	m.must(fmt.Sprintf("### %s %s: %s\n\n", icon, r.verdictWord(), markdownText(r.verdictSentence())))
	facts := []string{"MCP conformance of " + mdCode(r.Target, 200), r.Transport}
	revision := "no revision negotiated"
	if r.ProtocolVersion != nil {
		revision = "revision " + mdCode(*r.ProtocolVersion, 40)
	}
	if r.RequestedVersion != "" {
		revision += " (requested " + r.RequestedVersion + ")"
	}
	facts = append(facts, revision)
	if name, version := r.ServerName(); name != "" || version != "" {
		facts = append(facts, "server "+mdCode(strings.TrimSpace(name+" "+version), 120))
	}
	facts = append(facts, humanMillis(r.DurationMs))
	m.must(strings.Join(facts, " · ") + "\n\n")
	parts := r.countParts()
	if n := r.shownCounts(); n.failed > 0 {
		parts[1] = "**" + parts[1] + "**"
	}
	counts := strings.Join(parts, ", ")
	if revs := r.FailingRevisions(); len(revs) > 0 {
		counts += " · **failing under " + strings.Join(revs, ", ") + "**"
	}
	m.must(counts + " · fails on " + r.FailOn + "\n\n")
	if r.Error != "" {
		m.must("**The probe did not finish:** " + mdCode(r.Error, 400) + "\n\n")
	}
}

func (m *markdownWriter) problems() {
	var rows []Check
	for _, c := range m.r.Checks {
		if (c.Status == string(checks.StatusFail) || c.Status == string(checks.StatusWarn)) && !c.advice() {
			rows = append(rows, c)
		}
	}
	if len(rows) == 0 {
		return
	}
	ordered := m.r.byVerdictRank(rows)
	// The table may take half of what is left, so that the evidence of the first failures
	// still shows when there are hundreds of them.
	full := m.limit
	m.limit = m.b.Len() + (m.limit-m.b.Len())/2
	defer func() { m.limit = full }()
	head := "| | Check | Severity | What happened | Rule |\n|---|---|---|---|---|\n"
	if !m.add(head + m.problemRow(ordered[0])) {
		m.left = append(m.left, plural(len(ordered), "failure or warning", "failures and warnings"))
		return
	}
	for i, c := range ordered[1:] {
		if !m.add(m.problemRow(c)) {
			m.left = append(m.left, plural(len(ordered)-1-i, "row of failures and warnings", "rows of failures and warnings"))
			break
		}
	}
	m.must("\n")
}

func (m *markdownWriter) problemRow(c Check) string {
	icon := "⚠️"
	switch {
	case c.Baselined:
		icon = "☑️"
	case c.Status == string(checks.StatusFail):
		icon = "❌"
	}
	sev := ""
	if c.Severity != nil {
		sev = *c.Severity
	}
	id := "`" + c.ID + "`"
	if c.Baselined {
		id += "<br>" + markdownText(acceptedText(c))
	}
	happened := mdCode(c.Message, markdownCellWidth)
	if c.Hint != "" {
		happened += "<br>hint: " + markdownText(clip(c.Hint, markdownCellWidth))
	}
	return fmt.Sprintf("| %s | %s | %s | %s | %s |\n", icon, id, sev, happened, ruleLink(c))
}

// byVerdictRank orders checks as the table of failures shows them: those that fail the
// verdict first, then warnings, then what the baseline accepts, each in catalogue order.
func (r *Report) byVerdictRank(cs []Check) []Check {
	rank := func(c Check) int {
		switch {
		case r.failsVerdict(c):
			return 0
		case c.Baselined:
			return 2
		}
		return 1
	}
	out := slices.Clone(cs)
	slices.SortStableFunc(out, func(a, b Check) int { return rank(a) - rank(b) })
	return out
}

// ruleLink links the rule letters to the specification section.
func ruleLink(c Check) string {
	label := c.Rule
	if doc := checks.ExternalSpec(c.Spec); doc != "" {
		label = doc
	} else if label == "" {
		label = "spec"
	}
	if c.Spec == "" {
		if c.Rule == "" {
			return ""
		}
		return markdownText(c.Rule)
	}
	dest := strings.NewReplacer(" ", "%20", "(", "%28", ")", "%29", "<", "%3C", ">", "%3E").Replace(c.Spec)
	return "[" + markdownText(label) + "](" + dest + ")"
}

func (m *markdownWriter) stale() {
	u := m.r.Baseline
	if u == nil || len(u.Stale) == 0 {
		return
	}
	for i, e := range u.Stale {
		if !m.add("> ⚠️ " + mdCode(staleEntryText(u.File, e), 300) + "\n") {
			m.left = append(m.left, plural(len(u.Stale)-i, "stale baseline entry", "stale baseline entries"))
			break
		}
	}
	m.must("\n")
}

// evidence gives each failure and warning a collapsible block of its own, in the order of
// the table, so that a reader opens the one they care about.
func (m *markdownWriter) evidence() {
	var cs []Check
	for _, c := range m.r.Checks {
		if (c.Status == string(checks.StatusFail) || c.Status == string(checks.StatusWarn)) && (len(c.Evidence) > 0 || c.Title != "") {
			cs = append(cs, c)
		}
	}
	if len(cs) == 0 {
		return
	}
	cs = m.r.byVerdictRank(cs)
	m.section("", "", len(cs), "the evidence of", "check", "checks", func(i int) string {
		c := cs[i]
		summary := "<code>" + c.ID + "</code> " + markdownText(c.Status)
		if c.Baselined {
			summary += ", accepted by the baseline"
		}
		block := "<details><summary>Evidence of " + summary + "</summary>\n\n"
		if c.Title != "" {
			block += markdownText(clip(c.Title, 200)) + "\n\n"
		}
		return block + fenced(strings.Join(evidenceLines(m.r, c), "\n")) + "\n</details>\n\n"
	})
}

func (m *markdownWriter) passed() {
	var ids []string
	for _, c := range m.r.Checks {
		if c.Status == string(checks.StatusPass) {
			ids = append(ids, "`"+c.ID+"`")
		}
	}
	if len(ids) == 0 {
		return
	}
	section := fmt.Sprintf("<details><summary>Passed (%d)</summary>\n\n%s\n\n</details>\n\n", len(ids), strings.Join(ids, ", "))
	if !m.add(section) {
		m.left = append(m.left, "the list of passed checks")
	}
}

func (m *markdownWriter) skipped() {
	var cs []Check
	for _, c := range m.r.Checks {
		if c.Status == string(checks.StatusSkip) || c.Status == string(checks.StatusInfo) {
			cs = append(cs, c)
		}
	}
	if len(cs) == 0 {
		return
	}
	open := fmt.Sprintf("<details><summary>Skipped and facts (%d)</summary>\n\n| Check | Status | Why / what |\n|---|---|---|\n", len(cs))
	m.section(open, "\n</details>\n\n", len(cs), "", "skipped check or fact", "skipped checks and facts", func(i int) string {
		c := cs[i]
		return fmt.Sprintf("| `%s` | %s | %s |\n", c.ID, c.Status, mdCode(c.Message, markdownCellWidth))
	})
}

func (m *markdownWriter) steps() {
	st := m.r.Steps
	if len(st) == 0 {
		return
	}
	open := fmt.Sprintf("<details><summary>Steps (%d)</summary>\n\n| Conn | Method | Latency | Outcome | Code |\n|---|---|---|---|---|\n", len(st))
	m.section(open, "\n</details>\n\n", len(st), "", "step", "steps", func(i int) string {
		s := st[i]
		method := mdCode(s.Method, 80)
		if s.Name != s.Method && s.Name != "" {
			method += " (" + markdownText(s.Name) + ")"
		}
		if s.Page > 1 {
			method += " page " + strconv.Itoa(s.Page)
		}
		latency := "–"
		if s.LatencyMs != nil {
			latency = humanMillis(*s.LatencyMs)
		}
		return fmt.Sprintf("| %d | %s | %s | %s | %s |\n", s.Conn, method, latency, markdownText(s.Outcome), mdCode(stepCode(s), 200))
	})
}

// section writes a collapsed section item by item while the items fit; it is left out
// whole unless its first item fits, and what is left out is counted as "<lead> N <items>".
func (m *markdownWriter) section(open, closing string, n int, lead, one, many string, item func(i int) string) {
	m.limit -= len(closing)
	defer func() { m.limit += len(closing) }()
	leftOut := func(k int) {
		m.left = append(m.left, strings.TrimSpace(lead+" "+plural(k, one, many)))
	}
	if !m.add(open + item(0)) {
		leftOut(n)
		return
	}
	for i := 1; i < n; i++ {
		if !m.add(item(i)) {
			leftOut(n - i)
			break
		}
	}
	m.must(closing)
}

func (m *markdownWriter) footer() {
	if len(m.left) > 0 {
		m.must("_Left out to stay under GitHub's comment size limit: " + strings.Join(m.left, ", ") +
			". The json format has everything._\n\n")
	}
	name := strings.TrimSpace(m.r.Generator.Name + " " + m.r.Generator.Version)
	if name == "" {
		name = "mcpwatch"
	}
	m.must("<sub>" + markdownText(name) + "</sub>\n")
}

// mdCode shows text as a code span that is safe in a table cell: printable, clipped, its
// pipes escaped (GFM splits cells at a pipe even inside code), and fenced with more
// backticks than it holds.
func mdCode(s string, width int) string {
	s = clip(s, width)
	if s == "" {
		return ""
	}
	s = strings.ReplaceAll(s, "|", `\|`)
	fence := strings.Repeat("`", longestRun(s, '`')+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") || strings.HasPrefix(s, " ") && strings.HasSuffix(s, " ") {
		s = " " + s + " "
	}
	return fence + s + fence
}

// fenced is a fenced code block with a fence longer than any backtick run inside.
func fenced(s string) string {
	fence := strings.Repeat("`", max(3, longestRun(s, '`')+1))
	return fence + "text\n" + s + "\n" + fence + "\n"
}

func longestRun(s string, c byte) int {
	best, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			run++
			best = max(best, run)
		} else {
			run = 0
		}
	}
	return best
}

// markdownText escapes text of ours for markdown: every character that could start
// emphasis, a link, HTML, a table cell or an entity is escaped with a backslash.
func markdownText(s string) string {
	s = printable(s)
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune("\\`*_{}[]<>()#+!|~&", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// revisions writes the per-revision table of a --protocol-version all run and the evidence
// of what fails or warns only under accepted revisions other than the main one.
func (m *markdownWriter) revisions() {
	revs := m.r.Revisions
	if len(revs) == 0 {
		return
	}
	table := "| Revision | Accepted | Verdict | Failed | Warned | Differs from the main revision |\n|---|---|---|---|---|---|\n"
	for _, rev := range revs {
		accepted := "no"
		if rev.Accepted {
			accepted = "yes"
		}
		var differs []string
		for _, c := range rev.Differences {
			differs = append(differs, "`"+c.ID+"` "+c.Status)
		}
		note := strings.Join(differs, ", ")
		if rev.Main {
			note = "the main revision: the checks above"
		}
		table += fmt.Sprintf("| %s | %s | %s | %d | %d | %s |\n", rev.Revision, accepted, rev.Verdict,
			rev.Summary.Fail, rev.Summary.Warn, note)
	}
	if !m.add("**Revisions**\n\n" + table + "\n") {
		m.left = append(m.left, "the table of revisions")
		return
	}
	ps := m.r.revisionProblems()
	if len(ps) == 0 {
		return
	}
	open := fmt.Sprintf("<details><summary>Only in other accepted revisions (%s)</summary>\n\n", plural(len(ps), "check", "checks"))
	m.section(open, "</details>\n\n", len(ps), "the evidence of", "revision-only check", "revision-only checks", func(i int) string {
		p := ps[i]
		frames := &Report{CitedFrames: p.frames}
		return "**`" + p.check.ID + "`** under " + strings.Join(p.revisions, ", ") + "\n\n" +
			fenced(strings.Join(evidenceLines(frames, p.check), "\n")) + "\n"
	})
}
