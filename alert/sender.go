package alert

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/mcpwatch/mcpwatch/internal/redact"
)

// Sender delivers messages to one configured channel.
type Sender interface {
	// Send delivers m and returns a reference to the delivered message ("" when the channel
	// gives none), which later messages of the incident receive as Delivery.ThreadRef. A
	// failure is a *SendError.
	Send(ctx context.Context, m *Message, d Delivery) (ref string, err error)
}

// Delivery is how one notification is to be delivered.
type Delivery struct {
	// Target replaces the channel's destination (a Slack channel picked by a route).
	Target string
	// ThreadRef is the reference of the incident's first delivered message on this channel.
	ThreadRef string
	// DashboardURL is the dashboard's base URL, for the link to the server's page.
	DashboardURL string
}

// SendError is a failed delivery. Its text never holds a secret of the channel.
type SendError struct {
	Channel string
	// Status is the HTTP status of the answer (0: none came).
	Status int
	// RetryAfter is how long the receiver asked to wait (429 Retry-After), 0 if it did not.
	RetryAfter time.Duration
	// Permanent: retrying the same request cannot succeed (bad credentials, no such channel,
	// a malformed message).
	Permanent bool
	msg       string
}

func (e *SendError) Error() string {
	return fmt.Sprintf("alert: send to channel %s: %s", e.Channel, e.msg)
}

// newSendError wraps a delivery failure, redacting the channel's secrets from its text.
func newSendError(channel string, red *redact.Redactor, status int, err error) *SendError {
	return &SendError{Channel: channel, Status: status, msg: red.String(err.Error())}
}

// permanentStatus reports HTTP statuses that a retry cannot change.
func permanentStatus(status int) bool {
	return status >= 400 && status < 500 && status != http.StatusRequestTimeout &&
		status != http.StatusTooEarly && status != http.StatusTooManyRequests
}

// parseRetryAfter reads a Retry-After header: seconds or an HTTP date.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseInt(v, 10, 64); err == nil {
		if s <= 0 {
			return 0
		}
		return time.Duration(min(s, int64(maxRetryAfter/time.Second))) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return min(t.Sub(now), maxRetryAfter)
	}
	return 0
}

// urlSecrets are the forms in which a secret URL can show up in an error: whole, or its path
// and query (a webhook URL's secret is its path), which a receiver may echo.
func urlSecrets(raw string) []string {
	out := []string{raw}
	if u, err := url.Parse(raw); err == nil {
		if p := u.EscapedPath(); len(p) > 1 {
			out = append(out, p, strings.TrimPrefix(p, "/"))
		}
		if u.RawQuery != "" {
			out = append(out, u.RawQuery)
		}
	}
	return out
}

// maxRetryAfter caps how long a receiver may make a notification wait.
const maxRetryAfter = time.Hour

// ErrMissingSecret is wrapped by NewSenders when a channel's environment variable is unset.
var ErrMissingSecret = errors.New("alert: environment variable not set")

// NewSenders makes a Sender for each configured channel, reading secrets with lookupEnv
// (os.LookupEnv in production) and sending with client, whose Timeout should be unset: each
// attempt is bounded by delivery.timeout through its context.
func NewSenders(cfg *Config, lookupEnv func(string) (string, bool), client *http.Client) (map[string]Sender, error) {
	out := map[string]Sender{}
	var errs []error
	env := func(ch, key, name string) string {
		v, ok := lookupEnv(name)
		if !ok || strings.TrimSpace(v) == "" {
			errs = append(errs, fmt.Errorf("%w: channel %s: %s names $%s, which is empty or unset", ErrMissingSecret, ch, key, name))
		}
		return strings.TrimSpace(v)
	}
	for _, ch := range cfg.Channels {
		switch ch.Type {
		case ChannelSlack:
			s := &slackSender{name: ch.Name, channel: ch.Channel, apiURL: ch.APIURL, client: client}
			if ch.WebhookURLEnv != "" {
				s.webhookURL = env(ch.Name, "webhook-url-env", ch.WebhookURLEnv)
				s.red = redact.New(urlSecrets(s.webhookURL)...)
			} else {
				s.token = env(ch.Name, "token-env", ch.TokenEnv)
				s.red = redact.New(s.token)
			}
			s.init()
			out[ch.Name] = s
		case ChannelWebhook:
			w := &webhookSender{name: ch.Name, url: ch.URL, client: client}
			if ch.URLEnv != "" {
				w.url = env(ch.Name, "url-env", ch.URLEnv)
				if w.url != "" {
					if err := checkHTTPURL(w.url); err != nil {
						errs = append(errs, fmt.Errorf("channel %s: $%s: not an http(s) URL", ch.Name, ch.URLEnv))
					}
				}
			}
			secrets := urlSecrets(w.url)
			for _, h := range ch.Headers {
				v := h.Prefix + env(ch.Name, "headers", h.FromEnv)
				w.headers = append(w.headers, [2]string{h.Name, v})
				secrets = append(secrets, v)
			}
			w.red = redact.New(secrets...)
			out[ch.Name] = w
		default:
			errs = append(errs, fmt.Errorf("channel %s: unknown type %q", ch.Name, ch.Type))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}
