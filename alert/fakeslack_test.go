package alert

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

// fakeSlack is a Slack on loopback: incoming webhooks under /services/ and the Web API's
// chat.postMessage under /api/. It records every request and answers from a queue of canned
// answers per path, then with success.
type fakeSlack struct {
	srv *httptest.Server

	mu       sync.Mutex
	requests []fakeRequest
	answers  map[string][]fakeAnswer
	ts       int
	arrived  chan struct{}
}

type fakeRequest struct {
	At     time.Time
	Path   string
	Header http.Header
	Body   string
}

type fakeAnswer struct {
	Status int
	Header map[string]string
	Body   string
}

const (
	fakeWebhookPath = "/services/T0001/B0001/hooksecret0123456789"
	fakeToken       = "xoxb-1111-2222-botsecret0123456789"
	fakeGenericPath = "/generic/hooksecret-generic"
)

func newFakeSlack(t *testing.T) *fakeSlack {
	f := &fakeSlack{answers: map[string][]fakeAnswer{}, arrived: make(chan struct{}, 1000)}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeSlack) webhookURL() string { return f.srv.URL + fakeWebhookPath }
func (f *fakeSlack) apiURL() string     { return f.srv.URL + "/api/" }

// answer queues answers for a path.
func (f *fakeSlack) answer(path string, as ...fakeAnswer) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.answers[path] = append(f.answers[path], as...)
}

func (f *fakeSlack) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.requests = append(f.requests, fakeRequest{At: time.Now(), Path: r.URL.Path, Header: r.Header.Clone(), Body: string(body)})
	var a *fakeAnswer
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
		if form.Get("token") != fakeToken {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"ok":false,"error":"invalid_auth"}`)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"ok":true,"channel":"C0SKY","ts":"1700000000.%06d","message":{"text":"x"}}`, ts)
	case r.URL.Path == fakeWebhookPath:
		_, _ = io.WriteString(w, "ok")
	case r.URL.Path == fakeGenericPath:
		w.WriteHeader(http.StatusNoContent)
	default:
		http.Error(w, "no_service", http.StatusNotFound)
	}
}

// all returns the requests so far.
func (f *fakeSlack) all() []fakeRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]fakeRequest(nil), f.requests...)
}

// waitFor waits until n requests have arrived.
func (f *fakeSlack) waitFor(t *testing.T, n int, within time.Duration) []fakeRequest {
	t.Helper()
	deadline := time.After(within)
	for {
		if got := f.all(); len(got) >= n {
			return got
		}
		select {
		case <-f.arrived:
		case <-deadline:
			got := f.all()
			var paths []string
			for _, r := range got {
				paths = append(paths, r.Path)
			}
			t.Fatalf("%d requests arrived within %v, want %d: %s", len(got), within, n, strings.Join(paths, ", "))
		}
	}
}
