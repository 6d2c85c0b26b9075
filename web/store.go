package web

import (
	"context"
	"time"

	"github.com/mcpwatch/mcpwatch/internal/runreport"
	"github.com/mcpwatch/mcpwatch/store"
)

// Store is what the dashboard reads; *store.Store is one. It writes nothing.
type Store interface {
	StatusReader
	ServerReader
	RunReader
	AlertReader
}

// StatusReader gives the figures of the status page and of a server's page: the statuses of
// every server (the same queries as the JSON API's, so a page and the API never disagree),
// one server's windows per region, rollups for sparklines and charts (hourly, or by day for
// the charts by day; both taken from the status sums where they hold them), the last failed
// run of an hour or a day, the last runs of servers for the bar of recent probes, and the
// figures of a server's steps of one kind (its tool calls) over a span.
type StatusReader interface {
	ServerStatuses(ctx context.Context, now time.Time) ([]store.ServerStatus, error)
	ServerDetail(ctx context.Context, id int64, now time.Time) (store.ServerDetail, error)
	HourlyRollups(ctx context.Context, serverIDs []int64, from, to time.Time) ([]store.ServerHour, error)
	DayRollups(ctx context.Context, id int64, from, to, now time.Time) ([]store.HourStats, error)
	RecentHours(ctx context.Context, serverIDs []int64, from, to, now time.Time) ([]store.ServerHour, error)
	LatestFailures(ctx context.Context, ranges []store.FailureRange) ([]store.RunRecord, error)
	RecentRuns(ctx context.Context, serverIDs []int64, n int) ([]store.RunRecord, error)
	StepStats(ctx context.Context, serverID int64, prefix string, since time.Time) ([]store.StepStats, error)
}

// ServerReader finds the server a page is about.
type ServerReader interface {
	Server(ctx context.Context, id int64) (store.Server, error)
	ServerByName(ctx context.Context, name string) (store.Server, error)
}

// RunReader gives stored runs: one run and its recording for the run page, a page of a
// server's runs, the runs at which its tool surface changed.
type RunReader interface {
	runreport.Transcripts
	Run(ctx context.Context, id store.RunID) (store.RunRecord, error)
	RunPage(ctx context.Context, q store.RunPageQuery) ([]store.RunRecord, *store.RunCursor, error)
	ToolChanges(ctx context.Context, serverID int64, since time.Time, limit int) ([]store.ToolChange, error)
}

// AlertReader gives open alerts (of one server, or of all with 0), each with its incident's
// latest transition, and their history.
type AlertReader interface {
	OpenAlertsWithLast(ctx context.Context, serverID int64) ([]store.OpenAlert, error)
	AlertHistory(ctx context.Context, q store.AlertHistoryQuery) ([]store.AlertHistoryEntry, error)
}

var _ Store = (*store.Store)(nil)
