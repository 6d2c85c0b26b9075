package alert

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"os"
	"time"

	"github.com/mcpwatch/mcpwatch/store"
)

// Dispatcher delivers the notifications of the outbox. Any number of dispatchers (one per
// monitor process) may run on one database: each notification is claimed by one of them at a
// time, is marked sent only once its channel accepted it, and is retried with backoff
// otherwise.
type Dispatcher struct {
	store        Outbox
	senders      map[string]Sender
	delivery     DeliveryConfig
	dashboardURL string
	worker       string
	logger       *slog.Logger
	wake         chan struct{}
}

// DispatcherOptions are the optional parts of a Dispatcher.
type DispatcherOptions struct {
	// Worker names this dispatcher in the outbox (default host name and process id).
	Worker string
	Logger *slog.Logger
	// DashboardURL overrides the config's dashboard-url (the --dashboard-url flag).
	DashboardURL string
	// LookupEnv reads the channels' secrets (default os.LookupEnv).
	LookupEnv func(string) (string, bool)
	// HTTPClient sends (default: a client of its own); attempts are bounded by
	// delivery.timeout whatever its Timeout.
	HTTPClient *http.Client
	// Senders replaces the senders made from the config's channels, by channel name.
	Senders map[string]Sender
}

// NewDispatcher makes a dispatcher for the channels of cfg (validated here if it was not).
func NewDispatcher(st Outbox, cfg *Config, opts DispatcherOptions) (*Dispatcher, error) {
	if err := cfg.ValidateAndSetDefaults(); err != nil {
		return nil, err
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Worker == "" {
		host, _ := os.Hostname()
		opts.Worker = fmt.Sprintf("%s-%d", host, os.Getpid())
	}
	if opts.DashboardURL == "" {
		opts.DashboardURL = cfg.DashboardURL
	} else if err := checkHTTPURL(opts.DashboardURL); err != nil {
		return nil, fmt.Errorf("alert: dashboard URL: %w", err)
	}
	senders := opts.Senders
	if senders == nil {
		if opts.LookupEnv == nil {
			opts.LookupEnv = os.LookupEnv
		}
		if opts.HTTPClient == nil {
			opts.HTTPClient = &http.Client{}
		}
		var err error
		if senders, err = NewSenders(cfg, opts.LookupEnv, opts.HTTPClient); err != nil {
			return nil, err
		}
	}
	return &Dispatcher{store: st, senders: senders, delivery: cfg.Delivery, dashboardURL: opts.DashboardURL,
		worker: opts.Worker, logger: opts.Logger, wake: make(chan struct{}, 1)}, nil
}

// Wake makes Run look at the outbox now rather than at its next poll. It never blocks.
func (d *Dispatcher) Wake() {
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// Run delivers notifications until ctx ends, then returns nil. Database errors are logged
// and retried at the next poll.
func (d *Dispatcher) Run(ctx context.Context) error {
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-timer.C:
		case <-d.wake:
		}
		n, err := d.DispatchOnce(ctx)
		if ctx.Err() != nil {
			return nil
		}
		wait := d.delivery.PollInterval
		switch {
		case err != nil:
			d.logger.Warn("alert outbox", "err", err)
		case n == d.delivery.BatchSize:
			wait = 0 // more may be due
		default:
			// Sleep to the next due notification (a Retry-After shorter than the poll).
			if at, ok, err := d.store.NextNotificationDue(ctx); err == nil && ok {
				wait = max(min(wait, time.Until(at)), time.Millisecond)
			}
		}
		if !timer.Stop() {
			select {
			case <-timer.C:
			default:
			}
		}
		timer.Reset(wait)
	}
}

// DispatchOnce claims one batch of due notifications and tries each once; it returns how many
// it claimed.
func (d *Dispatcher) DispatchOnce(ctx context.Context) (int, error) {
	// The lease covers every attempt of the batch, which runs one after the other, so that
	// no other dispatcher takes a notification this one is still about to send.
	lease := time.Duration(d.delivery.BatchSize)*d.delivery.Timeout + 30*time.Second
	batch, err := d.store.ClaimNotifications(ctx, d.worker, d.delivery.BatchSize, lease)
	if err != nil {
		return 0, err
	}
	for _, n := range batch {
		if ctx.Err() != nil {
			// Shutting down: hand the rest back, due at once, for another dispatcher.
			release, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			_ = d.store.NotificationFailed(release, n, time.Now(), "not attempted: the dispatcher shut down", false)
			cancel()
			continue
		}
		d.deliver(ctx, n)
	}
	return len(batch), nil
}

func (d *Dispatcher) deliver(ctx context.Context, n store.Notification) {
	log := d.logger.With("notification", n.ID, "channel", n.Channel, "incident", n.Incident, "attempt", n.Attempts)
	var m Message
	if err := json.Unmarshal(n.Payload, &m); err != nil {
		d.settle(ctx, log, n, "", fmt.Errorf("decode payload: %w", err), true)
		return
	}
	log = log.With("server", m.Server, "kind", m.Kind, "event", m.Event)
	s := d.senders[n.Channel]
	if s == nil {
		d.settle(ctx, log, n, "", fmt.Errorf("channel %q is not configured (any more)", n.Channel), true)
		return
	}
	// A send under way finishes (within its timeout) even when Run is stopped: cut short, it
	// could have reached the channel without being recorded, and be sent again.
	sendCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), d.delivery.Timeout)
	ref, err := s.Send(sendCtx, &m, Delivery{Target: n.Target, ThreadRef: n.ThreadRef, DashboardURL: d.dashboardURL})
	cancel()
	d.settle(ctx, log, n, ref, err, false)
}

// settle records the outcome of an attempt.
func (d *Dispatcher) settle(ctx context.Context, log *slog.Logger, n store.Notification, ref string, err error, giveUp bool) {
	// The outcome is recorded even while shutting down: a sent message not marked sent would
	// be sent again.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if err == nil {
		if err := d.store.NotificationSent(ctx, n, ref); err != nil {
			log.Error("notification delivered but not recorded as sent", "err", err)
			return
		}
		log.Info("notification sent")
		return
	}
	var se *SendError
	isSendErr := errors.As(err, &se)
	if (isSendErr && se.Permanent) || n.Attempts >= d.delivery.MaxAttempts {
		giveUp = true
	}
	wait := d.backoff(n.Attempts)
	if isSendErr && se.RetryAfter > 0 {
		wait = se.RetryAfter
	}
	retryAt := time.Now().Add(wait)
	if rerr := d.store.NotificationFailed(ctx, n, retryAt, err.Error(), giveUp); rerr != nil {
		log.Error("recording a failed notification", "err", rerr, "sendErr", err)
		return
	}
	if giveUp {
		log.Error("notification given up", "err", err)
		return
	}
	log.Warn("notification failed, will retry", "err", err, "retryIn", wait.Round(time.Millisecond))
}

// backoff doubles from min-backoff with each attempt up to max-backoff, with up to a fifth
// of jitter so that dispatchers retrying together do not stay together.
func (d *Dispatcher) backoff(attempts int) time.Duration {
	b := d.delivery.MinBackoff
	for i := 1; i < attempts && b < d.delivery.MaxBackoff; i++ {
		b *= 2
	}
	b = min(b, d.delivery.MaxBackoff)
	return b + rand.N(b/5+1)
}
