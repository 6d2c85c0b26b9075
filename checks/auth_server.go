package checks

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/protocol"
)

// The checks of the authorization chain past the protected resource metadata: the metadata of
// the authorization servers it names (auth.server-metadata, auth.pkce,
// auth.client-registration), the scopes a client is told to ask for (auth.scope), and the
// server's answer to a token no authorization server issued (auth.invalid-token). Each judges
// public documents only: the probe registers no client and requests no token.

// Revisions in which the rules of the authorization server's metadata begin.
const (
	// pkceMetadataSince: clients "MUST rely on authorization server metadata" to verify PKCE
	// (2025-11-25 basic/authorization, Authorization Code Protection).
	pkceMetadataSince = protocol.Revision20251125
	// cimdSince: authorization servers "SHOULD support OAuth Client ID Metadata Documents";
	// before, "SHOULD support the OAuth 2.0 Dynamic Client Registration Protocol".
	cimdSince = protocol.Revision20251125
	// issParameterSince: authorization servers "SHOULD include the iss parameter in
	// authorization responses" and "MUST advertise" it (2026-07-28 basic/authorization).
	issParameterSince = protocol.Revision20260728
	// challengeScopeSince: "MCP servers SHOULD include a scope parameter in the
	// WWW-Authenticate header" (2025-11-25 basic/authorization).
	challengeScopeSince = protocol.Revision20251125
	// openIDSince: authorization servers may offer OpenID Connect Discovery instead of RFC
	// 8414 metadata ("MUST provide at least one of the following discovery mechanisms");
	// 2025-06-18 asks for RFC 8414 ("MUST provide OAuth 2.0 Authorization Server Metadata").
	openIDSince = protocol.Revision20251125
)

func authServerChecks() []Check {
	return []Check{
		{ID: "auth.server-metadata", Area: "auth", Rule: "I", Spec: authSpec + "#authorization-server-metadata-discovery", Transport: protocol.TransportHTTP,
			Title:    "each authorization server the metadata names serves its metadata at a well-known URL, with the exact issuer, both endpoints and the code response type",
			Evaluate: checkServerMetadata},
		{ID: "auth.pkce", Area: "auth", Rule: "I", Spec: authSpec + "#authorization-code-protection", Transport: protocol.TransportHTTP,
			Title:    "authorization server metadata advertises PKCE with S256 (code_challenge_methods_supported)",
			Evaluate: checkPKCE},
		{ID: "auth.client-registration", Area: "auth", Rule: "I", Spec: authSpec + "#client-id-metadata-documents", Transport: protocol.TransportHTTP,
			Title:    "authorization servers offer a way for an unknown client to register (Client ID Metadata Documents; Dynamic Client Registration before 2025-11-25) and, from 2026-07-28, the iss parameter",
			Evaluate: checkClientRegistration},
		{ID: "auth.invalid-token", Area: "auth", Rule: "I", Spec: authSpec + "#token-handling", Transport: protocol.TransportHTTP,
			Title:    "a request with a bearer token no authorization server issued gets HTTP 401",
			Evaluate: checkInvalidToken},
		{ID: "auth.scope", Area: "auth", Rule: "I", Spec: authSpec + "#protected-resource-metadata-discovery-requirements", Transport: protocol.TransportHTTP,
			Title:    "the server tells clients which scopes to ask for: scope in the 401's challenge, scopes_supported in the metadata",
			Evaluate: checkScope},
	}
}

// oauthChain is what the authorization probe found past the 401: the protected resource
// metadata a client uses and the authorization servers looked up.
type oauthChain struct {
	init      probe.Step
	challenge probe.Frame
	prm       probe.Step
	prmURL    string
	prmDoc    map[string]json.RawMessage
	servers   []asLookup
}

// asLookup is the lookup of one authorization server's metadata.
type asLookup struct {
	issuer string
	tries  []probe.Step
	found  bool
	step   probe.Step // the fetch that found the document
	url    string
	doc    map[string]json.RawMessage
}

func (a asLookup) frames() []int {
	var out []int
	for _, t := range a.tries {
		out = append(out, Seqs(t.Request, t.Response)...)
	}
	return out
}

// issuerMatches reports whether the document names the issuer it was looked up for, exactly
// (RFC 8414 §3.3): a client uses no other.
func (a asLookup) issuerMatches() bool {
	var issuer string
	return a.found && json.Unmarshal(a.doc["issuer"], &issuer) == nil && issuer == a.issuer
}

