package alert

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/mcpwatch/mcpwatch/internal/redact"
)

// WebhookVersion is the version of the generic webhook's JSON body; it changes only if a field
// changes meaning or goes away.
const WebhookVersion = 1

// WebhookBody is what the generic webhook POSTs: the message with its headline and links.
type WebhookBody struct {
	Version int    `json:"version"`
	Title   string `json:"title"`
	Message
	// Codes is the exact error code, HTTP status and exit status in words.
	Codes string `json:"codes,omitempty"`
	// ServerURL is the server's dashboard page.
	ServerURL string `json:"serverUrl,omitempty"`
	// RunURL is the dashboard page of the run the evidence comes from.
	RunURL string `json:"runUrl,omitempty"`
}

// webhookSender POSTs messages as JSON to any URL.
type webhookSender struct {
	name    string
	url     string      // may be secret
	headers [][2]string // values may be secret
	client  *http.Client
	red     *redact.Redactor
}

var _ Sender = (*webhookSender)(nil)

// maxWebhookAnswer bounds what is read of an answer, for the error text.
const maxWebhookAnswer = 512

func (w *webhookSender) Send(ctx context.Context, m *Message, d Delivery) (string, error) {
	body, err := json.Marshal(WebhookBody{Version: WebhookVersion, Title: m.Title(), Message: *m,
		Codes: m.Codes(), ServerURL: ServerPage(d.DashboardURL, m.Server), RunURL: RunPage(d.DashboardURL, m.RunID)})
	if err != nil {
		return "", newSendError(w.name, w.red, 0, fmt.Errorf("encode: %w", err))
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.url, bytes.NewReader(body))
	if err != nil {
		return "", newSendError(w.name, w.red, 0, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "mcpwatch-alerts")
	for _, h := range w.headers {
		req.Header.Set(h[0], h[1])
	}
	resp, err := w.client.Do(req)
	if err != nil {
		return "", newSendError(w.name, w.red, 0, err)
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(io.LimitReader(resp.Body, maxWebhookAnswer))
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20)) // lets the connection be reused
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return "", nil
	}
	e := newSendError(w.name, w.red, resp.StatusCode, fmt.Errorf("HTTP status %d: %s", resp.StatusCode, bytes.TrimSpace(answer)))
	e.Permanent = permanentStatus(resp.StatusCode)
	if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable {
		e.RetryAfter = parseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
	}
	return "", e
}
