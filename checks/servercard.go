package checks

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpwatch/mcpwatch/jsondoc"
	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/protocol"
)

// specServerCard is the Server Card extension's proposal (SEP-2127, a draft).
const specServerCard = "https://github.com/modelcontextprotocol/modelcontextprotocol/pull/2127"

func serverCardChecks() []Check {
	return []Check{
		{ID: "server.card", Area: "server", Spec: specServerCard, Transport: protocol.TransportHTTP,
			Title:    "a served Server Card (SEP-2127, draft) is a JSON object whose remotes name the probed endpoint and whose revisions and version match what the server answers (advice)",
			Evaluate: checkServerCard},
	}
}

// checkServerCard judges the card the probe found at <endpoint>/server-card or
// /.well-known/mcp/server-card.json. The extension is a draft, and its consistency rule is a
// SHOULD of a draft ("A Server Card SHOULD accurately reflect the server's runtime
// behavior: the values a client observes once connected — the serverInfo (name, version)
// and supportedVersions ... the transport served at each remotes[] endpoint ... SHOULD NOT
// contradict the equivalent values declared in the Server Card"), so every finding is
// advice. No card (404 or any refusal) is not a fault: serving one is optional ("MAY").
func checkServerCard(r *Capture, f *Finding) {
	steps := stepsOn(r, probe.ConnServerCard, probe.StepServerCard)
	if len(steps) == 0 {
		switch {
		case r.RulesElsewhere != "":
			f.Skip("the server card was not asked for here: %s", r.RulesElsewhere)
		case r.Transport == protocol.TransportSSE:
			f.Skip("legacy HTTP+SSE: the card is a Streamable HTTP extension")
		default:
			f.Untested("the server card was not asked for: %s", probeStopped(r))
		}
		return
	}
	var card probe.Step
	found := false
	var statuses []string
	for _, st := range steps {
		if st.HTTPStatus >= 200 && st.HTTPStatus <= 299 {
			card, found = st, true
			break
		}
		if st.HTTPStatus == 0 {
			statuses = append(statuses, describeStep(st))
		} else {
			statuses = append(statuses, http.StatusText(st.HTTPStatus)+" ("+strconv.Itoa(st.HTTPStatus)+")")
		}
	}
	if !found {
		f.Skip("no server card served (%s)", strings.Join(statuses, ", "))
		return
	}
	frames := Seqs(card.Request, card.Response)
	head, _ := r.Frame(card.Response)
	doc, err := jsondoc.Parse(head.Raw)
	if err != nil || doc.Root().Kind() != jsondoc.Object {
		f.Advise(frames, "the server card is served but is not a JSON object: %s", Clip(head.Raw))
		return
	}
	root := doc.Root()
	judgeCardRemotes(r, f, frames, root.Get("remotes"))
	if v := root.Get("version"); v.Kind() == jsondoc.String {
		if sv := serverInfo(r).Get("version"); sv.Kind() == jsondoc.String && sv.Str() != v.Str() {
			f.Advise(frames, "the server card names version %s; the server says %s", clipQuote(v.Str()), clipQuote(sv.Str()))
		}
	}
	f.Pass("the server card is a JSON object consistent with what the server answered")
}

// judgeCardRemotes compares the card's remotes with the endpoint probed and the revisions
// the server accepted.
func judgeCardRemotes(r *Capture, f *Finding, frames []int, remotes jsondoc.Value) {
	if remotes.Kind() != jsondoc.Array || remotes.Len() == 0 {
		return
	}
	var urls, versions []string
	templated := false
	for _, rem := range remotes.Elements() {
		if u := rem.Get("url"); u.Kind() == jsondoc.String {
			urls = append(urls, u.Str())
			templated = templated || strings.Contains(u.Str(), "{")
		}
		if vs := rem.Get("supportedProtocolVersions"); vs.Kind() == jsondoc.Array {
			for _, v := range vs.Elements() {
				if v.Kind() == jsondoc.String && !slices.Contains(versions, v.Str()) {
					versions = append(versions, v.Str())
				}
			}
		}
	}
	if !templated && len(urls) > 0 && !slices.ContainsFunc(urls, func(u string) bool { return sameEndpoint(u, r.Target) }) {
		f.Advise(frames, "the server card's remotes name %s, not the endpoint probed", quoteList(urls))
	}
	if refused := refusedRevisions(r, versions); len(refused) > 0 {
		f.Advise(frames, "the server card claims %s, which the server does not accept", quoteList(refused))
	}
}

// refusedRevisions are the revisions of a card that the server showed it does not accept: for
// a stateless server those missing from supportedVersions; in the session era the revision the
// probe offered when the server answered with another.
func refusedRevisions(r *Capture, claimed []string) []string {
	var out []string
	if raw, kind := r.Handshake(); kind == probe.HandshakeDiscover {
		doc, err := jsondoc.Parse(raw)
		if err != nil {
			return nil
		}
		sv := doc.Root().Get("supportedVersions")
		if sv.Kind() != jsondoc.Array {
			return nil
		}
		var supported []string
		for _, v := range sv.Elements() {
			if v.Kind() == jsondoc.String {
				supported = append(supported, v.Str())
			}
		}
		for _, c := range claimed {
			if protocol.KnownRevision(c) && !slices.Contains(supported, c) {
				out = append(out, c)
			}
		}
		return out
	}
	if r.Negotiated != "" && r.Requested != "" && r.Negotiated != r.Requested && slices.Contains(claimed, r.Requested) {
		out = append(out, r.Requested)
	}
	return out
}

// sameEndpoint compares two URLs by scheme, host (case-insensitively) and path (without a
// trailing slash).
func sameEndpoint(a, b string) bool {
	ua, err1 := url.Parse(a)
	ub, err2 := url.Parse(b)
	if err1 != nil || err2 != nil {
		return false
	}
	return strings.EqualFold(ua.Scheme, ub.Scheme) && strings.EqualFold(ua.Host, ub.Host) &&
		strings.TrimSuffix(ua.Path, "/") == strings.TrimSuffix(ub.Path, "/")
}
