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

// probeAuth initializes without any of the user's credentials; when the server answers 401 it
// discovers the protected resource metadata as a client would (auth.challenge,
// auth.resource-metadata).
func probeAuth(ctx context.Context, c *ruleConn) {
	st := c.call(ctx, StepAuthInitialize, "initialize", initializeParams(c.o), c.o.InitTimeout, 0)
	if st.HTTPStatus != http.StatusUnauthorized {
		return
	}
	head, _ := c.transcript.Frame(st.Response)
	var challenges []Challenge
	if head.HTTP != nil {
		challenges = ParseChallenges(head.HTTP.Header.Values("WWW-Authenticate"))
	}
	for _, u := range MetadataURLs(c.target.URL, challenges) {
		fs := c.fetchStep(ctx, StepResourceMetadata, http.MethodGet, exchangeTarget{url: u, followRedirects: true, edit: func(h http.Header) {
			h.Set("Accept", "application/json")
			if protocol.SendsProtocolHeader(c.o.ProtocolVersion) {
				h.Set(protocol.HeaderProtocolVersion, c.o.ProtocolVersion)
			}
		}})
		if fs.HTTPStatus == http.StatusOK && c.isJSONObject(fs.Response) {
			return
		}
	}
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
