package checks

import (
	"net/http"
	"testing"

	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/protocol"
)

const (
	prmPathURL = "http://127.0.0.1:1/.well-known/oauth-protected-resource/mcp"
	prmRootURL = "http://127.0.0.1:1/.well-known/oauth-protected-resource"
	prmDoc     = `{"resource":"http://127.0.0.1:1/mcp","authorization_servers":["https://auth.example.com"]}`
)

// unauthorizedReply answers 401 with a WWW-Authenticate header ("" for none).
func unauthorizedReply(challenge string) reply {
	return func(w *wireScript, conn int, _ string) int {
		var h http.Header
		if challenge != "" {
			h = http.Header{"Www-Authenticate": {challenge}}
		}
		w.add(probe.Frame{Conn: conn, Dir: probe.In, Kind: probe.KindHTTPResponse, Raw: []byte("unauthorized\n"),
			Exchange: w.exchange[conn], HTTP: &probe.HTTPInfo{Status: 401, ContentType: "text/plain", Header: h}})
		return -1
	}
}

// metadataFetch is one GET of the discovery and its answer.
type metadataFetch struct {
	url         string
	status      int
	contentType string
	body        string
}

// authProbe scripts the conformant session (speaking initResult's revision, or 2025-11-25)
// plus the auth probe's connection: its initialize without credentials, then the fetches.
func authProbe(initAnswer reply, fetches []metadataFetch, edits ...func(p *sessionPlan)) *probe.Result {
	return withRules(protocol.TransportHTTP, func(w *wireScript) {
		w.call(probe.ConnAuth, probe.StepAuthInitialize, "initialize", "1", ruleInitParams, initAnswer)
		for _, f := range fetches {
			w.fetch(probe.ConnAuth, probe.StepResourceMetadata, "GET", f.url, f.status, f.contentType, f.body, nil)
		}
	}, edits...)
}

func speaks(rev string) func(p *sessionPlan) {
	return func(p *sessionPlan) {
		p.initResult = `{"protocolVersion":"` + rev + `","capabilities":{"tools":{}},"serverInfo":{"name":"fixture","version":"1.0.0"}}`
	}
}

func TestAuthChallenge(t *testing.T) {
	named := unauthorizedReply(`Bearer realm="mcp", resource_metadata="` + prmPathURL + `"`)
	bare := unauthorizedReply(`Bearer realm="mcp"`)
	found := []metadataFetch{{prmPathURL, 200, "application/json", prmDoc}}
	missing := []metadataFetch{{prmPathURL, 404, "text/plain", "not found"}, {prmRootURL, 404, "text/plain", "not found"}}
	rows := []checkRow{
		{name: "resource_metadata named", want: StatusPass, msg: `HTTP 401 with WWW-Authenticate "Bearer realm=\"mcp\", resource_metadata=`,
			res: authProbe(named, found)},
		// RFC 9110 §11.6.1: "A server generating a 401 (Unauthorized) response MUST send a
		// WWW-Authenticate header field containing at least one challenge."
		{name: "no WWW-Authenticate", want: StatusFail, msg: "HTTP 401: expected a WWW-Authenticate header (RFC 9110 §11.6.1: a 401 MUST carry at least one challenge), got none",
			res: authProbe(unauthorizedReply(""), found)},
		{name: "2025-06-18 wants resource_metadata", want: StatusFail,
			msg: `HTTP 401: expected WWW-Authenticate to name resource_metadata (2025-06-18), got "Bearer realm=\"mcp\""`,
			res: authProbe(bare, found, speaks("2025-06-18"))},
		{name: "2025-11-25 takes the well-known URL instead", want: StatusPass,
			msg: "no resource_metadata, but the metadata is at the well-known " + prmPathURL + ", which 2025-11-25 allows",
			res: authProbe(bare, found)},
		{name: "2025-11-25: a document at a well-known URL that is no metadata still says OAuth", want: StatusFail,
			msg: "expected WWW-Authenticate to name resource_metadata (or the metadata at a well-known URL)",
			res: authProbe(bare, []metadataFetch{{prmPathURL, 200, "text/html", "<html>"}})},
		// No resource_metadata and no metadata anywhere: no OAuth at all, which is
		// auth.resource-metadata's finding (one fault, one finding).
		{name: "a server without OAuth is left to auth.resource-metadata", want: StatusPass, msg: "the server offers no OAuth discovery",
			res: authProbe(bare, missing)},
		{name: "a Basic challenge without OAuth under 2025-06-18", want: StatusPass, msg: "the server offers no OAuth discovery",
			res: authProbe(unauthorizedReply(`Basic realm="mcp"`), missing, speaks("2025-06-18"))},
		{name: "2025-03-26 needs only the header", want: StatusPass, msg: "HTTP 401 with WWW-Authenticate",
			res: authProbe(bare, nil, speaks("2025-03-26"))},
		{name: "no authorization asked for", want: StatusSkip, msg: "the server asks for no authorization: initialize without credentials got HTTP 200 with a result",
			res: authProbe(resultReply(plainInitResult), nil)},
		{name: "never sent", want: StatusUntested, msg: "the request without credentials was not sent", res: scriptedSession(protocol.TransportHTTP)},
	}
	runCheckRows(t, "auth.challenge", rows)
}

