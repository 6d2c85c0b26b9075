package probe

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"
)

// Bounds of the probe's own HTTP client.
const (
	httpDialTimeout     = 10 * time.Second
	httpTLSTimeout      = 10 * time.Second
	httpMaxRedirects    = 5
	httpMaxHeaderBytes  = 256 << 10
	httpIdleConnTimeout = 30 * time.Second
	httpMaxIdleConns    = 4
)

// newProbeClient builds the client one connection uses when Options.HTTPClient is not set:
// http.Transport for https, http1Transport for plain http (see there for why).
//
// Certificates are not verified by the handshake but afterwards (certChecker), so that a
// server with an expired or self-signed certificate can still be probed and the fault
// reported. The exception: a target the user gave credentials for is refused on a bad
// certificate, since sending a token to an unauthenticated peer would leak it.
func newProbeClient(o Options, u *url.URL, conn int, hasCredentials bool, certs *certChecker) *http.Client {
	host := u.Hostname()
	if o.DialContext == nil {
		// No TCP keep-alive: a probe's sockets live seconds, and turning it on cost four
		// setsockopt calls per socket.
		dialer := &net.Dialer{Timeout: httpDialTimeout, KeepAlive: -1}
		o.DialContext = dialer.DialContext
	}
	// The https transport, with its TLS configuration, is built only when a request needs it:
	// a plain-http connection seldom does (see http1Transport.other), and a probe opens
	// a dozen connections.
	newTransport := func() *http.Transport {
		tlsConfig := &tls.Config{
			// Verification happens in VerifyConnection (and certChecker) instead.
			InsecureSkipVerify: true, //nolint:gosec // see above: verified by hand, never skipped silently
			VerifyConnection: func(cs tls.ConnectionState) error {
				if !hasCredentials || certs.skip {
					return nil
				}
				// An IP address is not sent as SNI, so the state may not name the host.
				name := cs.ServerName
				if name == "" {
					name = host
				}
				if reason := certs.verify(cs, name); reason != "" {
					return fmt.Errorf("refusing to send credentials to %s: certificate does not verify: %s", name, reason)
				}
				return nil
			},
		}
		// Every exchange has a deadline of its own (see newExchangeTo), which covers the wait
		// for the response head too.
		return &http.Transport{
			// No proxy: the probe measures the server, and a proxy would change every phase.
			Proxy:                  nil,
			DialContext:            o.DialContext,
			TLSClientConfig:        tlsConfig,
			TLSHandshakeTimeout:    httpTLSTimeout,
			MaxResponseHeaderBytes: httpMaxHeaderBytes,
			// Bodies are recorded as they travel, and limits count wire bytes.
			DisableCompression: true,
			// HTTP/2 needs TLS here (no h2c); setting it up costs every connection's client.
			ForceAttemptHTTP2: u.Scheme == "https",
			MaxIdleConns:      httpMaxIdleConns,
			IdleConnTimeout:   httpIdleConnTimeout,
		}
	}
	if u.Scheme != "http" {
		return &http.Client{Transport: newTransport(), CheckRedirect: redirectPolicy()}
	}
	h1 := &http1Transport{dial: o.DialContext, maxHeaderBytes: httpMaxHeaderBytes, other: &lazyTransport{make: newTransport}, idle: &http1Idle{}, owner: conn}
	if o.sockets != nil {
		h1.idle, h1.shared = &o.sockets.idle, true
	}
	return &http.Client{Transport: h1, CheckRedirect: redirectPolicy()}
}

// lazyTransport is an http.Transport made by the first request that needs one.
type lazyTransport struct {
	make func() *http.Transport
	once sync.Once
	tr   *http.Transport
	mu   sync.Mutex // guards tr for CloseIdleConnections, which may run before any request
}

func (l *lazyTransport) transport() *http.Transport {
	l.once.Do(func() {
		tr := l.make()
		l.mu.Lock()
		l.tr = tr
		l.mu.Unlock()
	})
	return l.tr
}

func (l *lazyTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	return l.transport().RoundTrip(req)
}

