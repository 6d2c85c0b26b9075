package probe

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/url"
)

// The tls.version probe: one TLS handshake with an https server that offers only TLS 1.0
// and 1.1 (RFC 8996 forbids both; RFC 9325 §3.1.1: "Implementations MUST NOT negotiate TLS
// version 1.0", nor 1.1). The handshake alone tells whether the server accepts them: no
// HTTP request follows, and the connection is closed at once.

// ConnTLSVersion is the connection of the legacy TLS handshake.
const ConnTLSVersion = 57

// StepTLSLegacyHandshake is the handshake offering TLS 1.0 and 1.1 only. Its outcome is
// OutcomeOK when the server accepted one of them, OutcomeTransport when it refused (or the
// connection failed: Err says which); Response is the Seq of the note that says what
// happened.
const StepTLSLegacyHandshake = "tls-legacy-handshake"

// NoteTLSHandshake is the note of a handshake made outside any HTTP exchange.
const NoteTLSHandshake NoteCode = "tls-handshake"

// probeTLSVersion makes the legacy handshake with an https target (nothing for plain http).
func probeTLSVersion(ctx context.Context, c *ruleConn) {
	u, err := url.Parse(c.target.URL)
	if err != nil || u.Scheme != "https" || u.Hostname() == "" {
		return
	}
	port := u.Port()
	if port == "" {
		port = "443"
	}
	st := Step{Name: StepTLSLegacyHandshake, Method: "TLS handshake", Conn: c.conn, Request: -1, Response: -1}
	start := c.wire.Now()
	version, err := legacyHandshake(ctx, c.o, net.JoinHostPort(u.Hostname(), port), u.Hostname())
	note := Frame{Dir: In, Kind: KindNote, Note: NoteTLSHandshake, At: c.wire.Now()}
	switch {
	case err != nil:
		st.Outcome, st.Err = OutcomeTransport, err.Error()
		note.Detail = "a handshake offering only TLS 1.0 and 1.1 failed: " + err.Error()
	default:
		st.Outcome = OutcomeOK
		note.Detail = "a handshake offering only TLS 1.0 and 1.1 succeeded: the server negotiated " + tls.VersionName(version)
	}
	st.Response = c.wire.Record(note)
	st.Latency = note.At - start
	c.steps = append(c.steps, st)
}

// legacyHandshake dials address as the probe's HTTP client would (Options.DialContext, the
// monitor's guard, when set) and makes a TLS handshake that offers only TLS 1.0 and 1.1,
// with every cipher suite Go has for them: crypto/tls refuses those versions only by
// default, and a config that names them explicitly needs no process-wide GODEBUG. It
// returns the version the server negotiated. The certificate is not judged here
// (tls.certificate judges it on the real connections).
func legacyHandshake(ctx context.Context, o Options, address, host string) (uint16, error) {
	ctx, cancel := context.WithTimeout(ctx, httpTLSTimeout)
	defer cancel()
	dial := o.DialContext
	if dial == nil {
		d := &net.Dialer{Timeout: httpDialTimeout}
		dial = d.DialContext
	}
	raw, err := dial(ctx, "tcp", address)
	if err != nil {
		return 0, fmt.Errorf("dialing %s: %w", address, err)
	}
	cfg := &tls.Config{
		MinVersion:   tls.VersionTLS10,
		MaxVersion:   tls.VersionTLS11,
		CipherSuites: legacyCipherSuites(),
		// Only whether the versions are accepted matters; nothing is sent over the connection.
		InsecureSkipVerify: true, //nolint:gosec // no data travels; the certificate is judged elsewhere
	}
	if net.ParseIP(host) == nil {
		cfg.ServerName = host
	}
	conn := tls.Client(raw, cfg)
	defer conn.Close()
	if err := conn.HandshakeContext(ctx); err != nil {
		return 0, fmt.Errorf("TLS handshake with %s: %w", address, err)
	}
	return conn.ConnectionState().Version, nil
}

// legacyCipherSuites are the suites crypto/tls implements for TLS 1.0 and 1.1, the insecure
// ones included: an old server may offer nothing else.
func legacyCipherSuites() []uint16 {
	var ids []uint16
	for _, list := range [][]*tls.CipherSuite{tls.CipherSuites(), tls.InsecureCipherSuites()} {
		for _, s := range list {
			for _, v := range s.SupportedVersions {
				if v == tls.VersionTLS10 || v == tls.VersionTLS11 {
					ids = append(ids, s.ID)
					break
				}
			}
		}
	}
	return ids
}
