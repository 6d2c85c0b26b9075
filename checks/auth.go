package checks

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/protocol"
)

const authSpec = "https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization"

// Revisions in which the authorization rules begin (basic/authorization).
const (
	// resourceMetadataSince: protected resource metadata, named by resource_metadata.
	resourceMetadataSince = protocol.Revision20250618
	// wellKnownAloneSince: the metadata may be found at a well-known URL instead.
	wellKnownAloneSince = protocol.Revision20251125
)

// authChecks judge how a server that wants credentials tells a client where to get them. The
// probe initializes once without the user's credentials; on a 401 it discovers the protected
// resource metadata as a client would.
func authChecks() []Check {
	return append([]Check{
		{ID: "auth.challenge", Area: "auth", Rule: "I", Spec: authSpec + "#authorization-server-location",
			Transport: protocol.TransportHTTP,
			Title:     "a 401 carries WWW-Authenticate (from 2025-06-18 on naming resource_metadata)",
			Evaluate:  checkAuthChallenge},
		{ID: "auth.resource-metadata", Area: "auth", Rule: "I", Spec: authSpec + "#protected-resource-metadata-discovery-requirements",
			Transport: protocol.TransportHTTP,
			Title:     "protected resource metadata is served where the challenge or the well-known URLs say, with authorization_servers",
			Evaluate:  checkResourceMetadata},
	}, authServerChecks()...)
}

// unauthorized finds the 401 of the probe's request without credentials (initialize, or
// server/discover for a stateless server), or says why the auth checks do not apply.
func unauthorized(r *Capture, f *Finding) (probe.Step, probe.Frame, bool) {
	st, ok := stepOn(r, probe.ConnAuth, probe.StepAuthInitialize)
	if !ok {
		f.notJudged(stoppedHere(r), "the request without credentials was not sent: %s", probeStopped(r))
		return st, probe.Frame{}, false
	}
	if st.HTTPStatus != http.StatusUnauthorized {
		f.Skip("the server asks for no authorization: %s without credentials got %s", st.Method, httpAnswer(r, st))
		return st, probe.Frame{}, false
	}
	head, _ := r.Frame(st.Response)
	if head.HTTP == nil {
		f.Untested("the 401 response was not recorded")
		return st, probe.Frame{}, false
	}
	return st, head, true
}

func checkAuthChallenge(r *Capture, f *Finding) {
	st, head, ok := unauthorized(r, f)
	if !ok {
		return
	}
	frames := Seqs(st.Request, head.Seq)
	values := head.HTTP.Header.Values("WWW-Authenticate")
	if len(values) == 0 {
		// RFC 9110 §11.6.1, whatever the server's way of authorizing.
		f.Fail(frames, "HTTP 401: expected a WWW-Authenticate header (RFC 9110 §11.6.1: a 401 MUST carry at least one challenge), got none")
		return
	}
	shown := Clip([]byte(strings.Join(values, ", ")))
	rev := r.Revision()
	if _, named := probe.ResourceMetadataURL(probe.ParseChallenges(values)); named || rev < resourceMetadataSince {
		f.Pass("HTTP 401 with WWW-Authenticate %s", shown)
		return
	}
	if withoutOAuth(r, head) {
		// One fault, one finding: a server with no OAuth discovery at all is
		// auth.resource-metadata's to judge.
		f.Pass("HTTP 401 with WWW-Authenticate %s; the server offers no OAuth discovery (see auth.resource-metadata)", shown)
		return
	}
	if found, ok := foundMetadata(r); ok && rev >= wellKnownAloneSince {
		f.Pass("HTTP 401 with WWW-Authenticate %s; no resource_metadata, but the metadata is at the well-known %s, which %s allows",
			shown, found, wellKnownAloneSince)
		return
	}
	if rev >= wellKnownAloneSince {
		f.Fail(frames, "HTTP 401: expected WWW-Authenticate to name resource_metadata (or the metadata at a well-known URL), got %s and no metadata at the well-known URLs", shown)
		return
	}
	f.Fail(frames, "HTTP 401: expected WWW-Authenticate to name resource_metadata (%s), got %s", rev, shown)
}

// withoutOAuth reports whether a server that answered 401 shows no sign of OAuth: its
// challenge names no resource_metadata and no discovery fetch got a document (HTTP 200). Such
// a server asks for credentials of its own kind (an API key, Basic): MCP authorization is
// OPTIONAL, and an HTTP server that requires credentials only SHOULD conform to it.
func withoutOAuth(r *Capture, head probe.Frame) bool {
	if _, named := probe.ResourceMetadataURL(probe.ParseChallenges(head.HTTP.Header.Values("WWW-Authenticate"))); named {
		return false
	}
	for _, st := range stepsOn(r, probe.ConnAuth, probe.StepResourceMetadata) {
		if st.HTTPStatus == http.StatusOK {
			return false
		}
	}
	return true
}

