package apiserver

import (
	"math"
	"net/url"
	"time"

	"github.com/mcpwatch/mcpwatch/store"
)

// The JSON shapes of the API. Times are RFC 3339 in UTC, durations in milliseconds. A figure
// that cannot be computed (no runs) is null, never 0.

type serverView struct {
	ID        int64             `json:"id"`
	Name      string            `json:"name"`
	Source    string            `json:"source"`
	Transport string            `json:"transport"`
	URL       string            `json:"url,omitempty"`
	Headers   []string          `json:"headers"`
	Schedule  string            `json:"schedule"`
	TimeoutMs int64             `json:"timeoutMs"`
	Labels    map[string]string `json:"labels"`
	Paused    bool              `json:"paused"`
	CreatedAt time.Time         `json:"createdAt"`
	UpdatedAt time.Time         `json:"updatedAt"`
}

type runView struct {
	ID         string    `json:"id"`
	ServerID   int64     `json:"serverId"`
	Region     string    `json:"region"`
	Worker     string    `json:"worker"`
	StartedAt  time.Time `json:"startedAt"`
	DurationMs float64   `json:"durationMs"`
	// AnswerMs is the answer time the latency figures use, null when the run has none.
	AnswerMs        *float64 `json:"answerMs"`
	Outcome         string   `json:"outcome"`
	ProtocolVersion string   `json:"protocolVersion"`
	ServerName      string   `json:"serverName"`
	ServerVersion   string   `json:"serverVersion"`
	ErrorCode       *int64   `json:"errorCode"`
	HTTPStatus      *int     `json:"httpStatus"`
	ExitStatus      *int     `json:"exitStatus"`
	ToolCount       *int     `json:"toolCount"`
	ToolFingerprint string   `json:"toolFingerprint"`
	Error           string   `json:"error"`
}

type windowView struct {
	Uptime   *float64 `json:"uptime"`
	Runs     int64    `json:"runs"`
	Up       int64    `json:"up"`
	Degraded int64    `json:"degraded"`
	Down     int64    `json:"down"`
	MeanMs   *float64 `json:"meanLatencyMs"`
}

type latencyView struct {
	Window string   `json:"window"`
	Runs   int64    `json:"runs"`
	P50Ms  *float64 `json:"p50Ms"`
	P95Ms  *float64 `json:"p95Ms"`
	P99Ms  *float64 `json:"p99Ms"`
	MinMs  *float64 `json:"minMs"`
	MaxMs  *float64 `json:"maxMs"`
	MeanMs *float64 `json:"meanMs"`
}

type lastErrorView struct {
	RunID      string    `json:"runId"`
	At         time.Time `json:"at"`
	Region     string    `json:"region"`
	Outcome    string    `json:"outcome"`
	ErrorCode  *int64    `json:"errorCode"`
	HTTPStatus *int      `json:"httpStatus"`
	ExitStatus *int      `json:"exitStatus"`
	Message    string    `json:"message"`
}

type conformanceView struct {
	Score float64   `json:"score"`
	RunID string    `json:"runId"`
	At    time.Time `json:"at"`
	Pass  int       `json:"pass"`
	Fail  int       `json:"fail"`
	Warn  int       `json:"warn"`
	// Advice counts the warn checks of severity advice (in Warn too); Untested the checks that
	// applied but that the run could not judge.
	Advice   int      `json:"advice"`
	Untested int      `json:"untested"`
	Skip     int      `json:"skip"`
	Info     int      `json:"info"`
	Failing  []string `json:"failing"`
	Warning  []string `json:"warning"`
}

// regionView is a server seen from one region: the outcome of its latest run there.
type regionView struct {
	Region     string    `json:"region"`
	State      string    `json:"state"`
	RunID      string    `json:"runId"`
	At         time.Time `json:"at"`
	DurationMs float64   `json:"durationMs"`
	AnswerMs   *float64  `json:"answerMs"`
	ErrorCode  *int64    `json:"errorCode"`
	HTTPStatus *int      `json:"httpStatus"`
	ExitStatus *int      `json:"exitStatus"`
}

// windowsView holds the uptime windows by name (a struct: the order is fixed and encoding
// one is cheaper than a map).
type windowsView struct {
	H24 windowView `json:"24h"`
	D7  windowView `json:"7d"`
	D30 windowView `json:"30d"`
	D90 windowView `json:"90d"`
}