// CloseIdleConnections closes the idle connections of the transport, if one was made.
func (l *lazyTransport) CloseIdleConnections() {
	l.mu.Lock()
	tr := l.tr
	l.mu.Unlock()
	if tr != nil {
		tr.CloseIdleConnections()
	}
}

// redirectPolicy decides which redirects the client follows: none of an MCP request, and of
// a document fetch that asked for it (exchangeTarget.followRedirects) at most
// httpMaxRedirects on the origin (scheme, host, port) of the first request, keeping the
// method. A redirect not followed is handed to the caller as the answer: it is evidence, and
// the checks judge it (a POSTed message answered with a redirect fails http.status).
//
// No transport of the specification asks a client to follow a redirect (2025-11-25
// basic/transports: a POSTed message is answered with a JSON-RPC response, 202 or an event
// stream). Following one to another origin would re-POST the message there and make that
// host's answer evidence in the report: a server could make the probe fetch and echo
// internal addresses. A 301, 302 or 303 would also turn the POST into a GET and lose the
// message.
func redirectPolicy() func(req *http.Request, via []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		first := via[0]
		if !followsRedirects(first.Context()) || len(via) > httpMaxRedirects ||
			req.Method != first.Method || !SameOrigin(req.URL, first.URL) {
			return http.ErrUseLastResponse
		}
		return nil
	}
}

// followRedirectsKey marks the context of a request whose same-origin redirects the client
// follows (see redirectPolicy).
type followRedirectsKey struct{}

// withRedirectsFollowed lets the client follow same-origin redirects of requests made with ctx.
func withRedirectsFollowed(ctx context.Context) context.Context {
	return context.WithValue(ctx, followRedirectsKey{}, true)
}

func followsRedirects(ctx context.Context) bool {
	follow, _ := ctx.Value(followRedirectsKey{}).(bool)
	return follow
}

// withProbePolicy is a copy of a client given in Options.HTTPClient with the probe's redirect
// policy: the client's own (net/http's default follows ten redirects anywhere) would undo it.
func withProbePolicy(c *http.Client) *http.Client {
	own := *c
	own.CheckRedirect = redirectPolicy()
	return &own
}

// certChecker verifies server certificate chains against the system roots (or roots, when
// set) and remembers the last answer, since every exchange of a connection usually sees the
// same certificate. With skip it verifies nothing.
type certChecker struct {
	roots *x509.CertPool
	skip  bool

	mu     sync.Mutex
	leaf   []byte
	host   string
	reason string
}

// verify returns why the peer chain of cs does not verify for host ("" if it does).
func (c *certChecker) verify(cs tls.ConnectionState, host string) string {
	if len(cs.VerifiedChains) > 0 || c.skip {
		return "" // the client's own configuration verified it, or the user turned verifying off
	}
	if len(cs.PeerCertificates) == 0 {
		return "the server sent no certificate"
	}
	leaf := cs.PeerCertificates[0]
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.leaf != nil && c.host == host && string(c.leaf) == string(leaf.Raw) {
		return c.reason
	}
	inter := x509.NewCertPool()
	for _, cert := range cs.PeerCertificates[1:] {
		inter.AddCert(cert)
	}
	reason := ""
	if _, err := leaf.Verify(x509.VerifyOptions{DNSName: host, Intermediates: inter, Roots: c.roots}); err != nil {
		reason = err.Error()
		var sys x509.SystemRootsError
		if errors.As(err, &sys) {
			reason = "no system roots to verify against: " + reason
		}
	}
	c.leaf, c.host, c.reason = leaf.Raw, host, reason
	return reason
}

// tlsInfo describes the certificate a response came with (nil for plain http); host is the
// one the request was for.
func (c *certChecker) tlsInfo(cs *tls.ConnectionState, host string) *TLSInfo {
	if cs == nil || len(cs.PeerCertificates) == 0 {
		return nil
	}
	leaf := cs.PeerCertificates[0]
	return &TLSInfo{
		Version:     tls.VersionName(cs.Version),
		Subject:     leaf.Subject.String(),
		Issuer:      leaf.Issuer.String(),
		NotAfter:    leaf.NotAfter,
		DNSNames:    append([]string(nil), leaf.DNSNames...),
		VerifyError: c.verify(*cs, host),
		Unverified:  c.skip,
	}
}
