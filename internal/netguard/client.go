package netguard

import (
	"errors"
	"net/http"
	"time"
)

// MaxRedirects bounds the redirects a guarded client follows.
const MaxRedirects = 5

// HTTPClient returns an HTTP client whose every connection, redirects included, is dialled
// through the guard, with no proxy (a proxy would dial on the guard's behalf) and at most
// MaxRedirects redirects. The prober has a client of its own: give it DialContext instead
// (probe.Options.DialContext) to keep its certificate and redirect handling.
func (g *Guard) HTTPClient(timeout time.Duration) *http.Client {
	tr := &http.Transport{
		Proxy:                 nil,
		DialContext:           g.DialContext,
		ForceAttemptHTTP2:     true,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: timeout,
		MaxIdleConns:          16,
		IdleConnTimeout:       30 * time.Second,
	}
	return &http.Client{
		Transport: tr,
		Timeout:   timeout,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= MaxRedirects {
				return errors.New("netguard: too many redirects")
			}
			return nil
		},
	}
}
