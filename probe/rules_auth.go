package probe

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"

	"github.com/mcpwatch/mcpwatch/protocol"
)

// WellKnownResourceMetadata is where RFC 9728 puts protected resource metadata: under this
// path at the root of the server, followed by the path of the resource (basic/authorization).
const WellKnownResourceMetadata = "/.well-known/oauth-protected-resource"

// Steps of the authorization probe beyond its initialize and the protected resource
// metadata fetches (StepAuthInitialize, StepResourceMetadata).
const (
	// StepAuthServerMetadata is one GET of an authorization server's metadata at one of the
	// well-known URLs (ServerMetadataURLs).
	StepAuthServerMetadata = "auth-server-metadata"
	// StepAuthInvalidToken is the anonymous request (initialize, or server/discover for a
	// stateless server) with a bearer token no authorization server issued (auth.invalid-token).
	StepAuthInvalidToken = "auth-invalid-token"
)

// InvalidTokenPrefix starts the bogus bearer token of StepAuthInvalidToken, followed by
// random hex: a value no authorization server issued.
const InvalidTokenPrefix = "mcpwatch-invalid-token-"

// probeAuth initializes without any of the user's credentials. When the server answers 401 it
// discovers what a client would (auth.challenge, auth.resource-metadata): the protected
// resource metadata, then the metadata of each authorization server it names
// (auth.server-metadata, auth.pkce, auth.client-registration). Only public documents are
// fetched, each bounded in size (maxFetchedBody) and time (RequestTimeout), through the
// connection's own client (so through the monitor's SSRF guard when it dials through one),
// following redirects on the document's own origin only. A server whose answers show it uses
// OAuth then gets one request with a bearer token no authorization server issued
// (auth.invalid-token). No client is registered and no token is requested.
func probeAuth(ctx context.Context, c *ruleConn) {
	method, params := c.anonymousRequest(ctx)
	st := c.call(ctx, StepAuthInitialize, method, params, c.o.InitTimeout, 0)
	if st.HTTPStatus != http.StatusUnauthorized {
		return
	}
	head, _ := c.transcript.Frame(st.Response)
	var challenges []Challenge
	if head.HTTP != nil {
		challenges = ParseChallenges(head.HTTP.Header.Values("WWW-Authenticate"))
	}
	doc, found := c.resourceMetadata(ctx, challenges)
	if found {
		servers, _ := AuthorizationServers(doc)
		looked := 0
		for _, issuer := range servers {
			if looked == MaxAuthServers {
				break
			}
			if FetchableIssuer(issuer) {
				looked++
				c.serverMetadata(ctx, issuer)
			}
		}
	}
	if (found || BearerChallenge(challenges)) && InvalidTokenApplies(c.o.ProtocolVersion) {
		c.callBent(ctx, StepAuthInvalidToken, method, params, c.o.RequestTimeout, func(h http.Header) {
			h.Set("Authorization", "Bearer "+InvalidTokenPrefix+randomSuffix())
		})
	}
}

// authEvidencedByMain records the main connection's handshake as the authorization probe's
// request without credentials (StepAuthInitialize) when it is that request: the target
// carries no credential of the user (credentialFree), so the main handshake went out
// without any, as the same method the probe would send (anonymousRequest), and it got an
// HTTP answer other than 401. The checks judge nothing of that answer but that it is not a
// 401 (the server asks for no authorization), and a second identical anonymous request
// would only tell the same at the price of an initialize and a DELETE in every probe. A 401
// (or no HTTP answer at all) leaves the probe to send its own request, as before, since
// the discovery that follows a 401 runs on the probe's own connection.
func authEvidencedByMain(ctx context.Context, c *ruleConn, credentialFree bool) bool {
	if !credentialFree {
		return false
	}
	hs := c.mainHandshake.wait(ctx)
	if hs.HTTPStatus == 0 || hs.HTTPStatus == http.StatusUnauthorized {
		return false
	}
	method := "initialize"
	if hs.Method == methodDiscover && hs.Outcome == OutcomeOK && c.era.wait(ctx).stateless {
		method = methodDiscover
	}
	if hs.Method != method {
		return false
	}
	st := hs
	st.Name, st.Conn = StepAuthInitialize, c.conn
	c.steps = append(c.steps, st)
	return true
}

