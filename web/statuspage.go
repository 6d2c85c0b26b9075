package web

import (
	"cmp"
	"fmt"
	"html/template"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpwatch/mcpwatch/internal/textclip"
	"github.com/mcpwatch/mcpwatch/protocol"
	"github.com/mcpwatch/mcpwatch/store"
	"github.com/mcpwatch/mcpwatch/web/chart"
)

// serversPerPage bounds the rows of one status page: 90 bars and a sparkline each.
const serversPerPage = 50

// statusData is the status page.
type statusData struct {
	AsOf          time.Time
	Headline      string
	HeadlineClass string
	Total         int
	Counts        []stateCount
	States        []stateView
	Filter        string // the state filtered on, "" for all
	AllHref       string
	Query         string
	Rows          []serverRow
	Shown         string // "1–50 of 230"
	Prev, Next    string // page links
	Empty         string // why there are no rows
	AlertsOpen    string // "2 alerts open on 1 server", "" when none is
}

type stateCount struct {
	stateView
	Count    int
	Href     string
	Selected bool
}

// serverRow is one server on the status page.
type serverRow struct {
	Name      string
	Href      string
	Target    string
	State     stateView
	Regions   []regionChip
	Uptime    string // over the last 90 days
	Bars      template.HTML
	BarsStart string        // where the strip's data begins (see stripStart)
	Recent    template.HTML // the last runs, a tick each
	RecentFor string        // "last 30 runs", "last 4 runs", "no run yet"
	P50, P95  string
	Reached   bool // some run of the last 24 hours reached the server
	Spark     template.HTML
	Score     string // conformance score of the latest run
	Failing   []string
	LastError *errorView
	// Alerts are the server's open alerts, each saying why it is open when the server looks
	// fine (flapping, a maintenance window, not enough good runs yet).
	Alerts []openAlertView
	// Maintenance names the maintenance window in force for the server, if any.
	Maintenance string
}

type regionChip struct {
	Name  string
	State stateView
	Ago   string
	At    string
}

// errorView is a run that failed, as the pages cite it.
type errorView struct {
	Outcome stateView
	Codes   string
	Message string
	Ago     string
	At      string
	Href    string
	Region  string
}

