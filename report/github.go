package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/mcpwatch/mcpwatch/checks"
)

// The github format is GitHub Actions workflow commands: one annotation per check that
// fails or warns, then the summary in a collapsed group of the log.
//
// An annotation's level follows the verdict: error for a check that fails it, warning for a
// warning below --fail-on, notice for advice below it and for a failure the baseline accepts.
// The checks the probe could not judge (untested) share one notice that names them all.
// GitHub shows at most ten error and ten warning annotations of a step, so the tenth of a
// level rolls up the rest.
//
// Everything a server controls passes through the escaping of workflow commands (a newline
// in data is %0A, so no server text can start a line of its own and issue a command), and
// every summary line starts with text of ours for the same reason.

// githubAnnotationsPerLevel is GitHub's limit of annotations of one level per step.
const githubAnnotationsPerLevel = 10

// WriteGitHub writes the report as GitHub Actions workflow commands.
func WriteGitHub(w io.Writer, r *Report) error {
	bw := bufio.NewWriter(w)
	byLevel := map[string][]Check{}
	for _, c := range r.Checks {
		if level := githubLevel(r, c); level != "" {
			byLevel[level] = append(byLevel[level], c)
		}
	}
	// Annotations of ours that are not about one check take their place in the budget.
	reserved := map[string]int{}
	if r.Error != "" {
		writeCommand(bw, "error", map[string]string{"title": "mcpwatch: the probe did not finish"},
			"The probe of "+clip(r.Target, 200)+" did not finish: "+clip(r.Error, plainMessageWidth))
		reserved["error"]++
	}
	if untested := untestedChecks(r); len(untested) > 0 {
		writeCommand(bw, "notice", map[string]string{"title": fmt.Sprintf("mcpwatch: %s", plural(len(untested), "check untested", "checks untested"))},
			untestedText(untested))
		reserved["notice"]++
	}
	if r.Baseline != nil && len(r.Baseline.Stale) > 0 {
		lines := []string{"These baseline entries no longer match a failure; left in place, they would accept it again unnoticed:"}
		for _, e := range r.Baseline.Stale {
			lines = append(lines, staleEntryText(r.Baseline.File, e))
		}
		writeCommand(bw, "warning", map[string]string{"title": "mcpwatch: stale baseline entries"}, strings.Join(lines, "\n"))
		reserved["warning"]++
	}
	// What fails the verdict only under other accepted revisions gets an annotation each,
	// with that revision's evidence.
	for _, p := range r.revisionProblems() {
		if !r.failsVerdict(p.check) {
			continue
		}
		under := strings.Join(p.revisions, ", ")
		lines := []string{"Fails under " + under + ", which the server also accepts: " + clip(p.check.Message, plainMessageWidth)}
		lines = append(lines, evidenceLines(&Report{CitedFrames: p.frames}, p.check)...)
		writeCommand(bw, "error", map[string]string{"title": githubTitle(p.check) + " under " + under}, strings.Join(lines, "\n"))
		reserved["error"]++
	}
	for _, level := range []string{"error", "warning", "notice"} {
		cs := byLevel[level]
		limit := githubAnnotationsPerLevel - reserved[level]
		for i, c := range cs {
			if i == limit-1 && len(cs) > limit {
				writeCommand(bw, level, map[string]string{"title": fmt.Sprintf("mcpwatch: %d more", len(cs)-i)},
					rollUp(cs[i:]))
				break
			}
			writeCommand(bw, level, map[string]string{"title": githubTitle(c)}, githubMessage(r, c))
		}
	}
	githubSummary(bw, r)
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("report: writing github: %w", err)
	}
	return nil
}

func githubFormat() Format {
	return Format{
		Name:        "github",
		Description: "GitHub Actions annotations and a log group",
		Write:       func(w io.Writer, r *Report, _ WriteOptions) error { return WriteGitHub(w, r) },
	}
}

