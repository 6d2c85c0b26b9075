package probe

import (
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
func newProbeClient(o Options, u *url.URL, secrets *redactor, hasCredentials bool, certs *certChecker) *http.Client {
	host := u.Hostname()
	if o.DialContext == nil {
		dialer := &net.Dialer{Timeout: httpDialTimeout, KeepAlive: 30 * time.Second}
		o.DialContext = dialer.DialContext
	}
	tlsConfig := &tls.Config{
		// Verification happens in VerifyConnection (and certChecker) instead.
		InsecureSkipVerify: true, //nolint:gosec // see above: verified by hand, never skipped silently
		VerifyConnection: func(cs tls.ConnectionState) error {
			if !hasCredentials {
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
	tr := &http.Transport{
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
	client := &http.Client{Transport: tr, CheckRedirect: redirectPolicy(secrets)}
	if u.Scheme == "http" {
		client.Transport = &http1Transport{dial: o.DialContext, maxHeaderBytes: httpMaxHeaderBytes, other: tr}
	}
	return client
}

// redirectPolicy follows at most httpMaxRedirects redirects and then hands the last redirect
// response to the caller (it is evidence: the checks report the status). A redirect that
// would turn the POST into a GET (301, 302, 303) is not followed either: the message would
// be lost and a GET may open a stream that never answers. net/http already drops
// Authorization and Cookie when a redirect leaves the original host; the user's other
// headers are secrets too, so they are dropped the same way.
func redirectPolicy(secrets *redactor) func(req *http.Request, via []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		if len(via) > httpMaxRedirects || (len(via) > 0 && req.Method != via[0].Method) {
			return http.ErrUseLastResponse
		}
		if len(via) > 0 && req.URL.Host != via[0].URL.Host {
			for name := range req.Header {
				if secrets.names[http.CanonicalHeaderKey(name)] || alwaysSecret(http.CanonicalHeaderKey(name)) {
					req.Header.Del(name)
				}
			}
		}
		return nil
	}
}

// certChecker verifies server certificate chains against the system roots and remembers the
// last answer, since every exchange of a connection usually sees the same certificate.
type certChecker struct {
	mu     sync.Mutex
	leaf   []byte
	host   string
	reason string
}

// verify returns why the peer chain of cs does not verify for host ("" if it does).
func (c *certChecker) verify(cs tls.ConnectionState, host string) string {
	if len(cs.VerifiedChains) > 0 {
		return "" // the client's own configuration verified it
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
	if _, err := leaf.Verify(x509.VerifyOptions{DNSName: host, Intermediates: inter}); err != nil {
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
	}
}
