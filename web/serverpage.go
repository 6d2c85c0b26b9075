package web

import (
	"errors"
	"fmt"
	"html/template"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"

	"github.com/mcpwatch/mcpwatch/internal/textclip"
	"github.com/mcpwatch/mcpwatch/store"
)

// runsPerPage is the length of a page of the run history.
const runsPerPage = 50

// serverPageData is a server's page.
type serverPageData struct {
	Name      string
	Href      string
	Target    string
	Transport string
	Labels    []string
	State     stateView
	Identity  []string // server name and version, protocol, tools: what the latest run learnt
	Checked   string
	CheckedAt string
	Tiles     []tile
	Regions   []regionRow
	Latency   latencyChart
	Days      template.HTML
	DaysStart string // where the strip's data begins (see stripStart)
	DaysNote  string
	ByRegion  []regionStrip
	Findings  findingsView
	Tools     toolsView
	Calls     callsView
	Alerts    alertsView
	Runs      runsView
}

// tile is one headline figure.
type tile struct {
	Label, Value, Sub string
}

type regionRow struct {
	Name     string
	State    stateView
	Ago, At  string
	Href     string
	Duration string
	Codes    []string
	Error    string
	Uptime   string // 24 hours
}

type regionStrip struct {
	Name   string
	Bars   template.HTML
	Uptime string
}

func (d *dashboard) serverPage(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	now := d.now().UTC()
	name := r.PathValue("name")
	q := r.URL.Query()
	window, ok := chartWindowOf(q.Get("window"))
	if !ok {
		d.problemPage(w, r, http.StatusBadRequest, "Unknown window", fmt.Sprintf("There is no chart window %q: use 24h, 7d, 30d or 90d.", q.Get("window")))
		return
	}
	runQuery, err := runQueryOf(q)
	if err != nil {
		d.problemPage(w, r, http.StatusBadRequest, "Bad run filter", err.Error())
		return
	}
	srv, err := d.store.ServerByName(ctx, name)
	if errors.Is(err, store.ErrNotFound) {
		d.problemPage(w, r, http.StatusNotFound, "No such server", fmt.Sprintf("No server named %q is monitored.", name))
		return
	}
	if err != nil {
		d.fail(w, r, err)
		return
	}
	det, err := d.store.ServerDetail(ctx, srv.ID, now)
	if err != nil {
		d.fail(w, r, err)
		return
	}
	data := serverPageData{
		Name: srv.Name, Href: serverHref(srv.Name), Target: targetOf(srv), Transport: transportLabel(srv.Transport),
		State: stateOf(det.State),
	}
	for _, k := range sortedKeys(srv.Labels) {
		data.Labels = append(data.Labels, k+"="+srv.Labels[k])
	}
	data.Tiles = figuresOf(det.ServerStatus)
	data.Regions = regionRows(det, now)
	if det.Latest != nil {
		data.Checked, data.CheckedAt = formatAgo(det.Latest.Start, now), formatTime(det.Latest.Start)
		data.Identity = identityOf(*det.Latest)
	}
	if data.Latency, err = d.latencyChart(r, det, window, now); err != nil {
		d.fail(w, r, err)
		return
	}
	days := det.Days()
	ok90, runs90 := daysUptime(days)
	data.Days = template.HTML(uptimeStrip(days, 900, 44, fmt.Sprintf("Uptime of %s by day over the last %d days, all regions", srv.Name, len(days))).SVG())
	data.DaysNote = formatUptime(ok90, runs90)
	data.DaysStart = stripStart(days)
	if len(det.ByRegion) > 1 {
		for _, rw := range det.ByRegion {
			ok, runs := daysUptime(rw.Days)
			data.ByRegion = append(data.ByRegion, regionStrip{Name: rw.Region, Uptime: formatUptime(ok, runs),
				Bars: template.HTML(uptimeStrip(rw.Days, 900, 22, fmt.Sprintf("Uptime of %s by day seen from %s", srv.Name, rw.Region)).SVG())})
		}
	}
	var latest *analysis
	if det.Latest != nil {
		latest, err = d.analyse(ctx, det.Latest.ID, srv)
		if err != nil && !errors.Is(err, errNoRecording) {
			d.fail(w, r, err)
			return
		}
	}
	if data.Findings, err = d.findingsOf(r, det.Latest, latest); err != nil {
		d.fail(w, r, err)
		return
	}
	if data.Tools, err = d.toolsOf(r, srv, det.Latest, latest, now); err != nil {
		d.fail(w, r, err)
		return
	}
	if data.Calls, err = d.callsOf(r, srv, det.Latest, latest, window, now); err != nil {
		d.fail(w, r, err)
		return
	}
	if data.Alerts, err = d.alertsOf(r, srv.ID, srv.Name, det.State, now); err != nil {
		d.fail(w, r, err)
		return
	}
	runQuery.ServerID = srv.ID
	if data.Runs, err = d.runsOf(r, srv, det, runQuery, window, now); err != nil {
		d.fail(w, r, err)
		return
	}
	d.render(w, r, http.StatusOK, "server", srv.Name, d.refresh, data)
}