// foundMetadata is the URL of the first metadata document the discovery fetched whole.
func foundMetadata(r *Capture) (string, bool) {
	for _, st := range stepsOn(r, probe.ConnAuth, probe.StepResourceMetadata) {
		if _, err := metadataDocument(r, st); err == nil {
			return requestURL(r, st), true
		}
	}
	return "", false
}

// requestURL is the URL a step's request went to.
func requestURL(r *Capture, st probe.Step) string {
	if f, ok := r.Frame(st.Request); ok && f.HTTP != nil {
		return f.HTTP.URL
	}
	return "(unknown URL)"
}

// metadataDocument reads a protected resource metadata document from the answer to a step:
// an HTTP 200 with a JSON object naming at least one authorization server (RFC 9728 as MCP
// requires it).
func metadataDocument(r *Capture, st probe.Step) ([]string, error) {
	head, ok := r.Frame(st.Response)
	switch {
	case st.HTTPStatus == 0:
		return nil, fmt.Errorf("no response (%s)", describeStep(st))
	case !ok || st.HTTPStatus != http.StatusOK:
		return nil, fmt.Errorf("HTTP %d%s", st.HTTPStatus, describeBody(r, st.Response))
	case head.Truncated:
		return nil, fmt.Errorf("a document longer than the probe reads (%d bytes)", len(head.Raw))
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(head.Raw, &doc); err != nil {
		return nil, fmt.Errorf("a body that is no JSON object: %s", Clip(head.Raw))
	}
	raw, ok := doc["authorization_servers"]
	if !ok {
		return nil, fmt.Errorf("a document without authorization_servers: %s", clipJSON(head.Raw))
	}
	var servers []string
	if json.Unmarshal(raw, &servers) != nil || len(servers) == 0 {
		return nil, fmt.Errorf("authorization_servers %s, not a non-empty array of strings", clipJSON(raw))
	}
	return servers, nil
}

func checkResourceMetadata(r *Capture, f *Finding) {
	st, head, ok := unauthorized(r, f)
	if !ok {
		return
	}
	if rev := r.Revision(); rev < resourceMetadataSince {
		f.Skip("protected resource metadata is required from %s on; the server speaks %s", resourceMetadataSince, rev)
		return
	}
	challenges := probe.ParseChallenges(head.HTTP.Header.Values("WWW-Authenticate"))
	advertised, named := probe.ResourceMetadataURL(challenges)
	fetches := stepsOn(r, probe.ConnAuth, probe.StepResourceMetadata)
	if withoutOAuth(r, head) {
		var frames []int
		for _, fetch := range fetches {
			frames = append(frames, Seqs(fetch.Request, fetch.Response)...)
		}
		f.Warn(append(Seqs(st.Request, head.Seq), frames...),
			"the server needs credentials but offers no OAuth discovery (no resource_metadata in WWW-Authenticate %s, no protected resource metadata at the well-known URLs): expected the MCP authorization flow, which HTTP servers SHOULD follow; to probe it, %s",
			clipChallenge(head), credentialsHint)
		return
	}
	if named && len(fetches) == 0 {
		f.Fail(Seqs(st.Request, head.Seq), "expected resource_metadata to be an absolute http(s) URL, got %s", Clip([]byte(advertised)))
		return
	}
	var tried []string
	var frames []int
	for _, fetch := range fetches {
		servers, err := metadataDocument(r, fetch)
		url := requestURL(r, fetch)
		if err == nil {
			if faults := resourceDocFaults(r, fetch, url, servers); len(faults) > 0 {
				for _, fault := range faults {
					f.Fail(Seqs(fetch.Request, fetch.Response), "%s", fault)
				}
				return
			}
			f.Pass("metadata at %s names authorization servers %s", url, Clip([]byte(strings.Join(servers, ", "))))
			return
		}
		frames = append(frames, Seqs(fetch.Request, fetch.Response)...)
		if fetch.HTTPStatus == http.StatusOK {
			// The first document found is the one a client uses: no further looking.
			f.Fail(frames, "expected protected resource metadata at %s, got %v", url, err)
			return
		}
		tried = append(tried, fmt.Sprintf("%s (%v)", url, err))
	}
	where := "at the well-known URLs"
	if named {
		where = "at the URL resource_metadata names"
	}
	if len(tried) == 0 {
		f.Fail(Seqs(st.Request, head.Seq), "expected protected resource metadata %s, got nothing fetched", where)
		return
	}
	f.Fail(frames, "expected protected resource metadata %s, got none: %s", where, strings.Join(tried, "; "))
}

// clipChallenge is the WWW-Authenticate of a 401, clipped, or "(none)".
func clipChallenge(head probe.Frame) string {
	values := head.HTTP.Header.Values("WWW-Authenticate")
	if len(values) == 0 {
		return "(none)"
	}
	return Clip([]byte(strings.Join(values, ", ")))
}

// resourceDocFaults lists what is wrong with the protected resource metadata a client found
// at fetched, beyond its authorization_servers being there (metadataDocument):
//   - RFC 9728 §2: "resource: REQUIRED. The protected resource's resource identifier";
//   - RFC 9728 §3.3: "The resource value returned MUST be identical to the protected
//     resource's resource identifier value into which the well-known URI path suffix was
//     inserted to create the URL used to retrieve the metadata", and, for a URL named by
//     resource_metadata, identical to "the URL that the client used to make the request to
//     the resource server". The endpoint's URL is accepted wherever the document was found
//     (the MCP specification has clients look at the root for an endpoint with a path), the
//     origin only for the document at the root;
//   - the metadata on https, except on this machine (RFC 9728 §3: the resource identifier
//     "uses the https scheme"); not judged when the endpoint itself is plain http elsewhere,
//     which is tls.version's finding;
//   - each authorization server an https URL without query or fragment, except on this
//     machine (RFC 8414 §2 issuer; basic/authorization, Communication Security: "All
//     authorization server endpoints MUST be served over HTTPS").
func resourceDocFaults(r *Capture, fetch probe.Step, fetched string, servers []string) []string {
	head, _ := r.Frame(fetch.Response)
	var doc map[string]json.RawMessage
	_ = json.Unmarshal(head.Raw, &doc)
	endpoint := authEndpoint(r)
	var out []string
	raw, ok := doc["resource"]
	var resource string
	switch {
	case !ok:
		out = append(out, fmt.Sprintf("expected the metadata at %s to carry resource (RFC 9728 §2: REQUIRED), got none", fetched))
	case json.Unmarshal(raw, &resource) != nil:
		out = append(out, fmt.Sprintf("expected resource to be a URL string, got %s", clipJSON(raw)))
	default:
		accepted := acceptedResources(endpoint, fetched)
		if !containsString(accepted, sameResource(resource)) {
			out = append(out, fmt.Sprintf("expected resource %s (RFC 9728 §3.3: MUST be identical to the URL of the resource the metadata was looked up for), got %s",
				Clip([]byte(strings.Join(accepted, " or "))), Clip([]byte(resource))))
		}
	}
	if secureOrLocal(endpoint) && !secureOrLocal(fetched) {
		out = append(out, fmt.Sprintf("expected the metadata on https (RFC 9728 §3), got it at %s", fetched))
	}
	for _, s := range servers {
		if why := issuerProblem(s); why != "" {
			out = append(out, fmt.Sprintf("expected authorization server %s to be an https URL without query or fragment (RFC 8414 §2; all authorization server endpoints MUST be served over HTTPS), got %s",
				Clip([]byte(s)), why))
		}
	}
	return out
}

// authEndpoint is the URL the authorization probe sent its initialize to: the server URL a
// client uses, without the user's credentials.
func authEndpoint(r *Capture) string {
	st, ok := stepOn(r, probe.ConnAuth, probe.StepAuthInitialize)
	if !ok {
		return ""
	}
	if f, ok := r.Frame(st.Request); ok && f.HTTP != nil {
		return f.HTTP.URL
	}
	return ""
}

// acceptedResources are the resource values a document found at fetched may carry for the
// endpoint: the endpoint's URL, and its origin when the document is the one at the root.
func acceptedResources(endpoint, fetched string) []string {
	out := []string{sameResource(endpoint)}
	u, err := url.Parse(endpoint)
	if err != nil {
		return out
	}
	origin := u.Scheme + "://" + u.Host
	if fetched == origin+probe.WellKnownResourceMetadata && origin != out[0] {
		out = append(out, origin)
	}
	return out
}

// sameResource is a resource URL with the "/" alone of an empty path dropped: for HTTP both
// name the same request target ("https://mcp.example.com" and "https://mcp.example.com/").
func sameResource(s string) string {
	if u, err := url.Parse(s); err == nil && u.Path == "/" && u.RawQuery == "" && u.Fragment == "" {
		return strings.TrimSuffix(s, "/")
	}
	return s
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// secureOrLocal reports whether a URL is on https or on this machine, which the rules that
// ask for https exempt (plain http to a loopback host never leaves it). A URL that does not
// parse is neither.
func secureOrLocal(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	return u.Scheme == "https" || u.Scheme == "http" && probe.LoopbackHost(u.Hostname())
}

// issuerProblem says why an authorization server named in metadata is no issuer a client may
// use ("" when it is one).
func issuerProblem(issuer string) string {
	u, err := url.Parse(issuer)
	switch {
	case err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https"):
		return "no absolute http(s) URL"
	case u.RawQuery != "" || u.Fragment != "":
		return "a URL with a query or fragment"
	case !secureOrLocal(issuer):
		return "plain http to another host"
	}
	return ""
}