// githubLevel is the annotation level of a check, "" for none.
func githubLevel(r *Report, c Check) string {
	switch {
	case c.Baselined:
		return "notice"
	case r.failsVerdict(c):
		return "error"
	case c.advice():
		return "notice"
	case c.Status == string(checks.StatusWarn):
		return "warning"
	case c.Status == string(checks.StatusFail):
		return "error"
	}
	return ""
}

func githubTitle(c Check) string {
	title := "mcpwatch " + c.ID
	if c.Rule != "" {
		title += " (rule " + c.Rule + ")"
	}
	if c.Baselined {
		title += " baselined"
	}
	return title
}

func githubMessage(r *Report, c Check) string {
	var lines []string
	if c.Title != "" {
		lines = append(lines, clip(c.Title, plainMessageWidth)+".")
	}
	if c.Baselined {
		lines = append(lines, "This check is "+acceptedText(c)+".")
	}
	lines = append(lines, evidenceLines(r, c)...)
	return strings.Join(lines, "\n")
}

// untestedText names the untested checks with why, for one annotation.
func untestedText(cs []Check) string {
	lines := []string{"These checks apply to the server, but the probe could not judge them (none counts as a pass):"}
	for _, c := range cs {
		lines = append(lines, c.ID+": "+clip(c.Message, 200))
	}
	return strings.Join(lines, "\n")
}

func rollUp(cs []Check) string {
	lines := []string{"GitHub shows ten annotations of a level; these checks also fail (see the log group or another format for their evidence):"}
	for _, c := range cs {
		lines = append(lines, c.ID+": "+clip(c.Message, 200))
	}
	return strings.Join(lines, "\n")
}

// githubSummary writes the verdict and one line per check in a collapsed log group.
func githubSummary(w *bufio.Writer, r *Report) {
	verdict := r.verdictWord()
	counts := strings.Join(r.countParts(), ", ")
	if revs := r.FailingRevisions(); len(revs) > 0 {
		counts += "; failing under " + strings.Join(revs, ", ")
	}
	fmt.Fprintf(w, "::group::%s\n", escapeData(fmt.Sprintf("mcpwatch: %s %s (%s)", verdict, clip(r.Target, 120), counts)))
	field := func(k, v string) { fmt.Fprintf(w, "%-10s %s\n", k, v) }
	field("target", clip(r.Target, 200))
	field("transport", r.Transport)
	revision := "none negotiated"
	if r.ProtocolVersion != nil {
		revision = clip(*r.ProtocolVersion, 40)
	}
	field("revision", revision+" (requested "+r.RequestedVersion+")")
	if name, version := r.ServerName(); name != "" || version != "" {
		field("server", clip(strings.TrimSpace(name+" "+version), 200))
	}
	field("duration", humanMillis(r.DurationMs))
	for _, c := range r.Checks {
		mark := strings.ToUpper(c.Status)
		if c.advice() {
			mark = "ADVICE"
		}
		if c.Baselined {
			mark += " (accepted)"
		}
		fmt.Fprintf(w, "check      %-16s %-34s %s\n", mark, c.ID, clip(c.Message, 200))
	}
	if r.Baseline != nil {
		for _, e := range r.Baseline.Stale {
			fmt.Fprintf(w, "warning    %s\n", staleEntryText(r.Baseline.File, e))
		}
	}
	fmt.Fprintf(w, "verdict    %s %s\n", verdict, r.verdictSentence())
	fmt.Fprintln(w, "::endgroup::")
}

// writeCommand writes one workflow command: ::name key=value,...::data.
func writeCommand(w *bufio.Writer, name string, props map[string]string, data string) {
	w.WriteString("::" + name)
	sep := " "
	for _, k := range []string{"file", "line", "title"} {
		if v, ok := props[k]; ok {
			w.WriteString(sep + k + "=" + escapeProperty(v))
			sep = ","
		}
	}
	w.WriteString("::" + escapeData(data) + "\n")
}

// escapeData escapes the data of a workflow command: %, CR and LF.
func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// escapeProperty escapes a property value: the data escapes, and : and , which end it.
func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}
