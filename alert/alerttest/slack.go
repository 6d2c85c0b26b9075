package alerttest

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// Slack is a Slack on loopback: incoming webhooks under /services/ and the Web API's
// chat.postMessage and chat.update under /api/, plus a generic webhook at GenericPath. It records every
// request and answers from a queue of canned answers per path, then with success.
type Slack struct {
	Server *httptest.Server

	mu       sync.Mutex
	requests []Request
	answers  map[string][]Answer
	ts       int
	arrived  chan struct{}
}

// Request is one request the fake received.
type Request struct {
	At     time.Time
	Path   string
	Header http.Header
	Body   string
}

// Answer is a canned answer.
type Answer struct {
	Status int
	Header map[string]string
	Body   string
}

// The secrets of the fake's endpoints: tests look for them in logs, where they must never be.
const (
	WebhookPath  = "/services/T0001/B0001/hooksecret0123456789"
	Token        = "xoxb-1111-2222-botsecret0123456789"
	GenericPath  = "/generic/hooksecret-generic"
	GenericToken = "generic-token-secret"
)

// The environment variables Env defines, for channels to name.
const (
	EnvWebhookURL   = "SLACK_HOOK"
	EnvToken        = "SLACK_TOKEN"
	EnvGenericURL   = "GENERIC_URL"
	EnvGenericToken = "GENERIC_TOKEN"
)

// NewSlack starts a fake Slack, closed when the test ends.
func NewSlack(t testing.TB) *Slack {
	t.Helper()
	f := &Slack{answers: map[string][]Answer{}, arrived: make(chan struct{}, 1000)}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Server.Close)
	return f
}

// WebhookURL is the incoming webhook's URL.
func (f *Slack) WebhookURL() string { return f.Server.URL + WebhookPath }

// APIURL replaces https://slack.com/api/ for bot-token channels.
func (f *Slack) APIURL() string { return f.Server.URL + "/api/" }

// GenericURL is the generic webhook's URL.
func (f *Slack) GenericURL() string { return f.Server.URL + GenericPath }

// Env is an environment holding the fake's secrets under the Env* names, as a dispatcher's
// LookupEnv reads them.
func (f *Slack) Env() func(string) (string, bool) {
	vars := map[string]string{
		EnvWebhookURL: f.WebhookURL(), EnvToken: Token,
		EnvGenericURL: f.GenericURL(), EnvGenericToken: GenericToken,
	}
	return func(k string) (string, bool) { v, ok := vars[k]; return v, ok }
}

// Answer queues answers for a path.
func (f *Slack) Answer(path string, as ...Answer) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.answers[path] = append(f.answers[path], as...)
}

func (f *Slack) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.requests = append(f.requests, Request{At: time.Now(), Path: r.URL.Path, Header: r.Header.Clone(), Body: string(body)})
	var a *Answer
	if q := f.answers[r.URL.Path]; len(q) > 0 {
		a = &q[0]
		f.answers[r.URL.Path] = q[1:]
	}
	f.ts++
	ts := f.ts
	f.mu.Unlock()
	defer func() { f.arrived <- struct{}{} }()

	if a != nil {
		for k, v := range a.Header {
			w.Header().Set(k, v)
		}
		w.WriteHeader(a.Status)
		_, _ = io.WriteString(w, a.Body)
		return
	}
	switch {
	case r.URL.Path == "/api/chat.postMessage":
		form, _ := url.ParseQuery(string(body))
		w.Header().Set("Content-Type", "application/json")
		if form.Get("token") != Token {
			_, _ = io.WriteString(w, `{"ok":false,"error":"invalid_auth"}`)
			return
		}
		fmt.Fprintf(w, `{"ok":true,"channel":"C0SKY","ts":"1700000000.%06d","message":{"text":"x"}}`, ts)
	case r.URL.Path == "/api/chat.update":
		// An edit keeps the message's channel and ts.
		form, _ := url.ParseQuery(string(body))
		w.Header().Set("Content-Type", "application/json")
		if form.Get("token") != Token {
			_, _ = io.WriteString(w, `{"ok":false,"error":"invalid_auth"}`)
			return
		}
		fmt.Fprintf(w, `{"ok":true,"channel":%q,"ts":%q,"text":"x"}`, form.Get("channel"), form.Get("ts"))
	case r.URL.Path == WebhookPath:
		_, _ = io.WriteString(w, "ok")
	case r.URL.Path == GenericPath:
		w.WriteHeader(http.StatusNoContent)
	default:
		http.Error(w, "no_service", http.StatusNotFound)
	}
}

// Requests returns the requests so far.
func (f *Slack) Requests() []Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Request(nil), f.requests...)
}

// WaitFor waits until n requests have arrived and returns them all.
func (f *Slack) WaitFor(t testing.TB, n int, within time.Duration) []Request {
	t.Helper()
	deadline := time.After(within)
	for {
		if got := f.Requests(); len(got) >= n {
			return got
		}
		select {
		case <-f.arrived:
		case <-deadline:
			got := f.Requests()
			var paths []string
			for _, r := range got {
				paths = append(paths, r.Path)
			}
			t.Fatalf("%d requests arrived within %v, want %d: %s", len(got), within, n, strings.Join(paths, ", "))
		}
	}
}
