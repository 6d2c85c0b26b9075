package checks

import (
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"

	"github.com/mcpwatch/mcpwatch/probe"
)

// tls.version: MCP basic/authorization (2025-06-18 and 2025-11-25; 2026-07-28
// basic/authorization/security-considerations), "Communication Security": "Implementations
// MUST follow OAuth 2.1 Section 1.5 'Communication Security'", which requires TLS to protect
// "clear-text credentials and tokens" and refers to BCP 195 for its versions; RFC 8996
// (which updates OAuth 2.0, RFC 6749) says "TLS 1.0 MUST NOT be used" and "TLS 1.1 MUST NOT
// be used", and RFC 9325 §3.1.1 "Implementations MUST NOT negotiate TLS version 1.0" (and
// 1.1). The scope is the authorization framework, which is OPTIONAL ("Authorization is
// OPTIONAL for MCP implementations"): the MUST binds a server that takes credentials. A
// remote server that takes none, on plain http or accepting old TLS, breaks no MCP keyword,
// and hears of it as advice. Loopback and private addresses are exempt from the plain-http
// rule: OAuth itself allows http on the loopback interface, and a private network is its
// owner's to secure.

// legacyTLSVersion reports whether a version is one RFC 8996 retires (or older).
func legacyTLSVersion(v string) bool { return v == "SSLv3" || v == "TLS 1.0" || v == "TLS 1.1" }

func checkTLSVersion(r *Capture, f *Finding) {
	u, err := url.Parse(r.Target)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		f.Skip("the target is not an HTTP URL")
		return
	}
	authReason, protected := usesAuthorization(r)
	report := f.Advise
	scope := "the server asked for no credentials, so no MCP keyword requires TLS of it (the MUST binds servers that use authorization)"
	if protected {
		report = f.Fail
		scope = authReason
	}
	host := u.Hostname()
	if u.Scheme == "http" {
		if !remoteHost(host) {
			f.Skip("plain http to %s, a loopback or private address: the TLS rule is for remote servers", host)
			return
		}
		report(Seqs(firstOut(r)), "expected a remote server to be served over https (TLS 1.2 or later), got plain http to %s; %s", Clip([]byte(host)), scope)
		return
	}
	negotiated, at := negotiatedTLS(r)
	if negotiated != "" {
		f.Data = map[string]any{"negotiated": negotiated}
		if legacyTLSVersion(negotiated) {
			report(Seqs(at), "expected TLS 1.2 or later, got the connection negotiated in %s; %s", negotiated, scope)
		}
	}
	st, ok := stepOn(r, probe.ConnTLSVersion, probe.StepTLSLegacyHandshake)
	switch {
	case !ok:
		if len(f.Evidence) == 0 {
			f.notJudged(stoppedHere(r), "the handshake offering TLS 1.0 and 1.1 was not made: %s", probeStopped(r))
		}
		return
	case st.Outcome == probe.OutcomeOK:
		report(Seqs(st.Response), "expected a handshake offering only TLS 1.0 and 1.1 to be refused (RFC 8996), got %s; %s", noteOf(r, st), scope)
		return
	case strings.HasPrefix(st.Err, "dialing "):
		if len(f.Evidence) == 0 {
			f.Untested("the handshake offering TLS 1.0 and 1.1 could not be made: %s", Clip([]byte(st.Err)))
		}
		return
	}
	if len(f.Evidence) > 0 {
		return
	}
	if negotiated == "" {
		f.Pass("a handshake offering only TLS 1.0 and 1.1 was refused")
		return
	}
	f.Pass("the connection negotiated %s; a handshake offering only TLS 1.0 and 1.1 was refused", negotiated)
}

// usesAuthorization says whether the server takes credentials, and why the probe thinks so:
// it answered the probe's request without credentials with 401, or the user gave the probe
// an Authorization header for it.
func usesAuthorization(r *Capture) (string, bool) {
	if st, ok := stepOn(r, probe.ConnAuth, probe.StepAuthInitialize); ok && st.HTTPStatus == http.StatusUnauthorized {
		return "the server asks for credentials (HTTP 401 without them), and authorization's Communication Security MUST requires TLS of it", true
	}
	for _, fr := range r.Frames {
		if fr.Dir == probe.Out && fr.HTTP != nil && fr.Conn == probe.ConnMain {
			if fr.HTTP.Header.Get("Authorization") != "" {
				return "the probe was given credentials for it, which travel in every request, and authorization's Communication Security MUST requires TLS of it", true
			}
			break
		}
	}
	return "", false
}

// remoteHost reports whether a URL's host is neither loopback (127.0.0.0/8, ::1, localhost)
// nor a private address (RFC 1918, fc00::/7, link-local): a host name other than localhost
// counts as remote, since the checks resolve nothing.
func remoteHost(host string) bool {
	h := strings.ToLower(strings.TrimSuffix(host, "."))
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return false
	}
	addr, err := netip.ParseAddr(strings.Trim(h, "[]"))
	if err != nil {
		return net.ParseIP(h) == nil // a name (an unparsable literal is no address either)
	}
	addr = addr.Unmap()
	return !(addr.IsLoopback() || addr.IsPrivate() || addr.IsLinkLocalUnicast() || addr.IsUnspecified())
}

// negotiatedTLS is the TLS version of the first response that came over TLS, with its Seq.
func negotiatedTLS(r *Capture) (string, int) {
	for _, fr := range r.Frames {
		if fr.Dir == probe.In && fr.HTTP != nil && fr.HTTP.TLS != nil && fr.HTTP.TLS.Version != "" {
			return fr.HTTP.TLS.Version, fr.Seq
		}
	}
	return "", -1
}

// firstOut is the Seq of the probe's first request (-1 when none was recorded).
func firstOut(r *Capture) int {
	for _, fr := range r.Frames {
		if fr.Dir == probe.Out {
			return fr.Seq
		}
	}
	return -1
}

// noteOf is the detail of the note a step points to, clipped.
func noteOf(r *Capture, st probe.Step) string {
	if fr, ok := r.Frame(st.Response); ok && fr.Detail != "" {
		return Clip([]byte(fr.Detail))
	}
	return "the handshake succeeded"
}
