package checks

import (
	"strings"
	"testing"

	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/protocol"
)

const (
	asIssuer  = "http://127.0.0.1:2/oauth"
	asOAuth   = "http://127.0.0.1:2/.well-known/oauth-authorization-server/oauth"
	asOIDC    = "http://127.0.0.1:2/.well-known/openid-configuration/oauth"
	asOIDCApp = "http://127.0.0.1:2/oauth/.well-known/openid-configuration"
	oauthPRM  = `{"resource":"http://127.0.0.1:1/mcp","authorization_servers":["` + asIssuer + `"],"scopes_supported":["mcp:tools"]}`
	scoped    = `Bearer resource_metadata="` + prmPathURL + `", scope="mcp:tools"`
)

// asDoc is authorization server metadata that breaks nothing, with edits: a member set to
// "" is left out, any other value replaces the member's JSON.
func asDoc(edits map[string]string) string {
	members := [][2]string{
		{"issuer", `"` + asIssuer + `"`},
		{"authorization_endpoint", `"` + asIssuer + `/authorize"`},
		{"token_endpoint", `"` + asIssuer + `/token"`},
		{"registration_endpoint", `"` + asIssuer + `/register"`},
		{"response_types_supported", `["code"]`},
		{"code_challenge_methods_supported", `["S256"]`},
		{"client_id_metadata_document_supported", `true`},
		{"authorization_response_iss_parameter_supported", `true`},
	}
	var parts []string
	for _, m := range members {
		v, edited := edits[m[0]]
		if !edited {
			v = m[1]
		}
		if v != "" {
			parts = append(parts, `"`+m[0]+`":`+v)
		}
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// oauthScript is what the authorization probe saw of a server that uses OAuth.
type oauthScript struct {
	challenge string
	prm       []metadataFetch
	as        []metadataFetch
	invalid   reply // the answer to the bogus token (nil: not sent)
}

// goodOAuth is a conformant chain: the 401, the metadata at the named URL, the authorization
// server's metadata at its first well-known URL, a 401 to the bogus token.
func goodOAuth() oauthScript {
	return oauthScript{
		challenge: scoped,
		prm:       []metadataFetch{{prmPathURL, 200, "application/json", oauthPRM}},
		as:        []metadataFetch{{asOAuth, 200, "application/json", asDoc(nil)}},
		invalid:   unauthorizedReply(scoped),
	}
}

func (s oauthScript) with(edit func(s *oauthScript)) oauthScript {
	edit(&s)
	return s
}

func oauthProbe(s oauthScript, edits ...func(p *sessionPlan)) *probe.Result {
	return withRules(protocol.TransportHTTP, func(w *wireScript) {
		w.call(probe.ConnAuth, probe.StepAuthInitialize, "initialize", "1", ruleInitParams, unauthorizedReply(s.challenge))
		for _, f := range s.prm {
			w.fetch(probe.ConnAuth, probe.StepResourceMetadata, "GET", f.url, f.status, f.contentType, f.body, nil)
		}
		for _, f := range s.as {
			w.fetch(probe.ConnAuth, probe.StepAuthServerMetadata, "GET", f.url, f.status, f.contentType, f.body, nil)
		}
		if s.invalid != nil {
			w.call(probe.ConnAuth, probe.StepAuthInvalidToken, "initialize", "2", ruleInitParams, s.invalid)
		}
	}, edits...)
}

func withAS(body string) func(s *oauthScript) {
	return func(s *oauthScript) { s.as = []metadataFetch{{asOAuth, 200, "application/json", body}} }
}

// RFC 9728 §3.3: "The resource value returned MUST be identical to the protected resource's
// resource identifier value into which the well-known URI path suffix was inserted to create
// the URL used to retrieve the metadata." 2025-11-25 basic/authorization, Communication
// Security: "All authorization server endpoints MUST be served over HTTPS."
func TestAuthResourceMetadataHoldsResourceAndHTTPS(t *testing.T) {
	prm := func(body string) func(s *oauthScript) {
		return func(s *oauthScript) { s.prm = []metadataFetch{{prmPathURL, 200, "application/json", body}} }
	}
	rows := []checkRow{
		{name: "resource is the endpoint, servers on loopback", want: StatusPass, msg: "names authorization servers",
			res: oauthProbe(goodOAuth())},
		{name: "the root document may name the origin", want: StatusPass, msg: "metadata at " + prmRootURL,
			res: oauthProbe(goodOAuth().with(func(s *oauthScript) {
				s.challenge = `Bearer scope="mcp:tools"`
				s.prm = []metadataFetch{{prmPathURL, 404, "text/plain", "nf"},
					{prmRootURL, 200, "application/json", `{"resource":"http://127.0.0.1:1","authorization_servers":["` + asIssuer + `"]}`}}
			}))},
		{name: "another resource", want: StatusFail,
			msg: `expected resource "http://127.0.0.1:1/mcp" (RFC 9728 §3.3: MUST be identical to the URL of the resource the metadata was looked up for), got "http://127.0.0.1:1/other"`,
			res: oauthProbe(goodOAuth().with(prm(`{"resource":"http://127.0.0.1:1/other","authorization_servers":["` + asIssuer + `"]}`)))},
		{name: "the path document may not name the origin", want: StatusFail, msg: `got "http://127.0.0.1:1"`,
			res: oauthProbe(goodOAuth().with(prm(`{"resource":"http://127.0.0.1:1","authorization_servers":["` + asIssuer + `"]}`)))},
		{name: "no resource", want: StatusFail, msg: "to carry resource (RFC 9728 §2: REQUIRED), got none",
			res: oauthProbe(goodOAuth().with(prm(`{"authorization_servers":["` + asIssuer + `"]}`)))},
		{name: "an authorization server on plain http elsewhere", want: StatusFail,
			msg: `expected authorization server "http://auth.example.com" to be an https URL without query or fragment (RFC 8414 §2; all authorization server endpoints MUST be served over HTTPS), got plain http to another host`,
			res: oauthProbe(goodOAuth().with(prm(`{"resource":"http://127.0.0.1:1/mcp","authorization_servers":["http://auth.example.com"]}`)))},
		{name: "an authorization server with a query", want: StatusFail, msg: "got a URL with a query or fragment",
			res: oauthProbe(goodOAuth().with(prm(`{"resource":"http://127.0.0.1:1/mcp","authorization_servers":["https://auth.example.com/?t=1"]}`)))},
	}
	runCheckRows(t, "auth.resource-metadata", rows)
}

// 2025-11-25 basic/authorization, Authorization Server Metadata Discovery: "For issuer URLs
// with path components (e.g., https://auth.example.com/tenant1), clients MUST try endpoints
// in the following priority order: 1. OAuth 2.0 Authorization Server Metadata with path
// insertion ... 2. OpenID Connect Discovery 1.0 with path insertion ... 3. OpenID Connect
// Discovery 1.0 path appending"; 2026-07-28 authorization-server-discovery: "the issuer value
// in the document MUST be identical to the issuer identifier used to construct the well-known
// URL". RFC 8414 §2: authorization_endpoint, token_endpoint and response_types_supported are
// REQUIRED.
func TestAuthServerMetadata(t *testing.T) {
	missing := []metadataFetch{{asOAuth, 404, "text/plain", "nf"}, {asOIDC, 404, "text/plain", "nf"}, {asOIDCApp, 404, "text/plain", "nf"}}
	rows := []checkRow{
		{name: "found by path insertion", want: StatusPass, msg: "with the exact issuer, both endpoints and response type code: " + `"` + asIssuer + " at " + asOAuth,
			res: oauthProbe(goodOAuth())},
		{name: "found by OpenID Connect path appending", want: StatusPass, msg: asOIDCApp,
			res: oauthProbe(goodOAuth().with(func(s *oauthScript) {
				s.as = append(missing[:2:2], metadataFetch{asOIDCApp, 200, "application/json", asDoc(nil)})
			}))},
		// 2025-06-18 basic/authorization, Overview: "Authorization servers MUST provide OAuth
		// 2.0 Authorization Server Metadata (RFC8414)."
		{name: "2025-06-18 wants RFC 8414, not OpenID Connect", want: StatusFail, msg: "expected RFC 8414 metadata at " + asOAuth + " (2025-06-18",
			res: oauthProbe(goodOAuth().with(func(s *oauthScript) {
				s.as = append(missing[:1:1], metadataFetch{asOIDC, 200, "application/json", asDoc(nil)})
			}), speaks("2025-06-18"))},
		{name: "at none of the well-known URLs", want: StatusFail,
			msg: `expected authorization server metadata for "` + asIssuer + `" at a well-known URL (RFC 8414, or OpenID Connect Discovery), got none: ` + asOAuth + ` (HTTP 404`,
			res: oauthProbe(goodOAuth().with(func(s *oauthScript) { s.as = missing }))},
		{name: "another issuer", want: StatusFail, msg: `expected issuer "` + asIssuer + `" (RFC 8414 §3.3`,
			res: oauthProbe(goodOAuth().with(withAS(asDoc(map[string]string{"issuer": `"http://127.0.0.1:2/other"`}))))},
		{name: "a trailing slash is another issuer", want: StatusFail, msg: `got "http://127.0.0.1:2/oauth/"`,
			res: oauthProbe(goodOAuth().with(withAS(asDoc(map[string]string{"issuer": `"http://127.0.0.1:2/oauth/"`}))))},
		{name: "no token endpoint", want: StatusFail, msg: "expected token_endpoint in the metadata at " + asOAuth + " (RFC 8414 §2: REQUIRED for the authorization code grant), got none",
			res: oauthProbe(goodOAuth().with(withAS(asDoc(map[string]string{"token_endpoint": ""}))))},
		{name: "an endpoint on plain http elsewhere", want: StatusFail, msg: `expected authorization_endpoint on https`,
			res: oauthProbe(goodOAuth().with(withAS(asDoc(map[string]string{"authorization_endpoint": `"http://auth.example.com/authorize"`}))))},
		{name: "no code response type", want: StatusFail, msg: `to hold "code"`,
			res: oauthProbe(goodOAuth().with(withAS(asDoc(map[string]string{"response_types_supported": `["token"]`}))))},
		{name: "an authorization server on plain http elsewhere is not looked up", want: StatusSkip, msg: "auth.resource-metadata judges them",
			res: oauthProbe(goodOAuth().with(func(s *oauthScript) {
				s.prm = []metadataFetch{{prmPathURL, 200, "application/json", `{"resource":"http://127.0.0.1:1/mcp","authorization_servers":["http://auth.example.com"]}`}}
				s.as = nil
			}))},
		{name: "no usable protected resource metadata", want: StatusSkip, msg: "auth.resource-metadata judges that",
			res: oauthProbe(goodOAuth().with(func(s *oauthScript) { s.prm = []metadataFetch{{prmPathURL, 404, "text/plain", "nf"}} }))},
		{name: "before 2025-06-18", want: StatusSkip, msg: "begins in 2025-06-18",
			res: oauthProbe(goodOAuth(), speaks("2025-03-26"))},
	}
	runCheckRows(t, "auth.server-metadata", rows)
}

// 2025-11-25 basic/authorization, Authorization Code Protection: "If
// code_challenge_methods_supported is absent, the authorization server does not support PKCE
// and MCP clients MUST refuse to proceed." and "MCP clients MUST use the S256 code challenge
// method when technically capable".
func TestAuthPKCE(t *testing.T) {
	rows := []checkRow{
		{name: "S256", want: StatusPass, msg: "PKCE with S256 advertised by",
			res: oauthProbe(goodOAuth())},
		{name: "absent", want: StatusFail, msg: "expected code_challenge_methods_supported in the metadata of",
			res: oauthProbe(goodOAuth().with(withAS(asDoc(map[string]string{"code_challenge_methods_supported": ""}))))},
		{name: "plain only", want: StatusFail, msg: `to hold "S256" (clients MUST use S256), got ["plain"]`,
			res: oauthProbe(goodOAuth().with(withAS(asDoc(map[string]string{"code_challenge_methods_supported": `["plain"]`}))))},
		{name: "metadata of another issuer is auth.server-metadata's", want: StatusSkip, msg: "auth.server-metadata judges that",
			res: oauthProbe(goodOAuth().with(withAS(asDoc(map[string]string{"issuer": `"http://127.0.0.1:2/x"`, "code_challenge_methods_supported": ""}))))},
		{name: "2025-06-18 has no metadata rule for PKCE", want: StatusSkip, msg: "from 2025-11-25 on",
			res: oauthProbe(goodOAuth().with(withAS(asDoc(map[string]string{"code_challenge_methods_supported": ""}))), speaks("2025-06-18"))},
	}
	runCheckRows(t, "auth.pkce", rows)
}

// 2025-11-25 basic/authorization, Client ID Metadata Documents: "MCP clients and authorization
// servers SHOULD support OAuth Client ID Metadata Documents"; 2025-06-18, Dynamic Client
// Registration: "MCP clients and authorization servers SHOULD support the OAuth 2.0 Dynamic
// Client Registration Protocol"; 2026-07-28 basic/authorization, Authorization Response
// Validation: "MCP authorization servers SHOULD include the iss parameter in authorization
// responses ... Authorization servers that include the iss parameter MUST advertise this by
// setting authorization_response_iss_parameter_supported to true".
func TestAuthClientRegistration(t *testing.T) {
	noCIMD := asDoc(map[string]string{"client_id_metadata_document_supported": ""})
	rows := []checkRow{
		{name: "CIMD advertised", want: StatusPass, msg: "client registration offered by",
			res: oauthProbe(goodOAuth())},
		{name: "registration endpoint only, 2025-11-25", want: StatusWarn,
			msg: "expected client_id_metadata_document_supported: true in the metadata of \"" + asIssuer + "\" (authorization servers SHOULD support Client ID Metadata Documents), got none; only a registration_endpoint",
			res: oauthProbe(goodOAuth().with(withAS(noCIMD)))},
		{name: "neither", want: StatusWarn, msg: "no registration_endpoint either",
			res: oauthProbe(goodOAuth().with(withAS(asDoc(map[string]string{"client_id_metadata_document_supported": "", "registration_endpoint": ""}))))},
		{name: "registration endpoint is what 2025-06-18 asks for", want: StatusPass, msg: "client registration offered by",
			res: oauthProbe(goodOAuth().with(withAS(noCIMD)), speaks("2025-06-18"))},
		{name: "no registration endpoint under 2025-06-18", want: StatusWarn, msg: "SHOULD support Dynamic Client Registration",
			res: oauthProbe(goodOAuth().with(withAS(asDoc(map[string]string{"registration_endpoint": ""}))), speaks("2025-06-18"))},
	}
	runCheckRows(t, "auth.client-registration", rows)
}

// The iss parameter is a rule of 2026-07-28 only; the rule probe of a stateless probe speaks
// a session revision, so the finding follows the revision the report is about.
func TestAuthClientRegistrationAsksForIssFrom20260728(t *testing.T) {
	c := checkByID(t, "auth.client-registration")
	res := oauthProbe(goodOAuth().with(withAS(asDoc(map[string]string{"authorization_response_iss_parameter_supported": ""}))))
	if f := evaluateOne(c, NewCapture(res)); f.Status != StatusPass {
		t.Errorf("2025-11-25: %s %q, want pass", f.Status, f.Message)
	}
	res.ProtocolVersion = protocol.Revision20260728
	f := evaluateOne(c, NewCapture(res))
	if f.Status != StatusWarn || !strings.Contains(f.Message, "authorization_response_iss_parameter_supported: true") {
		t.Errorf("2026-07-28: %s %q, want a warning naming authorization_response_iss_parameter_supported", f.Status, f.Message)
	}
}

// 2025-11-25 basic/authorization, Token Handling: "Invalid or expired tokens MUST receive a
// HTTP 401 response."
func TestAuthInvalidToken(t *testing.T) {
	rows := []checkRow{
		{name: "401", want: StatusPass, msg: "got HTTP 401", res: oauthProbe(goodOAuth())},
		{name: "served", want: StatusFail,
			msg: "initialize with a bearer token no authorization server issued: expected HTTP 401 (invalid or expired tokens MUST receive a HTTP 401 response), got HTTP 200",
			res: oauthProbe(goodOAuth().with(func(s *oauthScript) { s.invalid = resultReply(plainInitResult) }))},
		{name: "403 is not 401", want: StatusFail, msg: "got HTTP 403",
			res: oauthProbe(goodOAuth().with(func(s *oauthScript) { s.invalid = statusReply(403, "text/plain", "forbidden") }))},
		{name: "no answer", want: StatusUntested, msg: "got no answer",
			res: oauthProbe(goodOAuth().with(func(s *oauthScript) { s.invalid = noReply() }))},
		{name: "a Basic server shows no OAuth", want: StatusSkip, msg: "shows no sign of OAuth",
			res: oauthProbe(oauthScript{challenge: `Basic realm="x"`, prm: []metadataFetch{{prmPathURL, 404, "", ""}, {prmRootURL, 404, "", ""}}})},
		{name: "an OAuth server the probe did not finish", want: StatusUntested, msg: "the request with a bogus bearer token was not sent",
			res: oauthProbe(goodOAuth().with(func(s *oauthScript) { s.invalid = nil }))},
		{name: "before 2025-06-18", want: StatusSkip, msg: "from 2025-06-18 on; the server speaks 2025-03-26",
			res: oauthProbe(goodOAuth(), speaks("2025-03-26"))},
	}
	runCheckRows(t, "auth.invalid-token", rows)
}

// 2025-11-25 basic/authorization, Protected Resource Metadata Discovery Requirements: "MCP
// servers SHOULD include a scope parameter in the WWW-Authenticate header"; RFC 9728 §2:
// scopes_supported is RECOMMENDED.
func TestAuthScope(t *testing.T) {
	noScopes := `{"resource":"http://127.0.0.1:1/mcp","authorization_servers":["` + asIssuer + `"]}`
	rows := []checkRow{
		{name: "both", want: StatusPass, msg: `scope "mcp:tools" in the challenge; scopes_supported ["mcp:tools"]`,
			res: oauthProbe(goodOAuth())},
		{name: "no scope in the challenge", want: StatusWarn, msg: "expected a scope parameter in the Bearer challenge of the 401 (MCP servers SHOULD include it)",
			res: oauthProbe(goodOAuth().with(func(s *oauthScript) { s.challenge = `Bearer resource_metadata="` + prmPathURL + `"` }))},
		{name: "no scopes_supported", want: StatusWarn, msg: "expected scopes_supported in the protected resource metadata at " + prmPathURL + " (RFC 9728 §2: RECOMMENDED",
			res: oauthProbe(goodOAuth().with(func(s *oauthScript) { s.prm = []metadataFetch{{prmPathURL, 200, "application/json", noScopes}} }))},
		{name: "2025-06-18 has no rule for the challenge's scope", want: StatusPass, msg: "scopes_supported",
			res: oauthProbe(goodOAuth().with(func(s *oauthScript) { s.challenge = `Bearer resource_metadata="` + prmPathURL + `"` }), speaks("2025-06-18"))},
		{name: "no authorization asked for", want: StatusSkip, msg: "the server asks for no authorization",
			res: authProbe(resultReply(plainInitResult), nil)},
	}
	runCheckRows(t, "auth.scope", rows)
}