// figuresOf lays out a server's headline figures: uptime per window, latency percentiles of
// the last 24 hours and the conformance of its latest run.
func figuresOf(st store.ServerStatus) []tile {
	var out []tile
	for _, w := range st.Windows {
		out = append(out, tile{Label: "Uptime " + windowLabel(w.Name), Value: formatUptime(w.Up+w.Degraded, w.Runs),
			Sub: plural(int(w.Runs), "run", "runs")})
	}
	if w, ok := st.Window("24h"); ok {
		reached := int(w.Up + w.Degraded)
		for _, p := range []struct {
			name string
			q    float64
		}{{"p50", 0.5}, {"p95", 0.95}, {"p99", 0.99}} {
			out = append(out, tile{Label: "Answer time " + p.name + ", 24 h", Value: formatLatency(w.LatencyQuantile(p.q)),
				Sub: "of " + plural(reached, "run", "runs")})
		}
	}
	if c := st.Conformance; c != nil {
		out = append(out, tile{Label: "Checks passed", Value: strconv.FormatFloat(math.Floor(c.Score()), 'f', 0, 64) + "%",
			Sub: conformanceSub(c)})
	}
	return out
}

// conformanceSub counts what kept the latest run from passing: failures, warnings, and the
// checks it could not judge (untested, never passes), advice apart from warnings.
func conformanceSub(c *store.Conformance) string {
	sub := fmt.Sprintf("%d failed · %d warned", c.Fail, c.Warn-c.Advice)
	if c.Advice > 0 {
		sub += fmt.Sprintf(" · %d advice", c.Advice)
	}
	if c.Untested > 0 {
		sub += fmt.Sprintf(" · %d untested", c.Untested)
	}
	return sub
}

// windowLabel writes a window name for people: "24h" is "24 h".
func windowLabel(name string) string {
	if len(name) > 1 {
		return name[:len(name)-1] + " " + name[len(name)-1:]
	}
	return name
}

func regionRows(det store.ServerDetail, now time.Time) []regionRow {
	uptime := map[string]string{}
	for _, rw := range det.ByRegion {
		for _, w := range rw.Windows {
			if w.Name == "24h" {
				uptime[rw.Region] = formatUptime(w.Up+w.Degraded, w.Runs)
			}
		}
	}
	var out []regionRow
	for _, rg := range det.Regions {
		l := rg.Latest
		out = append(out, regionRow{
			Name: rg.Region, State: outcomeView(l.Outcome), Ago: formatAgo(l.Start, now), At: formatTime(l.Start),
			Href: runHref(l.ID), Duration: formatDuration(l.Duration), Codes: codeParts(runCodes(l)),
			Error: textclip.Runes(l.Error, 160), Uptime: uptime[rg.Region],
		})
	}
	return out
}