// chainOf finds the OAuth chain of a server that answered 401, or records why a check of the
// chain does not apply: no 401, a revision before protected resource metadata, no usable
// metadata (auth.resource-metadata's finding).
func chainOf(r *Capture, f *Finding) (oauthChain, bool) {
	st, head, ok := unauthorized(r, f)
	if !ok {
		return oauthChain{}, false
	}
	if rev := r.Revision(); rev < resourceMetadataSince {
		f.Skip("the authorization chain of protected resource metadata begins in %s; the server speaks %s", resourceMetadataSince, rev)
		return oauthChain{}, false
	}
	c := oauthChain{init: st, challenge: head}
	for _, fetch := range stepsOn(r, probe.ConnAuth, probe.StepResourceMetadata) {
		servers, err := metadataDocument(r, fetch)
		if err != nil {
			if fetch.HTTPStatus == http.StatusOK {
				break // the first document found is the one a client uses
			}
			continue
		}
		doc, _ := r.Frame(fetch.Response)
		_ = json.Unmarshal(doc.Raw, &c.prmDoc)
		c.prm, c.prmURL = fetch, requestURL(r, fetch)
		c.servers = lookups(r, servers)
		return c, true
	}
	f.Skip("no usable protected resource metadata to follow (auth.resource-metadata judges that)")
	return oauthChain{}, false
}

// lookups pairs each authorization server the probe looked up (FetchableIssuer, at most
// MaxAuthServers, each once) with its fetches, in the specification's order of URLs.
func lookups(r *Capture, servers []string) []asLookup {
	fetches := stepsOn(r, probe.ConnAuth, probe.StepAuthServerMetadata)
	var out []asLookup
	seen := map[string]bool{}
	for _, issuer := range servers {
		if len(out) == probe.MaxAuthServers {
			break
		}
		if seen[issuer] || !probe.FetchableIssuer(issuer) {
			continue
		}
		seen[issuer] = true
		a := asLookup{issuer: issuer}
		urls := probe.ServerMetadataURLs(issuer)
		for _, fetch := range fetches {
			u := requestURL(r, fetch)
			if !containsString(urls, u) {
				continue
			}
			a.tries = append(a.tries, fetch)
			if a.found || fetch.HTTPStatus != http.StatusOK {
				continue
			}
			head, ok := r.Frame(fetch.Response)
			var doc map[string]json.RawMessage
			if ok && !head.Truncated && json.Unmarshal(head.Raw, &doc) == nil && doc != nil {
				a.found, a.step, a.url, a.doc = true, fetch, u, doc
			}
		}
		out = append(out, a)
	}
	return out
}

// usable lists the authorization servers whose metadata a client would use (found, issuer
// exact), or records why there is none to judge.
func (c oauthChain) usable(f *Finding) []asLookup {
	var out []asLookup
	for _, a := range c.servers {
		if a.issuerMatches() {
			out = append(out, a)
		}
	}
	if len(out) == 0 {
		f.Skip("no authorization server metadata a client would use (auth.server-metadata judges that)")
	}
	return out
}

// eachUsable judges every usable authorization server with judge, which records what is
// wrong and reports whether the server passed, and passes the check naming those that did.
func (c oauthChain) eachUsable(f *Finding, passed string, judge func(a asLookup, frames []int) bool) {
	var ok []string
	for _, a := range c.usable(f) {
		if judge(a, Seqs(a.step.Request, a.step.Response)) {
			ok = append(ok, a.issuer)
		}
	}
	if len(ok) > 0 {
		f.Pass("%s %s", passed, Clip([]byte(strings.Join(ok, ", "))))
	}
}

func checkServerMetadata(r *Capture, f *Finding) {
	c, ok := chainOf(r, f)
	if !ok {
		return
	}
	if len(c.servers) == 0 {
		f.Skip("no authorization server named by the metadata is on https or this machine (auth.resource-metadata judges them)")
		return
	}
	rev := r.Revision()
	var passed []string
	for _, a := range c.servers {
		if len(a.tries) == 0 {
			f.Untested("the metadata of %s was not fetched: %s", a.issuer, probeStopped(r))
			continue
		}
		if !a.found {
			var tried []string
			for _, t := range a.tries {
				tried = append(tried, fmt.Sprintf("%s (%s)", requestURL(r, t), fetchAnswer(r, t)))
			}
			f.Fail(a.frames(), "expected authorization server metadata for %s at a well-known URL (RFC 8414, or OpenID Connect Discovery), got none: %s",
				Clip([]byte(a.issuer)), strings.Join(tried, "; "))
			continue
		}
		frames := Seqs(a.step.Request, a.step.Response)
		faults := serverDocFaults(a)
		if rev < openIDSince && probe.IsOpenIDMetadataURL(a.url) {
			faults = append(faults, fmt.Sprintf("expected RFC 8414 metadata at %s (%s: authorization servers MUST provide OAuth 2.0 Authorization Server Metadata), found only OpenID Connect Discovery at %s",
				probe.ServerMetadataURLs(a.issuer)[0], rev, a.url))
		}
		for _, fault := range faults {
			f.Fail(frames, "%s", fault)
		}
		if len(faults) == 0 {
			passed = append(passed, fmt.Sprintf("%s at %s", a.issuer, a.url))
		}
	}
	if len(passed) > 0 {
		f.Pass("authorization server metadata with the exact issuer, both endpoints and response type code: %s", Clip([]byte(strings.Join(passed, "; "))))
	}
}

