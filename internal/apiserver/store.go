package apiserver

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/mcpwatch/mcpwatch/internal/runreport"
	"github.com/mcpwatch/mcpwatch/store"
)

// Store is what the API reads and writes; *store.Store is one.
type Store interface {
	StatusReader
	ServerReader
	ServerWriter
	RunReader
	AlertReader
	Database
}

// StatusReader gives the statuses the list, a server and the badges show (the same queries as
// the dashboard's, so the API and a page never disagree), and keeps the window sums behind
// them current (RefreshLoop).
type StatusReader interface {
	ServerStatuses(ctx context.Context, now time.Time) ([]store.ServerStatus, error)
	ServerStatus(ctx context.Context, id int64, now time.Time) (store.ServerStatus, error)
	ServerDetail(ctx context.Context, id int64, now time.Time) (store.ServerDetail, error)
	RefreshStatusWindows(ctx context.Context, now time.Time) (bool, error)
}

// ServerReader finds the server a request names.
type ServerReader interface {
	Server(ctx context.Context, id int64) (store.Server, error)
	ServerByName(ctx context.Context, name string) (store.Server, error)
}

// ServerWriter registers, changes and removes servers of the API's source; it never takes a
// name of another source nor touches its servers.
type ServerWriter interface {
	CreateServer(ctx context.Context, v store.Server) (store.Server, error)
	UpdateServerOf(ctx context.Context, source, name string, change func(*store.Server) error) (store.Server, error)
	DeleteServerOf(ctx context.Context, source, name string) error
}

// RunReader gives stored runs: one run and its recording for its report, a page of a server's
// runs, the runs at which its tool surface changed.
type RunReader interface {
	runreport.Transcripts
	Run(ctx context.Context, id store.RunID) (store.RunRecord, error)
	RunPage(ctx context.Context, q store.RunPageQuery) ([]store.RunRecord, *store.RunCursor, error)
	ToolChanges(ctx context.Context, serverID int64, since time.Time, limit int) ([]store.ToolChange, error)
}

// AlertReader gives the alert history.
type AlertReader interface {
	AlertHistory(ctx context.Context, q store.AlertHistoryQuery) ([]store.AlertHistoryEntry, error)
}

// Database is the connection itself: /readyz pings it, /metrics counts its pool's
// connections.
type Database interface {
	Ping(ctx context.Context) error
	Pool() *pgxpool.Pool
}

var _ Store = (*store.Store)(nil)
