package alert

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/internal/testkit/syncbuf"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/mcpwatch/mcpwatch/alert/alerttest"
	"github.com/mcpwatch/mcpwatch/internal/testkit/pgtest"
	"github.com/mcpwatch/mcpwatch/store"
)

func hookChannel() ChannelConfig {
	return ChannelConfig{Name: "hook", Type: ChannelSlack, WebhookURLEnv: alerttest.EnvWebhookURL}
}

func botChannel(f *alerttest.Slack) ChannelConfig {
	return ChannelConfig{Name: "bot", Type: ChannelSlack, TokenEnv: alerttest.EnvToken, Channel: "#mcp-alerts", APIURL: f.APIURL()}
}

func genericChannel() ChannelConfig {
	return ChannelConfig{Name: "generic", Type: ChannelWebhook, URLEnv: alerttest.EnvGenericURL,
		Headers: []WebhookHeader{{Name: "Authorization", FromEnv: alerttest.EnvGenericToken, Prefix: "Bearer "}}}
}

// fastDelivery makes retries quick enough for a test.
func fastDelivery(c *Config) {
	c.Delivery = DeliveryConfig{MinBackoff: 100 * time.Millisecond, MaxBackoff: time.Second, PollInterval: 50 * time.Millisecond, Timeout: 5 * time.Second}
}

// process is what one monitor process runs: an engine and a dispatcher on its own pool.
type process struct {
	store  *store.Store
	engine *Engine
	disp   *Dispatcher
}

func startProcess(t *testing.T, db pgtest.DB, cfg Config, f *alerttest.Slack, logs *syncbuf.Buffer, worker string) *process {
	t.Helper()
	st := store.New(db.Pool(t))
	logger := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	disp, err := NewDispatcher(st, &cfg, DispatcherOptions{Worker: worker, Logger: logger, LookupEnv: f.Env(),
		HTTPClient: f.Server.Client(), DashboardURL: "https://status.example.com"})
	if err != nil {
		t.Fatal(err)
	}
	eng, err := NewEngine(st, &cfg, EngineOptions{Logger: logger, OnNotify: disp.Wake})
	if err != nil {
		t.Fatal(err)
	}
	return &process{store: st, engine: eng, disp: disp}
}

// run runs the dispatcher until the returned stop is called; stop waits for Run to return.
func (p *process) run(t *testing.T) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.disp.Run(ctx) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("Run: %v", err)
				}
			case <-time.After(30 * time.Second):
				t.Error("Run did not return after its context ended")
			}
		})
	}
	t.Cleanup(stop)
	return stop
}

func observeAll(t *testing.T, e *Engine, runs ...Observation) {
	t.Helper()
	for _, o := range runs {
		if err := e.Observe(testContext(t), o); err != nil {
			t.Fatal(err)
		}
	}
}

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

type outboxRow struct {
	Channel   string
	Attempts  int
	Sent      bool
	Failed    bool
	LastError string
}