type dayView struct {
	Day    string   `json:"day"`
	Runs   int64    `json:"runs"`
	OK     int64    `json:"ok"`
	Uptime *float64 `json:"uptime"`
}

// linksView are the URLs about a server; the server list gives self and dashboard only.
type linksView struct {
	Self      string      `json:"self"`
	Dashboard string      `json:"dashboard"`
	Runs      string      `json:"runs,omitempty"`
	Tools     string      `json:"tools,omitempty"`
	Alerts    string      `json:"alerts,omitempty"`
	Badges    *badgeLinks `json:"badges,omitempty"`
}

type badgeLinks struct {
	Status      string `json:"status"`
	Uptime      string `json:"uptime"`
	Latency     string `json:"latency"`
	Conformance string `json:"conformance"`
}

// statusView is a server with its status: an entry of GET /api/v1/servers.
type statusView struct {
	serverView
	State       string           `json:"state"`
	LastRun     *runView         `json:"lastRun"`
	Regions     []regionView     `json:"regions"`
	Uptime      windowsView      `json:"uptime"`
	Latency     latencyView      `json:"latency"`
	LastError   *lastErrorView   `json:"lastError"`
	Conformance *conformanceView `json:"conformance"`
	Links       linksView        `json:"links"`
}

type regionDetailView struct {
	Region  string      `json:"region"`
	Uptime  windowsView `json:"uptime"`
	Latency latencyView `json:"latency"`
	Days    []dayView   `json:"days"`
}

type hourView struct {
	Hour     time.Time `json:"hour"`
	Region   string    `json:"region"`
	Runs     int64     `json:"runs"`
	Up       int64     `json:"up"`
	Degraded int64     `json:"degraded"`
	Down     int64     `json:"down"`
	P50Ms    *float64  `json:"p50Ms"`
	P95Ms    *float64  `json:"p95Ms"`
	P99Ms    *float64  `json:"p99Ms"`
}

// detailView is GET /api/v1/servers/{server}.
type detailView struct {
	statusView
	Days     []dayView          `json:"days"`
	ByRegion []regionDetailView `json:"byRegion"`
	Hours    []hourView         `json:"hours"`
	AsOf     time.Time          `json:"asOf"`
}

func ms(d time.Duration) float64 { return math.Round(float64(d)/float64(time.Microsecond)) / 1000 }

func msPtr(d time.Duration) *float64 {
	v := ms(d)
	return &v
}

// answerMs is a run's answer time, nil when it has none (a down run, or one written before
// answer times were kept): 0 would read as an instant answer.
func answerMs(r store.RunRecord) *float64 {
	if r.AnswerTime <= 0 {
		return nil
	}
	return msPtr(r.AnswerTime)
}

func ratio(part, whole int64) *float64 {
	if whole == 0 {
		return nil
	}
	v := float64(part) / float64(whole)
	return &v
}

func toServerView(v store.Server) serverView {
	out := serverView{
		ID: v.ID, Name: v.Name, Source: v.Source, Transport: v.Transport, URL: v.PublicURL(),
		Headers: []string{}, Schedule: v.Schedule, TimeoutMs: v.Timeout.Milliseconds(),
		Labels: v.Labels, Paused: !v.Enabled, CreatedAt: v.CreatedAt.UTC(), UpdatedAt: v.UpdatedAt.UTC(),
	}
	if out.Labels == nil {
		out.Labels = map[string]string{}
	}
	// Header names only: which variable holds a value is the operator's business.
	for _, h := range v.Headers {
		out.Headers = append(out.Headers, h.Name)
	}
	return out
}

func toRunView(r store.RunRecord) runView {
	return runView{
		ID: r.ID.String(), ServerID: r.ServerID, Region: r.Region, Worker: r.Worker,
		StartedAt: r.Start.UTC(), DurationMs: ms(r.Duration), AnswerMs: answerMs(r), Outcome: r.Outcome,
		ProtocolVersion: r.ProtocolVersion, ServerName: r.ServerName, ServerVersion: r.ServerVersion,
		ErrorCode: r.ErrorCode, HTTPStatus: r.HTTPStatus, ExitStatus: r.ExitStatus,
		ToolCount: r.ToolCount, ToolFingerprint: r.ToolFingerprint, Error: r.Error,
	}
}

