package alert

import (
	"context"
	"time"

	"github.com/mcpwatch/mcpwatch/store"
)

// AlertUpdater keeps the alert state of servers; *store.Store is one. UpdateAlerts must run
// decide under a lock of the server's state and write what it returns in the same
// transaction: engines in other processes judge runs of the same servers.
type AlertUpdater interface {
	UpdateAlerts(ctx context.Context, serverID int64, decide func(store.AlertSnapshot) (store.AlertChanges, error)) (store.AlertChanges, error)
}

// Outbox is the queue of notifications a Dispatcher delivers; *store.Store is one. A claim is
// a lease: a notification claimed by one dispatcher is not claimed by another until the lease
// ends, and settling it after that fails.
type Outbox interface {
	ClaimNotifications(ctx context.Context, worker string, limit int, lease time.Duration) ([]store.Notification, error)
	NotificationSent(ctx context.Context, n store.Notification, ref string) error
	NotificationFailed(ctx context.Context, n store.Notification, retryAt time.Time, lastErr string, giveUp bool) error
	NextNotificationDue(ctx context.Context) (at time.Time, ok bool, err error)
}

var (
	_ AlertUpdater = (*store.Store)(nil)
	_ Outbox       = (*store.Store)(nil)
)
