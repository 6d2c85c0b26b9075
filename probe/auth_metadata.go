package probe

import (
	"encoding/json"
	"net"
	"net/url"
	"strings"
)

// Well-known URI suffixes of authorization server metadata: RFC 8414's own, then the one of
// OpenID Connect Discovery 1.0, which MCP clients also try (2025-11-25
// basic/authorization, "Authorization Server Metadata Discovery").
const (
	WellKnownOAuthServer = "/.well-known/oauth-authorization-server"
	WellKnownOpenID      = "/.well-known/openid-configuration"
)

// MaxAuthServers bounds how many of the authorization servers a protected resource metadata
// document names the probe looks up: a document that names hundreds must not make the probe
// fetch hundreds of documents from other hosts.
const MaxAuthServers = 3

// ServerMetadataURLs lists where a client looks for the metadata of the authorization server
// whose issuer identifier is issuer, in the order the specification has it try them: for an
// issuer with a path, OAuth with path insertion, OpenID Connect with path insertion, then
// OpenID Connect with the suffix appended to the path; for one without, OAuth then OpenID
// Connect at the root. A terminating "/" of the path is removed first (RFC 8414 §3.1). An
// issuer that is no absolute http(s) URL, or has a query or fragment (RFC 8414 §2), has no
// metadata URL.
func ServerMetadataURLs(issuer string) []string {
	u, err := url.Parse(issuer)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
		u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return nil
	}
	path := strings.TrimSuffix(u.EscapedPath(), "/")
	at := func(escaped string) string {
		w := url.URL{Scheme: u.Scheme, Host: u.Host, RawPath: escaped}
		w.Path, _ = url.PathUnescape(escaped)
		return w.String()
	}
	if path == "" {
		return []string{at(WellKnownOAuthServer), at(WellKnownOpenID)}
	}
	return []string{at(WellKnownOAuthServer + path), at(WellKnownOpenID + path), at(path + WellKnownOpenID)}
}

// IsOpenIDMetadataURL reports whether a metadata URL of ServerMetadataURLs is one of OpenID
// Connect Discovery's rather than RFC 8414's.
func IsOpenIDMetadataURL(u string) bool {
	return strings.Contains(u, WellKnownOpenID)
}

// LoopbackHost reports whether host (a URL's host name, without port) names this machine:
// "localhost" or a loopback address. Plain http to such a host never leaves the machine,
// which is why the authorization rules that ask for https exempt it.
func LoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// FetchableIssuer reports whether the probe looks up the metadata of an authorization
// server: its issuer has metadata URLs, and it is on https or on this machine. A client
// refuses an authorization server on plain http elsewhere ("All authorization server
// endpoints MUST be served over HTTPS", basic/authorization, Communication Security), so the
// probe sends nothing there either; the check of the metadata that names it says why.
func FetchableIssuer(issuer string) bool {
	if len(ServerMetadataURLs(issuer)) == 0 {
		return false
	}
	u, _ := url.Parse(issuer)
	return u.Scheme == "https" || LoopbackHost(u.Hostname())
}

// AuthorizationServers reads the authorization_servers of a protected resource metadata
// document (RFC 9728 §2): the strings of the array, in order; false when the document is no
// JSON object or the member is not an array.
func AuthorizationServers(doc []byte) ([]string, bool) {
	var obj struct {
		Servers []json.RawMessage `json:"authorization_servers"`
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(doc, &top) != nil || json.Unmarshal(doc, &obj) != nil || obj.Servers == nil {
		return nil, false
	}
	var out []string
	for _, raw := range obj.Servers {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			out = append(out, s)
		}
	}
	return out, true
}