func toWindowViews(ws []store.WindowStats) windowsView {
	var out windowsView
	for _, w := range ws {
		v := windowView{Uptime: ratio(w.Up+w.Degraded, w.Runs), Runs: w.Runs, Up: w.Up, Degraded: w.Degraded, Down: w.Down}
		if w.Up+w.Degraded > 0 {
			v.MeanMs = msPtr(w.MeanLatency())
		}
		switch w.Name {
		case "24h":
			out.H24 = v
		case "7d":
			out.D7 = v
		case "30d":
			out.D30 = v
		case "90d":
			out.D90 = v
		}
	}
	return out
}

// toLatencyView gives the percentiles of a window: estimates from the latency histogram,
// interpolated within a bucket and bounded by the window's extremes.
func toLatencyView(w store.WindowStats) latencyView {
	v := latencyView{Window: w.Name, Runs: w.Up + w.Degraded}
	if v.Runs == 0 || w.Latency == nil {
		return v
	}
	v.P50Ms = msPtr(w.LatencyQuantile(0.50))
	v.P95Ms = msPtr(w.LatencyQuantile(0.95))
	v.P99Ms = msPtr(w.LatencyQuantile(0.99))
	v.MinMs, v.MaxMs, v.MeanMs = msPtr(w.LatencyMin), msPtr(w.LatencyMax), msPtr(w.MeanLatency())
	return v
}

func toDayViews(days []store.DayUptime) []dayView {
	out := make([]dayView, len(days))
	for i, d := range days {
		out[i] = dayView{Day: d.Day.UTC().Format(time.DateOnly), Runs: d.Runs, OK: d.OK, Uptime: ratio(d.OK, d.Runs)}
	}
	return out
}

func (s *API) toStatusView(st store.ServerStatus) statusView {
	seg := url.PathEscape(st.Server.Name)
	v := statusView{serverView: toServerView(st.Server), State: st.State, Regions: []regionView{},
		Uptime: toWindowViews(st.Windows), Links: linksView{Self: "/api/v1/servers/" + seg, Dashboard: s.absolute("/servers/" + seg)}}
	if st.Latest != nil {
		rv := toRunView(*st.Latest)
		v.LastRun = &rv
		if st.Latest.Outcome != store.OutcomeUp {
			l := st.Latest
			v.LastError = &lastErrorView{RunID: l.ID.String(), At: l.Start.UTC(), Region: l.Region, Outcome: l.Outcome,
				ErrorCode: l.ErrorCode, HTTPStatus: l.HTTPStatus, ExitStatus: l.ExitStatus, Message: l.Error}
		}
	}
	for _, r := range st.Regions {
		l := r.Latest
		v.Regions = append(v.Regions, regionView{Region: r.Region, State: r.State, RunID: l.ID.String(), At: l.Start.UTC(),
			DurationMs: ms(l.Duration), AnswerMs: answerMs(l), ErrorCode: l.ErrorCode, HTTPStatus: l.HTTPStatus, ExitStatus: l.ExitStatus})
	}
	if len(st.Windows) > 0 {
		v.Latency = toLatencyView(st.Windows[0])
	}
	if c := st.Conformance; c != nil {
		v.Conformance = &conformanceView{Score: math.Round(c.Score()*10) / 10, RunID: c.RunID.String(), At: c.At.UTC(),
			Pass: c.Pass, Fail: c.Fail, Warn: c.Warn, Advice: c.Advice, Untested: c.Untested, Skip: c.Skip, Info: c.Info,
			Failing: nonNil(c.Failing), Warning: nonNil(c.Warning)}
	}
	return v
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// links are all the URLs about a server, relative unless DashboardURL is set.
func (s *API) links(name string) linksView {
	seg := url.PathEscape(name)
	base := "/api/v1/servers/" + seg
	badge := "/badge/" + seg + "/"
	return linksView{
		Self: base, Runs: base + "/runs", Tools: base + "/tools", Alerts: base + "/alerts",
		Dashboard: s.absolute("/servers/" + seg),
		Badges: &badgeLinks{
			Status:      s.absolute(badge + "status.svg"),
			Uptime:      s.absolute(badge+"uptime.svg") + "?window=30d",
			Latency:     s.absolute(badge + "latency.svg"),
			Conformance: s.absolute(badge + "conformance.svg"),
		},
	}
}

// absolute makes a path of this server absolute when DashboardURL says where it is.
func (s *API) absolute(p string) string {
	if s.dashboard == nil {
		return p
	}
	return s.dashboard.JoinPath(p).String()
}
