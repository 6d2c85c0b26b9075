package probe

import (
	"context"
	"net/http"
	"net/url"
	"strings"
)

// ConnServerCard is the connection of the server card probe (server.card): a GET of the
// card where the draft Server Card extension (SEP-2127) puts it, on the origin of the
// target and nowhere else.
const ConnServerCard = 46

// StepServerCard is one GET of a server card location.
const StepServerCard = "server-card"

// Where a Server Card may be found. The extension's draft reserves a location under the
// endpoint ("MCP Servers MAY host their Server Card at GET <streamable-http-url>/server-card");
// earlier drafts, and the servers that follow them, use a well-known URI at the root.
const (
	ServerCardSuffix    = "/server-card"
	ServerCardWellKnown = "/.well-known/mcp/server-card.json"
	// ServerCardMediaType is the card's media type, which a client asks for with Accept.
	ServerCardMediaType = "application/mcp-server-card+json"
)

// probeServerCard asks for the server card at the reserved location, then, when that is
// refused (404, 405, 401...), at the well-known one. Both are on the target's origin; redirects are not
// followed (the client's policy for every request).
func probeServerCard(ctx context.Context, c *ruleConn) {
	for _, u := range ServerCardURLs(c.target.URL) {
		st := c.fetchStep(ctx, StepServerCard, http.MethodGet, exchangeTarget{url: u, edit: func(h http.Header) {
			h.Set("Accept", ServerCardMediaType+", application/json")
		}})
		if st.HTTPStatus == 0 || st.HTTPStatus >= 200 && st.HTTPStatus <= 299 {
			return // no HTTP answer, or the card
		}
	}
}

// ServerCardURLs are the locations of a server card for an endpoint, in the order the probe
// asks: the endpoint's URL followed by /server-card, then the well-known URI at its origin.
func ServerCardURLs(endpoint string) []string {
	u, err := url.Parse(endpoint)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return nil
	}
	reserved := url.URL{Scheme: u.Scheme, Host: u.Host, Path: strings.TrimSuffix(u.Path, "/") + ServerCardSuffix}
	wellKnown := url.URL{Scheme: u.Scheme, Host: u.Host, Path: ServerCardWellKnown}
	return []string{reserved.String(), wellKnown.String()}
}