// serverDocFaults lists what RFC 8414 and the MCP specification ask of a metadata document a
// client found for the issuer it looked up.
func serverDocFaults(a asLookup) []string {
	var out []string
	where := a.url
	var issuer string
	switch raw, ok := a.doc["issuer"]; {
	case !ok:
		out = append(out, fmt.Sprintf("expected the metadata at %s to carry issuer %s (RFC 8414 §3.3), got none", where, Clip([]byte(a.issuer))))
	case json.Unmarshal(raw, &issuer) != nil || issuer != a.issuer:
		out = append(out, fmt.Sprintf("expected issuer %s (RFC 8414 §3.3: MUST be identical to the issuer the well-known URL was built from; a client MUST NOT use other metadata), got %s",
			Clip([]byte(a.issuer)), clipJSON(raw)))
	}
	for _, name := range []string{"authorization_endpoint", "token_endpoint"} {
		var endpoint string
		raw, ok := a.doc[name]
		switch {
		case !ok || json.Unmarshal(raw, &endpoint) != nil || endpoint == "":
			out = append(out, fmt.Sprintf("expected %s in the metadata at %s (RFC 8414 §2: REQUIRED for the authorization code grant), got %s", name, where, presentJSON(raw, ok)))
		case !secureOrLocal(endpoint):
			out = append(out, fmt.Sprintf("expected %s on https (all authorization server endpoints MUST be served over HTTPS), got %s", name, Clip([]byte(endpoint))))
		}
	}
	var types []string
	raw, ok := a.doc["response_types_supported"]
	if !ok || json.Unmarshal(raw, &types) != nil || !containsString(types, "code") {
		out = append(out, fmt.Sprintf(`expected response_types_supported (RFC 8414 §2: REQUIRED) to hold "code", the authorization code flow MCP uses, got %s`, presentJSON(raw, ok)))
	}
	return out
}

// presentJSON shows a member's value, clipped, or "none" when it is absent.
func presentJSON(raw json.RawMessage, ok bool) string {
	if !ok {
		return "none"
	}
	return clipJSON(raw)
}

// fetchAnswer says what a fetch got: the status and the start of the body.
func fetchAnswer(r *Capture, st probe.Step) string {
	if st.HTTPStatus == 0 {
		return describeStep(st)
	}
	return fmt.Sprintf("HTTP %d%s", st.HTTPStatus, describeBody(r, st.Response))
}

func checkPKCE(r *Capture, f *Finding) {
	c, ok := chainOf(r, f)
	if !ok {
		return
	}
	if rev := r.Revision(); rev < pkceMetadataSince {
		f.Skip("clients verify PKCE support in the authorization server metadata from %s on; the server speaks %s", pkceMetadataSince, rev)
		return
	}
	c.eachUsable(f, "PKCE with S256 advertised by", func(a asLookup, frames []int) bool {
		var methods []string
		raw, ok := a.doc["code_challenge_methods_supported"]
		switch {
		case !ok:
			f.Fail(frames, "expected code_challenge_methods_supported in the metadata of %s (without it \"MCP clients MUST refuse to proceed\"), got none", Clip([]byte(a.issuer)))
		case json.Unmarshal(raw, &methods) != nil || !containsString(methods, "S256"):
			f.Fail(frames, `expected code_challenge_methods_supported of %s to hold "S256" (clients MUST use S256), got %s`, Clip([]byte(a.issuer)), clipJSON(raw))
		default:
			return true
		}
		return false
	})
}

func checkClientRegistration(r *Capture, f *Finding) {
	c, ok := chainOf(r, f)
	if !ok {
		return
	}
	rev := r.Revision()
	c.eachUsable(f, "client registration offered by", func(a asLookup, frames []int) bool {
		_, dcr := a.doc["registration_endpoint"]
		var cimd, iss bool
		_ = json.Unmarshal(a.doc["client_id_metadata_document_supported"], &cimd)
		_ = json.Unmarshal(a.doc["authorization_response_iss_parameter_supported"], &iss)
		warned := false
		switch {
		case rev < cimdSince && !dcr:
			f.Warn(frames, "expected a registration_endpoint in the metadata of %s (%s: authorization servers SHOULD support Dynamic Client Registration), got none", Clip([]byte(a.issuer)), rev)
			warned = true
		case rev >= cimdSince && !cimd:
			also := "and no registration_endpoint either: an unknown client has no way to register"
			if dcr {
				also = "only a registration_endpoint (Dynamic Client Registration, which clients MAY use)"
			}
			f.Warn(frames, "expected client_id_metadata_document_supported: true in the metadata of %s (authorization servers SHOULD support Client ID Metadata Documents), got %s; %s",
				Clip([]byte(a.issuer)), presentJSON(a.doc["client_id_metadata_document_supported"], a.doc["client_id_metadata_document_supported"] != nil), also)
			warned = true
		}
		if rev >= issParameterSince && !iss {
			f.Warn(frames, "expected authorization_response_iss_parameter_supported: true in the metadata of %s (%s: authorization servers SHOULD include iss in authorization responses and MUST advertise it), got %s",
				Clip([]byte(a.issuer)), rev, presentJSON(a.doc["authorization_response_iss_parameter_supported"], a.doc["authorization_response_iss_parameter_supported"] != nil))
			warned = true
		}
		return !warned
	})
}