func (d *dashboard) statusPage(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	now := d.now().UTC()
	q := r.URL.Query()
	filter, query := q.Get("state"), strings.TrimSpace(q.Get("q"))
	if filter != "" && !knownState(filter) {
		d.problemPage(w, r, http.StatusBadRequest, "Unknown state", fmt.Sprintf("There is no state %q: use one of down, degraded, unknown, up or paused.", filter))
		return
	}
	pageNo := 1
	if p := q.Get("page"); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 {
			d.problemPage(w, r, http.StatusBadRequest, "Bad page number", fmt.Sprintf("%q is not a page number.", p))
			return
		}
		pageNo = n
	}
	snap, err := d.statuses.Get(ctx, now)
	if err != nil {
		d.fail(w, r, err)
		return
	}
	key := statusPageKey{seq: snap.Seq, filter: filter, query: query, page: pageNo, live: wantsLive(r)}
	if p, ok := d.statusPages.Get(key); ok {
		p.write(w, r, d.refresh)
		return
	}
	all, asOf := snap.List, snap.AsOf
	now = asOf

	data := statusData{AsOf: asOf, Total: len(all), Filter: filter, Query: query, States: states(), AllHref: statusHref("", query, 1)}
	counts := map[string]int{}
	for _, st := range all {
		counts[st.State]++
	}
	data.Headline, data.HeadlineClass = headline(len(all), counts)
	for _, s := range states() {
		sel := filter == s.Key
		href := statusHref(s.Key, query, 1)
		if sel {
			href = statusHref("", query, 1)
		}
		data.Counts = append(data.Counts, stateCount{stateView: s, Count: counts[s.Key], Href: href, Selected: sel})
	}

	// Pointers into the shared reading: at 10,000 servers, copying and sorting the statuses
	// themselves (some 600 bytes each) cost as much as rendering the page.
	var shown []*store.ServerStatus
	for i := range all {
		st := &all[i]
		if filter != "" && st.State != filter {
			continue
		}
		if query != "" && !strings.Contains(strings.ToLower(st.Server.Name), strings.ToLower(query)) {
			continue
		}
		shown = append(shown, st)
	}
	open, err := d.alertsOpenOn(ctx, 0)
	if err != nil {
		d.fail(w, r, err)
		return
	}
	data.AlertsOpen = alertsOpenLine(open)
	// Problems first, then by name: the reader sees what is wrong without scrolling. Within a
	// state, servers with an open alert come first.
	slices.SortStableFunc(shown, func(a, b *store.ServerStatus) int {
		if ra, rb := stateRank(a.State), stateRank(b.State); ra != rb {
			return ra - rb
		}
		if oa, ob := len(open[a.Server.ID]) > 0, len(open[b.Server.ID]) > 0; oa != ob {
			if oa {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Server.Name, b.Server.Name)
	})
	first := (pageNo - 1) * serversPerPage
	if first >= len(shown) && len(shown) > 0 {
		d.problemPage(w, r, http.StatusNotFound, "No such page", fmt.Sprintf("There are only %s to show.", plural(len(shown), "server", "servers")))
		return
	}
	last := min(first+serversPerPage, len(shown))
	pageRows := make([]store.ServerStatus, 0, last-first)
	for _, st := range shown[first:last] {
		pageRows = append(pageRows, *st)
	}
	if len(shown) > serversPerPage {
		data.Shown = fmt.Sprintf("%d–%d of %d", first+1, last, len(shown))
		if first > 0 {
			data.Prev = statusHref(filter, query, pageNo-1)
		}
		if last < len(shown) {
			data.Next = statusHref(filter, query, pageNo+1)
		}
	}
	switch {
	case len(all) == 0:
		data.Empty = "No servers are monitored yet. Add them to the configuration of `prober run`, or register one through the API."
	case len(shown) == 0:
		data.Empty = "No server matches."
	}

	rows, err := d.statusRows(r, pageRows, open, now)
	if err != nil {
		d.fail(w, r, err)
		return
	}
	data.Rows = rows
	body, err := d.execute(r, "status", d.title, d.refresh, data)
	if err != nil {
		d.fail(w, r, err)
		return
	}
	p := renderedPage{body: body, gz: d.gzips.compress(body)}
	d.statusPages.Put(key, p)
	p.write(w, r, d.refresh)
}

// headline sums the fleet up in one sentence, coloured by the worst state.
func headline(total int, counts map[string]int) (string, string) {
	watched := total - counts[store.StatePaused]
	switch {
	case total == 0:
		return "No servers yet", store.StateUnknown
	case counts[store.StateDown] > 0:
		return fmt.Sprintf("%d of %s down", counts[store.StateDown], plural(watched, "server", "servers")), store.StateDown
	case counts[store.StateDegraded] > 0:
		return fmt.Sprintf("%d of %s degraded", counts[store.StateDegraded], plural(watched, "server", "servers")), store.StateDegraded
	case watched == 0:
		return "Every server is paused", store.StatePaused
	case counts[store.StateUnknown] == watched:
		return "Waiting for the first runs", store.StateUnknown
	case counts[store.StateUnknown] > 0:
		return fmt.Sprintf("%d of %d servers up, %d not probed yet", counts[store.StateUp], watched, counts[store.StateUnknown]), store.StateUp
	case watched == 1:
		return "The server is up", store.StateUp
	}
	return fmt.Sprintf("All %d servers are up", watched), store.StateUp
}