// identityOf is what the latest run learnt about the server.
func identityOf(run store.RunRecord) []string {
	var out []string
	if run.ServerName != "" || run.ServerVersion != "" {
		out = append(out, textclip.Runes(run.ServerName+" "+run.ServerVersion, 120))
	}
	if run.ProtocolVersion != "" {
		out = append(out, "protocol "+run.ProtocolVersion)
	}
	if run.ToolCount != nil {
		out = append(out, plural(*run.ToolCount, "tool", "tools"))
	}
	return out
}

// runsView is the run history of the server page.
type runsView struct {
	Rows     []runRow
	Regions  []string
	Region   string
	Outcome  string
	Outcomes []string
	Window   string
	Next     string // older runs
	Newest   string // back to the first page, when not on it
	Empty    string
}

type runRow struct {
	Href     string
	At       string
	Ago      string
	Region   string
	Outcome  stateView
	Duration string
	Protocol string
	Codes    []string
	Tools    string
	Error    string
}

// runQueryOf reads the run filters of the server page: region, outcome and the page cursor.
func runQueryOf(q url.Values) (store.RunPageQuery, error) {
	rq := store.RunPageQuery{Region: q.Get("region"), Outcome: q.Get("outcome"), Limit: runsPerPage}
	switch rq.Outcome {
	case "", store.OutcomeUp, store.OutcomeDegraded, store.OutcomeDown:
	default:
		return rq, fmt.Errorf("there is no outcome %q: use up, degraded or down", rq.Outcome)
	}
	if len(rq.Region) > 200 {
		return rq, errors.New("the region name is too long")
	}
	if after := q.Get("after"); after != "" {
		c, err := store.ParseRunCursor(after)
		if err != nil {
			return rq, fmt.Errorf("the page link is damaged (%q); start again from the newest runs", after)
		}
		rq.After = &c
	}
	return rq, nil
}

func (d *dashboard) runsOf(r *http.Request, srv store.Server, det store.ServerDetail, q store.RunPageQuery, window chartWindow, now time.Time) (runsView, error) {
	runs, next, err := d.store.RunPage(r.Context(), q)
	if err != nil {
		return runsView{}, err
	}
	v := runsView{Region: q.Region, Outcome: q.Outcome, Window: window.name,
		Outcomes: []string{store.OutcomeUp, store.OutcomeDegraded, store.OutcomeDown}}
	seen := map[string]bool{}
	for _, rw := range det.ByRegion {
		seen[rw.Region] = true
	}
	for _, rg := range det.Regions {
		seen[rg.Region] = true
	}
	if q.Region != "" {
		seen[q.Region] = true
	}
	v.Regions = sortedKeys(seen)
	link := func(after *store.RunCursor) string {
		vals := url.Values{}
		if window.name != defaultWindow {
			vals.Set("window", window.name)
		}
		if q.Region != "" {
			vals.Set("region", q.Region)
		}
		if q.Outcome != "" {
			vals.Set("outcome", q.Outcome)
		}
		if after != nil {
			vals.Set("after", after.String())
		}
		u := serverHref(srv.Name)
		if len(vals) > 0 {
			u += "?" + vals.Encode()
		}
		return u + "#runs"
	}
	if next != nil {
		v.Next = link(next)
	}
	if q.After != nil {
		v.Newest = link(nil)
	}
	for _, run := range runs {
		row := runRow{
			Href: runHref(run.ID), At: formatTime(run.Start), Ago: formatAgo(run.Start, now), Region: run.Region,
			Outcome: outcomeView(run.Outcome), Duration: formatDuration(run.Duration), Protocol: run.ProtocolVersion,
			Codes: codeParts(runCodes(run)), Error: textclip.Runes(run.Error, 120),
		}
		if run.ToolCount != nil {
			row.Tools = strconv.Itoa(*run.ToolCount)
		}
		v.Rows = append(v.Rows, row)
	}
	if len(v.Rows) == 0 {
		v.Empty = "No runs yet."
		if q.Region != "" || q.Outcome != "" || q.After != nil {
			v.Empty = "No runs match."
		}
	}
	return v, nil
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
