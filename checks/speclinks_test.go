package checks

import (
	"bufio"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/protocol"
)

// specAnchors reads testdata/spec-anchors.txt: per revision, the pages of the specification
// and the anchors of their headings, as read from the specification repository.
func specAnchors(t *testing.T) map[string]map[string]map[string]bool {
	t.Helper()
	f, err := os.Open("testdata/spec-anchors.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]map[string]map[string]bool{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		rev, page := fields[0], strings.TrimPrefix(fields[1], "/")
		if out[rev] == nil {
			out[rev] = map[string]map[string]bool{}
		}
		anchors := map[string]bool{}
		for _, a := range fields[2:] {
			anchors[a] = true
		}
		out[rev][page] = anchors
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// Every check links, for every revision the probe speaks, to a valid URL (one '#' at most)
// naming a page and heading that exist in that revision (or in the revision that states a
// rule the negotiated one lacks), or to the JSON-RPC 2.0 or RFC text the rule comes from.
func TestEveryCheckLinksToAnExistingSectionOfEachRevision(t *testing.T) {
	pages := specAnchors(t)
	reg, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range reg.Checks() {
		if len(c.spec) == 0 {
			t.Errorf("%s: no entry in specTable", c.ID)
			continue
		}
		for _, rev := range protocol.Revisions() {
			u := c.SpecURL(rev)
			if strings.Count(u, "#") > 1 {
				t.Errorf("%s @%s: %q has more than one '#'", c.ID, rev, u)
				continue
			}
			parsed, err := url.Parse(u)
			if err != nil || parsed.Scheme != "https" || parsed.Host == "" {
				t.Errorf("%s @%s: %q is not an https URL (%v)", c.ID, rev, u, err)
				continue
			}
			rest, ok := strings.CutPrefix(u, specBase)
			if !ok {
				switch {
				case parsed.Host == "www.jsonrpc.org", parsed.Host == "www.rfc-editor.org":
				case u == sep2127ServerCard: // a draft extension, the only place its rules are stated
				default:
					t.Errorf("%s @%s: %q is neither the MCP specification, JSON-RPC 2.0 nor an RFC", c.ID, rev, u)
				}
				continue
			}
			place, _ := c.spec.at(rev)
			want := rev
			if place.Revision != "" {
				want = place.Revision
			}
			path, anchor, _ := strings.Cut(rest, "#")
			gotRev, pagePath, _ := strings.Cut(path, "/")
			if gotRev != want {
				t.Errorf("%s @%s: %q links to revision %s, want %s", c.ID, rev, u, gotRev, want)
			}
			anchors, ok := pages[gotRev][pagePath]
			if !ok {
				t.Errorf("%s @%s: %q: revision %s has no page %q", c.ID, rev, u, gotRev, pagePath)
				continue
			}
			if anchor != "" && !anchors[anchor] {
				t.Errorf("%s @%s: %q: page %s/%s has no heading #%s", c.ID, rev, u, gotRev, pagePath, anchor)
			}
		}
	}
}

// specTable holds no entry for a check that does not exist.
func TestSpecTableHasNoOrphans(t *testing.T) {
	reg, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	for id := range specTable() {
		if _, ok := reg.Lookup(id); !ok {
			t.Errorf("specTable has %s, which no check registers", id)
		}
	}
}

// A finding links to the revision the probe spoke: the same rule lives on other pages in
// other revisions, and error codes come from JSON-RPC 2.0.
func TestFindingLinksFollowTheNegotiatedRevision(t *testing.T) {
	reg, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		revision, id, want string
	}{
		// 2024-11-05 basic/transports, HTTP with SSE, Security Warning: "Servers MUST
		// validate the Origin header on all incoming connections".
		{"2024-11-05", "http.origin", specBase + "2024-11-05/basic/transports#security-warning"},
		{"2025-11-25", "http.origin", specBase + "2025-11-25/basic/transports#security-warning"},
		// 2026-07-28 moved Streamable HTTP to its own page.
		{"2026-07-28", "http.origin", specBase + "2026-07-28/basic/transports/streamable-http#security--endpoint"},
		{"2026-07-28", "stdio.shutdown", specBase + "2026-07-28/basic/transports/stdio#shutdown"},
		{"2024-11-05", "jsonrpc.id-echo", specBase + "2024-11-05/basic/messages#responses"},
		{"2025-06-18", "http.protocol-version-header", specBase + "2025-06-18/basic/transports#protocol-version-header"},
		// -32601, -32700 and -32600 are defined by JSON-RPC 2.0 §5.1, not by an MCP page.
		{"2025-11-25", "lifecycle.unknown-method", "https://www.jsonrpc.org/specification#error_object"},
		{"2025-11-25", "lifecycle.parse-error", "https://www.jsonrpc.org/specification#error_object"},
		{"2025-11-25", "lifecycle.invalid-request", "https://www.jsonrpc.org/specification#error_object"},
		// RFC 9110 §11.6.1: a 401 MUST carry WWW-Authenticate.
		{"2025-11-25", "auth.challenge", "https://www.rfc-editor.org/rfc/rfc9110#section-11.6.1"},
	}
	for _, tc := range cases {
		res := &probe.Result{Requested: tc.revision, ProtocolVersion: tc.revision}
		var got string
		for _, f := range reg.Evaluate(res) {
			if f.ID == tc.id {
				got = f.Spec
			}
		}
		if got != tc.want {
			t.Errorf("%s in a %s session links to %q, want %q", tc.id, tc.revision, got, tc.want)
		}
	}
}

// A server's answer naming an unknown revision does not produce a link into a revision that
// does not exist.
func TestUnknownRevisionLinksToNewestSessionRevision(t *testing.T) {
	reg, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	c, _ := reg.Lookup("lifecycle.initialize")
	if got, want := c.SpecURL("1900-01-01"), specBase+"2025-11-25/basic/lifecycle#initialization"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestRegistryLinksAsEachCheckDoes holds the links a registry resolves once per revision to
// what each check's SpecURL says for that revision, unknown and empty revisions included.
func TestRegistryLinksAsEachCheckDoes(t *testing.T) {
	reg, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	for _, rev := range append(protocol.Revisions(), protocol.BogusRevision, "", "2099-01-01") {
		for round := range 2 { // the second round reads what the first stored
			urls := reg.specsFor(rev)
			for i, c := range reg.checks {
				if want := c.SpecURL(rev); urls[i] != want {
					t.Errorf("%s, revision %q, round %d: %s, want %s", c.ID, rev, round, urls[i], want)
				}
			}
		}
	}
}