func outbox(t *testing.T, pool *pgxpool.Pool) []outboxRow {
	t.Helper()
	rows, err := pool.Query(testContext(t), `SELECT channel, attempts, sent_at IS NOT NULL, failed_at IS NOT NULL, last_error FROM alert_outbox ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []outboxRow
	for rows.Next() {
		var r outboxRow
		if err := rows.Scan(&r.Channel, &r.Attempts, &r.Sent, &r.Failed, &r.LastError); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

// eventually polls cond until it holds.
func eventually(t *testing.T, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not within %v: %s", within, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestDispatcherRetries5xxAnd429HonouringRetryAfterWithoutLoggingSecrets(t *testing.T) {
	t.Parallel()
	db, pool := pgtest.Migrated(t)
	f := alerttest.NewSlack(t)
	f.Answer(alerttest.WebhookPath,
		alerttest.Answer{Status: http.StatusInternalServerError, Body: "internal_error"},
		alerttest.Answer{Status: http.StatusTooManyRequests, Header: map[string]string{"Retry-After": "1"}, Body: "rate_limited"})
	f.Answer("/api/chat.postMessage",
		alerttest.Answer{Status: http.StatusServiceUnavailable},
		alerttest.Answer{Status: http.StatusTooManyRequests, Header: map[string]string{"Retry-After": "1"}})
	cfg := config(only(KindDown), fastDelivery, func(c *Config) {
		c.Down.FailureThreshold = 1
		c.Channels = []ChannelConfig{hookChannel(), botChannel(f)}
	})
	logs := &syncbuf.Buffer{}
	p := startProcess(t, db, cfg, f, logs, "w1")
	p.run(t)
	observeAll(t, p.engine, obs(0, "eu", down))

	// After the first failure, and before the channel accepted it, nothing counts as sent.
	f.WaitFor(t, 2, 30*time.Second)
	for _, r := range outbox(t, pool) {
		if r.Sent {
			t.Errorf("channel %s: marked sent after a failed attempt", r.Channel)
		}
	}

	reqs := f.WaitFor(t, 6, 30*time.Second)
	byPath := map[string][]time.Time{}
	for _, r := range reqs {
		byPath[r.Path] = append(byPath[r.Path], r.At)
	}
	for path, at := range byPath {
		if len(at) != 3 {
			t.Fatalf("%s: %d attempts, want 3 (5xx, 429, success)", path, len(at))
		}
		if gap := at[1].Sub(at[0]); gap < 100*time.Millisecond {
			t.Errorf("%s: retry after a 5xx came %v later, before the backoff of 100ms", path, gap)
		}
		if gap := at[2].Sub(at[1]); gap < time.Second {
			t.Errorf("%s: retry after 429 Retry-After: 1 came %v later", path, gap)
		}
	}
	eventually(t, 10*time.Second, "both notifications recorded as sent", func() bool {
		rows := outbox(t, pool)
		return len(rows) == 2 && rows[0].Sent && rows[1].Sent
	})
	for _, r := range outbox(t, pool) {
		if r.Attempts != 3 || r.Failed || r.LastError != "" {
			t.Errorf("outbox row %+v, want sent on the third attempt", r)
		}
	}
	text := logs.String()
	if !strings.Contains(text, "will retry") || !strings.Contains(text, "notification sent") {
		t.Errorf("the logs do not tell of the retries:\n%s", text)
	}
	for _, secret := range []string{"hooksecret", "botsecret", alerttest.Token} {
		if strings.Contains(text, secret) {
			t.Errorf("the logs show the secret %q:\n%s", secret, text)
		}
	}
}

func TestDispatcherGivesUpOnPermanentErrorsWithoutMarkingSent(t *testing.T) {
	t.Parallel()
	db, pool := pgtest.Migrated(t)
	f := alerttest.NewSlack(t)
	f.Answer(alerttest.WebhookPath, alerttest.Answer{Status: http.StatusNotFound, Body: "no_service"})
	cfg := config(only(KindDown), fastDelivery, func(c *Config) {
		c.Down.FailureThreshold = 1
		c.Channels = []ChannelConfig{hookChannel()}
	})
	p := startProcess(t, db, cfg, f, &syncbuf.Buffer{}, "w1")
	observeAll(t, p.engine, obs(0, "eu", down))
	if n, err := p.disp.DispatchOnce(testContext(t)); n != 1 || err != nil {
		t.Fatalf("DispatchOnce = %d, %v", n, err)
	}
	rows := outbox(t, pool)
	if len(rows) != 1 || rows[0].Sent || !rows[0].Failed || !strings.Contains(rows[0].LastError, "404") {
		t.Errorf("outbox %+v, want one given-up notification with the 404", rows)
	}
	if n, _ := p.disp.DispatchOnce(testContext(t)); n != 0 {
		t.Errorf("a given-up notification was claimed again")
	}
}

func TestTwoDispatchersSendOneMessagePerTransition(t *testing.T) {
	t.Parallel()
	db, pool := pgtest.Migrated(t)
	f := alerttest.NewSlack(t)
	cfg := config(only(KindDown), fastDelivery, func(c *Config) {
		c.Down.FailureThreshold = 1
		c.Channels = []ChannelConfig{genericChannel()}
		c.Delivery.BatchSize = 3
	})
	a := startProcess(t, db, cfg, f, &syncbuf.Buffer{}, "a")
	b := startProcess(t, db, cfg, f, &syncbuf.Buffer{}, "b")
	a.run(t)
	b.run(t)
	const servers = 40
	var wg sync.WaitGroup
	for i, p := range []*process{a, b} {
		wg.Go(func() {
			for s := i; s < servers; s += 2 {
				o := obs(0, "eu", down)
				o.ServerID, o.Server = int64(100+s), fmt.Sprintf("server-%02d", s)
				o2 := o
				o2.At, o2.Outcome = o.At.Add(m), up
				if err := p.engine.Observe(context.Background(), o); err != nil {
					t.Error(err)
				}
				if err := p.engine.Observe(context.Background(), o2); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	f.WaitFor(t, 2*servers, time.Minute)
	eventually(t, 30*time.Second, "every notification recorded as sent", func() bool {
		for _, r := range outbox(t, pool) {
			if !r.Sent {
				return false
			}
		}
		return true
	})
	time.Sleep(300 * time.Millisecond) // several polls of both: nothing more may come
	reqs := f.Requests()
	if len(reqs) != 2*servers {
		t.Fatalf("%d messages, want %d", len(reqs), 2*servers)
	}
	seen := map[string]int{}
	order := map[string][]string{}
	for _, r := range reqs {
		inc, ev := incidentOf(t, r.Body)
		seen[inc+" "+ev]++
		order[inc] = append(order[inc], ev)
	}
	for k, n := range seen {
		if n != 1 {
			t.Errorf("%s delivered %d times", k, n)
		}
	}
	if len(order) != servers {
		t.Errorf("%d incidents, want %d", len(order), servers)
	}
	for inc, evs := range order {
		if len(evs) != 2 || evs[0] != EventFiring || evs[1] != EventResolved {
			t.Errorf("incident %s: delivered %q, want firing then resolved", inc, evs)
		}
	}
	claimers := map[string]bool{}
	rows, err := pool.Query(testContext(t), `SELECT DISTINCT claimed_by FROM alert_outbox`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var w string
		_ = rows.Scan(&w)
		claimers[w] = true
	}
	rows.Close()
	t.Logf("notifications claimed by %v", claimers)
}

func TestEnginesJudgeRunsOfOneServerOneAtATime(t *testing.T) {
	t.Parallel()
	db, pool := pgtest.Migrated(t)
	f := alerttest.NewSlack(t)
	cfg := config(only(KindDown), func(c *Config) { c.Channels = []ChannelConfig{genericChannel()} })
	a := startProcess(t, db, cfg, f, &syncbuf.Buffer{}, "a")
	b := startProcess(t, db, cfg, f, &syncbuf.Buffer{}, "b")
	var wg sync.WaitGroup
	for i, p := range []*process{a, b} {
		region := []string{"eu", "us"}[i]
		wg.Go(func() {
			for k := range 15 {
				if err := p.engine.Observe(context.Background(), obs(time.Duration(k)*m, region, down)); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	// One region fails first and fires the alert; the other joins it later: an update.
	var fired, changed, notes int
	if err := pool.QueryRow(testContext(t), `SELECT count(*) FILTER (WHERE event = 'fired'), count(*) FILTER (WHERE event = 'changed'),
			(SELECT count(*) FROM alert_outbox) FROM alert_history`).Scan(&fired, &changed, &notes); err != nil {
		t.Fatal(err)
	}
	if fired != 1 || changed != 1 || notes != 2 {
		t.Errorf("%d fired and %d changed events, %d notifications; want 1, 1 and 2", fired, changed, notes)
	}
	var regions []byte
	if err := pool.QueryRow(testContext(t), `SELECT data FROM alert_memory WHERE server_id = 7 AND part = 'regions'`).Scan(&regions); err != nil {
		t.Fatal(err)
	}
	var mem map[string]regionMemory
	if err := json.Unmarshal(regions, &mem); err != nil || mem["eu"].Downs != 15 || mem["us"].Downs != 15 {
		t.Errorf("region memory %s: every run of both regions should count", regions)
	}
}