func checkScope(r *Capture, f *Finding) {
	c, ok := chainOf(r, f)
	if !ok {
		return
	}
	var told []string
	if r.Revision() >= challengeScopeSince {
		challenges := probe.ParseChallenges(c.challenge.HTTP.Header.Values("WWW-Authenticate"))
		scope, named := challengeScope(challenges)
		switch {
		case !probe.BearerChallenge(challenges):
			// No Bearer challenge at all is auth.challenge's finding.
		case !named:
			f.Warn(Seqs(c.init.Request, c.challenge.Seq), "expected a scope parameter in the Bearer challenge of the 401 (MCP servers SHOULD include it), got WWW-Authenticate %s", clipChallenge(c.challenge))
		default:
			told = append(told, fmt.Sprintf("scope %s in the challenge", Clip([]byte(scope))))
		}
	}
	var scopes []string
	raw, ok := c.prmDoc["scopes_supported"]
	if !ok || json.Unmarshal(raw, &scopes) != nil {
		f.Warn(Seqs(c.prm.Request, c.prm.Response), "expected scopes_supported in the protected resource metadata at %s (RFC 9728 §2: RECOMMENDED; clients request them when the challenge names no scope), got %s",
			c.prmURL, presentJSON(raw, ok))
	} else {
		told = append(told, fmt.Sprintf("scopes_supported %s", clipJSON(raw)))
	}
	if len(told) > 0 {
		f.Pass("%s", strings.Join(told, "; "))
	}
}

// challengeScope is the scope parameter of the first Bearer challenge that has one.
func challengeScope(cs []probe.Challenge) (string, bool) {
	for _, c := range cs {
		if strings.EqualFold(c.Scheme, "Bearer") {
			if s, ok := c.Params["scope"]; ok {
				return s, true
			}
		}
	}
	return "", false
}

func checkInvalidToken(r *Capture, f *Finding) {
	_, head, ok := unauthorized(r, f)
	if !ok {
		return
	}
	if rev := r.Revision(); !probe.InvalidTokenApplies(rev) {
		f.Skip("\"Invalid or expired tokens MUST receive a HTTP 401 response\" is in the specification from %s on; the server speaks %s", protocol.Revision20250618, rev)
		return
	}
	st, sent := stepOn(r, probe.ConnAuth, probe.StepAuthInvalidToken)
	if !sent {
		if !prmServed(r) && !probe.BearerChallenge(probe.ParseChallenges(head.HTTP.Header.Values("WWW-Authenticate"))) {
			f.Skip("the server shows no sign of OAuth (no Bearer challenge, no protected resource metadata): no bearer token to send (auth.resource-metadata judges that)")
			return
		}
		f.notJudged(stoppedHere(r), "the request with a bogus bearer token was not sent: %s", probeStopped(r))
		return
	}
	answer, _ := r.Frame(st.Response)
	frames := Seqs(st.Request, answer.Seq)
	switch st.HTTPStatus {
	case http.StatusUnauthorized:
		f.Pass("%s with a bearer token no authorization server issued got HTTP 401", st.Method)
	case 0:
		f.Untested("%s with a bogus bearer token got no answer: %s", st.Method, describeStep(st))
	default:
		f.Fail(frames, "%s with a bearer token no authorization server issued: expected HTTP 401 (invalid or expired tokens MUST receive a HTTP 401 response), got %s", st.Method, httpAnswer(r, st))
	}
}

// prmServed reports whether a protected resource metadata fetch got a JSON object, which
// with a Bearer challenge is what shows the probe that a server uses OAuth.
func prmServed(r *Capture) bool {
	for _, st := range stepsOn(r, probe.ConnAuth, probe.StepResourceMetadata) {
		var doc map[string]json.RawMessage
		if head, ok := r.Frame(st.Response); ok && st.HTTPStatus == http.StatusOK && json.Unmarshal(head.Raw, &doc) == nil && doc != nil {
			return true
		}
	}
	return false
}