// anonymousRequest is the request the authorization probe sends without credentials: the
// handshake of the server's era. A server the main connection found stateless gets
// server/discover, self-contained (_meta and the stateless headers), since initialize may be
// a method it does not have; any other gets initialize. A server that wants credentials
// refuses either with 401. It waits for the main connection's handshake, which tells.
func (c *ruleConn) anonymousRequest(ctx context.Context) (string, json.RawMessage) {
	if hs := c.mainHandshake.wait(ctx); hs.Method == methodDiscover && hs.Outcome == OutcomeOK {
		if d := c.era.wait(ctx); d.stateless {
			c.speak(d.revision, true)
			return methodDiscover, json.RawMessage(`{}`)
		}
	}
	return "initialize", initializeParams(c.o)
}

// InvalidTokenApplies reports whether a probe of the revision sends the bogus bearer token:
// "Invalid or expired tokens MUST receive a HTTP 401 response" is in the specification from
// 2025-06-18 on (basic/authorization, Token Handling).
func InvalidTokenApplies(revision string) bool {
	return revision >= protocol.Revision20250618
}

// BearerChallenge reports whether one of the challenges is of the Bearer scheme (RFC 6750
// §3), the scheme of OAuth access tokens.
func BearerChallenge(cs []Challenge) bool {
	for _, c := range cs {
		if strings.EqualFold(c.Scheme, "Bearer") {
			return true
		}
	}
	return false
}

// resourceMetadata fetches the protected resource metadata where a client looks for it, and
// returns the first document that is a JSON object (the one a client uses).
func (c *ruleConn) resourceMetadata(ctx context.Context, challenges []Challenge) ([]byte, bool) {
	for _, u := range MetadataURLs(c.target.URL, challenges) {
		if fs := c.fetchDocument(ctx, StepResourceMetadata, u, true); fs.HTTPStatus == http.StatusOK {
			if f, ok := c.transcript.Frame(fs.Response); ok && c.isJSONObject(fs.Response) {
				return f.Raw, true
			}
		}
	}
	return nil, false
}

// serverMetadata fetches the metadata of the authorization server issuer at the well-known
// URLs in the specification's order, until one answers with a JSON object.
func (c *ruleConn) serverMetadata(ctx context.Context, issuer string) {
	for _, u := range ServerMetadataURLs(issuer) {
		fs := c.fetchDocument(ctx, StepAuthServerMetadata, u, false)
		if fs.HTTPStatus == http.StatusOK && c.isJSONObject(fs.Response) {
			return
		}
		if fs.HTTPStatus == 0 && ctx.Err() != nil {
			return
		}
	}
}

// fetchDocument GETs a public JSON document (metadata), following redirects on its origin.
// onServer: the document is the MCP server's own, which is sent the MCP headers of its
// revision; an authorization server is sent none of them (it speaks OAuth, not MCP, and
// the connection's session has nothing to do with it).
func (c *ruleConn) fetchDocument(ctx context.Context, step, u string, onServer bool) Step {
	return c.fetchStep(ctx, step, http.MethodGet, exchangeTarget{url: u, followRedirects: true, edit: func(h http.Header) {
		h.Set("Accept", "application/json")
		if !onServer {
			h.Del(protocol.HeaderProtocolVersion)
			h.Del(protocol.HeaderSessionID)
			return
		}
		if protocol.SendsProtocolHeader(c.o.ProtocolVersion) {
			h.Set(protocol.HeaderProtocolVersion, c.o.ProtocolVersion)
		}
	}})
}

// isJSONObject reports whether the body recorded in a response head is one JSON object.
func (c *ruleConn) isJSONObject(seq int) bool {
	f, ok := c.transcript.Frame(seq)
	if !ok {
		return false
	}
	var obj map[string]json.RawMessage
	return json.Unmarshal(f.Raw, &obj) == nil
}

// MetadataURLs lists where a client looks for the protected resource metadata of the MCP
// endpoint, in the order it looks (basic/authorization): the URL the challenge names, alone when
// there is one (an unusable one leaves nothing to fetch); otherwise the well-known URL with
// the endpoint's path, then the one at the root.
func MetadataURLs(endpoint string, challenges []Challenge) []string {
	if advertised, ok := ResourceMetadataURL(challenges); ok {
		u, err := url.Parse(advertised)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil
		}
		return []string{u.String()}
	}
	u, err := url.Parse(endpoint)
	if err != nil {
		return nil
	}
	root := url.URL{Scheme: u.Scheme, Host: u.Host, Path: WellKnownResourceMetadata}
	path := strings.TrimSuffix(u.EscapedPath(), "/")
	if path == "" {
		return []string{root.String()}
	}
	withPath := root
	withPath.RawPath = WellKnownResourceMetadata + path
	withPath.Path, _ = url.PathUnescape(withPath.RawPath)
	return []string{withPath.String(), root.String()}
}
