package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mcpwatch/mcpwatch/internal/textclip"
)

// MaxOutboxClaim bounds the notifications one claim returns.
const MaxOutboxClaim = 100

// Notification is an outbox row claimed for delivery.
type Notification struct {
	ID int64
	// Seq numbers the claims of the row; only the latest claim may settle it.
	Seq      int64
	Incident string
	Channel  string
	Target   string
	Payload  []byte
	// Attempts counts the claims, this one included.
	Attempts  int
	CreatedAt time.Time
	// ThreadRef is the delivery reference of the first notification of the same incident
	// delivered on the same channel ("" when there is none): replies go in its thread.
	ThreadRef string
}

// ClaimNotifications leases up to limit due notifications to worker for lease: no other
// claimer gets them until the lease ends, and a notification is not due while an earlier one
// of the same incident on the same channel is still undelivered, so a resolution never
// overtakes its firing. Settle each with NotificationSent or NotificationFailed.
func (s *Store) ClaimNotifications(ctx context.Context, worker string, limit int, lease time.Duration) ([]Notification, error) {
	if limit <= 0 {
		return nil, nil
	}
	limit = min(limit, MaxOutboxClaim)
	if lease < time.Millisecond {
		return nil, fmt.Errorf("store: claim notifications: lease %v is below 1ms", lease)
	}
	rows, err := s.pool.Query(ctx, `WITH due AS (
			SELECT o.id FROM alert_outbox o
			WHERE o.sent_at IS NULL AND o.failed_at IS NULL AND o.next_attempt_at <= now()
				AND NOT EXISTS (SELECT 1 FROM alert_outbox p
					WHERE p.incident = o.incident AND p.channel = o.channel AND p.id < o.id
						AND p.sent_at IS NULL AND p.failed_at IS NULL)
			ORDER BY o.next_attempt_at, o.id
			LIMIT $1
			FOR UPDATE SKIP LOCKED
		)
		UPDATE alert_outbox AS o
		SET next_attempt_at = now() + $2 * interval '1 microsecond', claimed_by = $3,
			claim_seq = o.claim_seq + 1, attempts = o.attempts + 1
		FROM due
		WHERE o.id = due.id
		RETURNING o.id, o.claim_seq, o.incident::text, o.channel, o.target, o.payload, o.attempts, o.created_at,
			coalesce((SELECT p.delivery_ref FROM alert_outbox p
				WHERE p.incident = o.incident AND p.channel = o.channel AND p.sent_at IS NOT NULL
					AND p.delivery_ref <> '' ORDER BY p.id LIMIT 1), '')`,
		limit, lease.Microseconds(), worker)
	if err != nil {
		return nil, fmt.Errorf("store: claim notifications: %w", err)
	}
	defer rows.Close()
	var out []Notification
	for rows.Next() {
		var n Notification
		if err := rows.Scan(&n.ID, &n.Seq, &n.Incident, &n.Channel, &n.Target, &n.Payload, &n.Attempts, &n.CreatedAt, &n.ThreadRef); err != nil {
			return nil, fmt.Errorf("store: claim notifications: %w", err)
		}
		out = append(out, n)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: claim notifications: %w", err)
	}
	return out, nil
}

// NotificationSent records a delivery, with the reference of the delivered message. It
// returns ErrLeaseLost when the claim is no longer the latest (the lease ran out and another
// worker claimed the notification again) or the notification was settled already.
func (s *Store) NotificationSent(ctx context.Context, n Notification, ref string) error {
	tag, err := s.pool.Exec(ctx, `UPDATE alert_outbox SET sent_at = now(), delivery_ref = $3, last_error = ''
		WHERE id = $1 AND claim_seq = $2 AND sent_at IS NULL AND failed_at IS NULL`,
		n.ID, n.Seq, textclip.Storable(ref, maxShortText))
	if err != nil {
		return fmt.Errorf("store: notification %d sent: %w", n.ID, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("notification %d: %w", n.ID, ErrLeaseLost)
	}
	return nil
}

// NotificationFailed records a failed attempt: the notification is due again at retryAt, or,
// with giveUp, never again (it stays unsent, with its last error). ErrLeaseLost as for
// NotificationSent.
func (s *Store) NotificationFailed(ctx context.Context, n Notification, retryAt time.Time, lastErr string, giveUp bool) error {
	tag, err := s.pool.Exec(ctx, `UPDATE alert_outbox SET next_attempt_at = $3, last_error = $4,
			failed_at = CASE WHEN $5 THEN now() END
		WHERE id = $1 AND claim_seq = $2 AND sent_at IS NULL AND failed_at IS NULL`,
		n.ID, n.Seq, retryAt, textclip.Storable(lastErr, maxLongText), giveUp)
	if err != nil {
		return fmt.Errorf("store: notification %d failed: %w", n.ID, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("notification %d: %w", n.ID, ErrLeaseLost)
	}
	return nil
}

// NextNotificationDue returns when the next undelivered notification is due (possibly in the
// past); ok is false when none is pending.
func (s *Store) NextNotificationDue(ctx context.Context) (at time.Time, ok bool, err error) {
	err = s.pool.QueryRow(ctx, `SELECT next_attempt_at FROM alert_outbox
		WHERE sent_at IS NULL AND failed_at IS NULL ORDER BY next_attempt_at LIMIT 1`).Scan(&at)
	if errors.Is(err, pgx.ErrNoRows) {
		return time.Time{}, false, nil
	}
	if err != nil {
		return time.Time{}, false, fmt.Errorf("store: next notification: %w", err)
	}
	return at, true, nil
}
