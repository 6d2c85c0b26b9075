package web

import (
	"net/http"
	"slices"
	"strconv"

	"github.com/mcpwatch/mcpwatch/checks"
	"github.com/mcpwatch/mcpwatch/internal/textclip"
	"github.com/mcpwatch/mcpwatch/report"
	"github.com/mcpwatch/mcpwatch/store"
)

// findingsView is the verdict of a server's latest run, grouped by area as the text report
// groups it: areas with a failure first, failures before warnings.
type findingsView struct {
	RunHref string
	RunAt   string
	Ago     string
	Region  string
	// Rebuilt says the findings come with the evidence of the stored recording; otherwise
	// they are the verdicts stored with the run, without it.
	Rebuilt  bool
	Problems []areaView
	// Untested are the checks that applied but that the run could not judge: neither passed
	// nor skipped, so shown apart from both.
	Untested []checkView
	Passed   []string
	Others   []checkView // skipped and facts
	Empty    string
}

type areaView struct {
	Name   string
	Checks []checkView
}

type checkView struct {
	ID, Status, Severity, Title, Message, Rule, Spec string
	Evidence                                         []evidenceView
	More                                             int
}

type evidenceView struct {
	Severity string
	Message  string
	Tool     string
	Frames   []frameLink
}

type frameLink struct {
	Seq  int
	Href string
}

// maxEvidenceShown bounds the evidence lines a finding shows on the server page; the run page
// has them all.
const maxEvidenceShown = 8

func (d *dashboard) findingsOf(r *http.Request, latest *store.RunRecord, a *analysis) (findingsView, error) {
	var v findingsView
	if latest == nil {
		v.Empty = "No run yet."
		return v, nil
	}
	v.RunHref, v.RunAt, v.Region = runHref(latest.ID), formatTime(latest.Start), latest.Region
	v.Ago = formatAgo(latest.Start, d.now())
	var cs []checkView
	if a != nil {
		v.Rebuilt = true
		for _, c := range a.report.Checks {
			cs = append(cs, d.checkFromReport(c, v.RunHref))
		}
	} else {
		run, err := d.store.Run(r.Context(), latest.ID)
		if err != nil {
			return v, err
		}
		for _, f := range run.Findings {
			cs = append(cs, d.checkFromStore(f))
		}
	}
	if len(cs) == 0 {
		v.Empty = "The latest run recorded no findings."
		return v, nil
	}
	type group struct {
		area   areaView
		failed bool
	}
	var groups []*group
	byArea := map[string]*group{}
	for _, c := range cs {
		switch c.Status {
		case string(checks.StatusFail), string(checks.StatusWarn):
			area := areaOf(d.checks, c.ID)
			g := byArea[area]
			if g == nil {
				g = &group{area: areaView{Name: area}}
				byArea[area] = g
				groups = append(groups, g)
			}
			g.area.Checks = append(g.area.Checks, c)
			g.failed = g.failed || c.Status == string(checks.StatusFail)
		case string(checks.StatusPass):
			v.Passed = append(v.Passed, c.ID)
		case string(checks.StatusUntested):
			v.Untested = append(v.Untested, c)
		default:
			v.Others = append(v.Others, c)
		}
	}
	slices.SortStableFunc(groups, func(a, b *group) int { return rankFirst(a.failed) - rankFirst(b.failed) })
	for _, g := range groups {
		slices.SortStableFunc(g.area.Checks, func(a, b checkView) int {
			return rankFirst(a.Status == string(checks.StatusFail)) - rankFirst(b.Status == string(checks.StatusFail))
		})
		v.Problems = append(v.Problems, g.area)
	}
	return v, nil
}

func rankFirst(first bool) int {
	if first {
		return 0
	}
	return 1
}

// areaOf names the area of a check from the catalogue ("other" for an unknown id).
func areaOf(reg *checks.Registry, id string) string {
	if c, ok := reg.Lookup(id); ok && c.Area != "" {
		return c.Area
	}
	return "other"
}

func (d *dashboard) checkFromReport(c report.Check, runHref string) checkView {
	v := checkView{ID: c.ID, Status: c.Status, Title: c.Title, Message: textclip.Runes(c.Message, 600), Rule: c.Rule, Spec: c.Spec, More: c.MoreEvidence}
	if c.Severity != nil {
		v.Severity = *c.Severity
	}
	for i, e := range c.Evidence {
		if i == maxEvidenceShown {
			v.More += len(c.Evidence) - i
			break
		}
		ev := evidenceView{Severity: e.Severity, Message: textclip.Runes(e.Message, 400), Tool: textclip.Runes(e.Tool, 80)}
		for _, seq := range e.Frames {
			ev.Frames = append(ev.Frames, frameLink{Seq: seq, Href: runHref + "#frame-" + strconv.Itoa(seq)})
		}
		v.Evidence = append(v.Evidence, ev)
	}
	return v
}

func (d *dashboard) checkFromStore(f store.FindingRecord) checkView {
	v := checkView{ID: f.CheckID, Status: f.Status, Severity: f.Severity, Message: textclip.Runes(f.Message, 600)}
	if c, ok := d.checks.Lookup(f.CheckID); ok {
		v.Title, v.Rule, v.Spec = c.Title, c.Rule, c.Spec
	}
	return v
}