// alertsOpenLine counts the open alerts for the headline: "1 alert open on 1 server".
func alertsOpenLine(open map[int64][]store.OpenAlert) string {
	n := 0
	for _, as := range open {
		n += len(as)
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("%s open on %s", plural(n, "alert", "alerts"), plural(len(open), "server", "servers"))
}

func statusHref(state, query string, pageNo int) string {
	v := url.Values{}
	if state != "" {
		v.Set("state", state)
	}
	if query != "" {
		v.Set("q", query)
	}
	if pageNo > 1 {
		v.Set("page", strconv.Itoa(pageNo))
	}
	if len(v) == 0 {
		return "/"
	}
	return "/?" + v.Encode()
}

func serverHref(name string) string { return "/servers/" + url.PathEscape(name) }

func runHref(id store.RunID) string { return "/runs/" + id.String() }

// sparkHours is the span of the status page's latency sparkline.
const sparkHours = 24

// statusRows builds the rows of the servers on the page: their figures come with the
// statuses; the sparklines and last errors are read for these servers only.
func (d *dashboard) statusRows(r *http.Request, sts []store.ServerStatus, open map[int64][]store.OpenAlert, now time.Time) ([]serverRow, error) {
	if len(sts) == 0 {
		return nil, nil
	}
	ids := make([]int64, len(sts))
	for i, st := range sts {
		ids[i] = st.Server.ID
	}
	from := now.Truncate(time.Hour).Add(-(sparkHours - 1) * time.Hour)
	// The recent runs do not depend on the hours and the last errors, which do on each
	// other: reading them at once, each on a connection of its own, takes the longer of the
	// two chains rather than both.
	var (
		recent            []store.RunRecord
		recentErr, errErr error
		byServer          = map[int64][]store.ServerHour{}
		lastErrors        map[int64]store.RunRecord
		wg                sync.WaitGroup
	)
	wg.Go(func() { recent, recentErr = d.store.RecentRuns(r.Context(), ids, recentShown) })
	wg.Go(func() {
		hours, err := d.store.RecentHours(r.Context(), ids, from, now.Truncate(time.Hour).Add(time.Hour), now)
		if err != nil {
			errErr = err
			return
		}
		for _, h := range hours {
			byServer[h.ServerID] = append(byServer[h.ServerID], h)
		}
		lastErrors, errErr = d.lastErrors(r, sts, byServer)
	})
	wg.Wait()
	if err := cmp.Or(errErr, recentErr); err != nil {
		return nil, err
	}
	recentBy := map[int64][]store.RunRecord{}
	for _, run := range recent {
		recentBy[run.ServerID] = append(recentBy[run.ServerID], run)
	}
	rows := make([]serverRow, len(sts))
	for i, st := range sts {
		row := serverRow{
			Name: st.Server.Name, Href: serverHref(st.Server.Name), Target: targetOf(st.Server),
			State: stateOf(st.State),
		}
		for _, rg := range st.Regions {
			row.Regions = append(row.Regions, regionChip{Name: rg.Region, State: outcomeView(rg.Latest.Outcome),
				Ago: formatAgo(rg.Latest.Start, now), At: formatTime(rg.Latest.Start)})
		}
		row.Uptime = "–"
		if w, ok := st.Window("90d"); ok {
			row.Uptime = formatUptime(w.Up+w.Degraded, w.Runs)
		}
		days := st.Days()
		row.BarsStart = stripStart(days)
		row.Recent = template.HTML(recentTicks(recentBy[st.Server.ID], st.Server.Name).SVG())
		row.RecentFor = "no run yet"
		if n := min(len(recentBy[st.Server.ID]), recentShown); n > 0 {
			row.RecentFor = "last " + plural(n, "run", "runs")
		}
		row.Bars = template.HTML(uptimeStrip(days, 450, 34, fmt.Sprintf("Uptime of %s by day over the last %d days", st.Server.Name, len(days))).SVG())
		if w, ok := st.Window("24h"); ok && w.Up+w.Degraded > 0 {
			row.Reached = true
			row.P50, row.P95 = formatLatency(w.LatencyQuantile(0.5)), formatLatency(w.LatencyQuantile(0.95))
		}
		values := hourlyP50(byServer[st.Server.ID], from, sparkHours)
		row.Spark = template.HTML(chart.Sparkline{Width: 120, Height: 28, Values: values, ZeroBased: true, Class: "spark",
			Label: sparkLabel(values)}.SVG())
		if c := st.Conformance; c != nil {
			row.Score = strconv.FormatFloat(math.Floor(c.Score()), 'f', 0, 64) + "%"
			row.Failing = c.Failing
		}
		if run, ok := lastErrors[st.Server.ID]; ok {
			row.LastError = errorOf(run, now)
		}
		row.Alerts = openAlertsOf(open[st.Server.ID], st.State, now)
		row.Maintenance = d.maintenanceNote(st.Server.Name, now)
		rows[i] = row
	}
	return rows, nil
}

func sparkLabel(values []float64) string {
	last := math.NaN()
	for _, v := range values {
		if !math.IsNaN(v) {
			last = v
		}
	}
	if math.IsNaN(last) {
		return "Median answer time by hour over the last 24 hours: no runs reached the server"
	}
	return fmt.Sprintf("Median answer time by hour over the last 24 hours; latest hour %s", formatLatency(time.Duration(last*float64(time.Millisecond))))
}

func errorOf(run store.RunRecord, now time.Time) *errorView {
	return &errorView{
		Outcome: outcomeView(run.Outcome), Codes: runCodes(run), Message: textclip.Runes(run.Error, 300),
		Ago: formatAgo(run.Start, now), At: formatTime(run.Start), Href: runHref(run.ID), Region: run.Region,
	}
}

// lastErrors finds each server's last run that was down or degraded: the latest run itself
// when it failed; else the last failing hour of the past day (from the hourly rollups read
// for the sparkline); else the last day with a failed run among the days shown.
func (d *dashboard) lastErrors(r *http.Request, sts []store.ServerStatus, hours map[int64][]store.ServerHour) (map[int64]store.RunRecord, error) {
	out := map[int64]store.RunRecord{}
	var ranges []store.FailureRange
	for _, st := range sts {
		id := st.Server.ID
		if st.Latest != nil && st.Latest.Outcome != store.OutcomeUp {
			out[id] = *st.Latest
			continue
		}
		var failed time.Time
		for _, h := range hours[id] {
			if h.Down+h.Degraded > 0 && h.Hour.After(failed) {
				failed = h.Hour
			}
		}
		if !failed.IsZero() {
			ranges = append(ranges, store.FailureRange{ServerID: id, From: failed, To: failed.Add(time.Hour)})
			continue
		}
		days := st.Days()
		for i := len(days) - 1; i >= 0; i-- {
			if day := days[i]; day.OK < day.Runs {
				ranges = append(ranges, store.FailureRange{ServerID: id, From: day.Day, To: day.Day.Add(24 * time.Hour)})
				break
			}
		}
	}
	runs, err := d.store.LatestFailures(r.Context(), ranges)
	if err != nil {
		return nil, err
	}
	for _, run := range runs {
		out[run.ServerID] = run
	}
	return out, nil
}

// targetOf is what a reader may see of where a server is: its URL without credentials, or for
// a stdio server the program's name (its arguments and environment may hold secrets). A
// server on the legacy HTTP+SSE transport says so, as a stdio one does: its URL is an event
// stream, not a Streamable HTTP endpoint.
func targetOf(v store.Server) string {
	switch v.Transport {
	case protocol.TransportStdio:
		cmd := v.Command
		if i := strings.LastIndexByte(cmd, '/'); i >= 0 {
			cmd = cmd[i+1:]
		}
		return "stdio: " + cmd
	case protocol.TransportSSE:
		return "legacy SSE: " + v.PublicURL()
	}
	return v.PublicURL()
}

// transportLabel names a server's transport for readers.
func transportLabel(transport string) string {
	switch transport {
	case protocol.TransportHTTP:
		return "Streamable HTTP"
	case protocol.TransportSSE:
		return "legacy HTTP+SSE (2024-11-05)"
	case protocol.TransportAuto:
		return "HTTP, Streamable or legacy SSE as detected"
	}
	return transport
}