func TestAuthResourceMetadata(t *testing.T) {
	named := unauthorizedReply(`Bearer resource_metadata="` + prmPathURL + `"`)
	bare := unauthorizedReply(`Bearer realm="mcp"`)
	rows := []checkRow{
		{name: "at the named URL", want: StatusPass, msg: `metadata at ` + prmPathURL + ` names authorization servers "https://auth.example.com"`,
			res: authProbe(named, []metadataFetch{{prmPathURL, 200, "application/json", prmDoc}})},
		{name: "at the root, after the path's URL", want: StatusPass, msg: "metadata at " + prmRootURL,
			res: authProbe(bare, []metadataFetch{{prmPathURL, 404, "text/plain", "nf"}, {prmRootURL, 200, "application/json", prmDoc}})},
		{name: "the named URL is not served", want: StatusFail,
			msg: `expected protected resource metadata at the URL resource_metadata names, got none: ` + prmPathURL + ` (HTTP 404 of type "text/plain" with body "nf")`,
			res: authProbe(named, []metadataFetch{{prmPathURL, 404, "text/plain", "nf"}})},
		// 2025-11-25 basic/authorization: "Authorization is OPTIONAL for MCP
		// implementations." and "Implementations using an HTTP-based transport SHOULD conform
		// to this specification." A server that wants credentials but shows no sign of OAuth
		// (no resource_metadata, no metadata at the well-known URLs) breaks the SHOULD only.
		{name: "no OAuth at all warns and says how to pass credentials", want: StatusWarn,
			msg: `the server needs credentials but offers no OAuth discovery (no resource_metadata in WWW-Authenticate "Bearer realm=\"mcp\"", no protected resource metadata at the well-known URLs): expected the MCP authorization flow, which HTTP servers SHOULD follow; to probe it, pass them with --bearer-token TOKEN`,
			res: authProbe(bare, []metadataFetch{{prmPathURL, 404, "", ""}, {prmRootURL, 404, "", ""}})},
		{name: "a Basic challenge without OAuth warns", want: StatusWarn, msg: "offers no OAuth discovery",
			res: authProbe(unauthorizedReply(`Basic realm="mcp"`), []metadataFetch{{prmPathURL, 404, "", ""}, {prmRootURL, 404, "", ""}})},
		{name: "no challenge and no metadata warns", want: StatusWarn, msg: "no resource_metadata in WWW-Authenticate (none)",
			res: authProbe(unauthorizedReply(""), []metadataFetch{{prmPathURL, 404, "", ""}, {prmRootURL, 404, "", ""}})},
		{name: "not JSON", want: StatusFail, msg: "got a body that is no JSON object",
			res: authProbe(named, []metadataFetch{{prmPathURL, 200, "text/html", "<html>"}})},
		{name: "no authorization_servers", want: StatusFail, msg: "got a document without authorization_servers",
			res: authProbe(named, []metadataFetch{{prmPathURL, 200, "application/json", `{"resource":"http://127.0.0.1:1/mcp"}`}})},
		{name: "an empty authorization_servers", want: StatusFail, msg: "authorization_servers [], not a non-empty array of strings",
			res: authProbe(named, []metadataFetch{{prmPathURL, 200, "application/json", `{"authorization_servers":[]}`}})},
		{name: "a named URL that is no URL", want: StatusFail, msg: `expected resource_metadata to be an absolute http(s) URL, got "/prm"`,
			res: authProbe(unauthorizedReply(`Bearer resource_metadata="/prm"`), nil)},
		{name: "before 2025-06-18", want: StatusSkip, msg: "protected resource metadata is required from 2025-06-18 on; the server speaks 2025-03-26",
			res: authProbe(bare, nil, speaks("2025-03-26"))},
		{name: "no authorization asked for", want: StatusSkip, msg: "the server asks for no authorization",
			res: authProbe(statusReply(403, "text/plain", "forbidden"), nil)},
	}
	runCheckRows(t, "auth.resource-metadata", rows)
}
