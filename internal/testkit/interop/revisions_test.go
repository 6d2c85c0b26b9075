//go:build linux

package interop

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/checks"
	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/protocol"
)

// sessionRevisions are the revisions with initialize; all adds the stateless one.
var (
	sessionRevisions = protocol.SessionRevisions()
	allRevisions     = protocol.Revisions()
)

// acceptedRevisions is what each server accepts when every revision is offered to it on its
// own probe (--protocol-version all): the TypeScript SDK and the legacy transports stop at
// 2025-11-25; the Go SDKs speak 2026-07-28 too, except the go-sdk everything example over
// Streamable HTTP, whose server/discover lists only the session revisions.
var acceptedRevisions = map[string][]string{
	"server-everything/stdio":  sessionRevisions,
	"server-everything/http":   sessionRevisions,
	"server-everything/sse":    sessionRevisions,
	"go-sdk-everything/stdio":  allRevisions,
	"go-sdk-everything/http":   sessionRevisions,
	"go-sdk-conformance/stdio": allRevisions,
	"go-sdk-conformance/http":  allRevisions,
	"go-sdk-sse/sse":           sessionRevisions,
	"mcp-go-everything/stdio":  allRevisions,
	"mcp-go-conformance/http":  allRevisions,
}

// TestInteropAllRevisions probes each real server with every revision at once, one probe per
// revision, and holds what it accepts to acceptedRevisions. On every accepted revision the
// conversation must have begun (initialize, or server/discover) and the checks of the era and
// transport must hold; what differs between revisions is logged.
func TestInteropAllRevisions(t *testing.T) {
	if testing.Short() {
		t.Skip("interop tests start real servers; skipped with -short")
	}
	if built.buildErr != nil {
		t.Fatalf("building the example servers: %v", built.buildErr)
	}
	reg, err := checks.Default()
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]serverCase{}
	for _, c := range append(serverCases(), transportCases()...) {
		byName[c.name] = c
	}
	names := make([]string, 0, len(acceptedRevisions))
	for name := range acceptedRevisions {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		c, ok := byName[name]
		if !ok {
			t.Fatalf("no server case %s", name)
		}
		// One server at a time: each already runs five probes at once.
		t.Run(name, func(t *testing.T) {
			allRevisionsCase(t, reg, c, acceptedRevisions[name])
		})
	}
}

func allRevisionsCase(t *testing.T, reg *checks.Registry, c serverCase, want []string) {
	target := c.target(t)
	ctx, cancel := context.WithTimeout(t.Context(), probeTimeout+15*time.Second)
	defer cancel()
	results, err := probe.RunRevisions(ctx, target, probe.Options{
		Timeout: probeTimeout, InitTimeout: 30 * time.Second, RequestTimeout: 10 * time.Second,
		ClientName: "mcpwatch-interop",
		Logger:     slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn})),
	}, allRevisions)
	if err != nil {
		t.Fatal(err)
	}
	var outcomes []checks.RevisionOutcome
	var accepted []string
	for _, res := range results {
		outcomes = append(outcomes, checks.RevisionOutcome{Revision: res.Requested, Result: res})
		findings := reg.Evaluate(res)
		t.Logf("%s: accepted=%v negotiated=%q transport=%s: %s", res.Requested, res.Accepted(), res.Negotiated, res.Transport, summaryLine(findings))
		if !res.Accepted() {
			continue
		}
		accepted = append(accepted, res.Requested)
		first := probe.StepInitialize
		if protocol.Stateless(res.Requested) {
			first = probe.StepDiscover
		}
		if st, ok := res.FirstStep(first); !ok || st.Outcome != probe.OutcomeOK {
			t.Errorf("%s: %s did not succeed although the revision was accepted: %+v", res.Requested, first, st)
		}
		if c.transport != "" && res.Transport != c.transport {
			t.Errorf("%s: spoke %s, want %s", res.Requested, res.Transport, c.transport)
		}
		for _, f := range findings {
			if !eraOrTransportCheck(f.ID) || (f.Status != checks.StatusFail && f.Status != checks.StatusWarn) {
				continue
			}
			if k, ok := knownOf(c, f.ID); ok && k.status == f.Status {
				continue
			}
			t.Errorf("%s: unexpected %s %s: %s%s", res.Requested, f.Status, f.ID, f.Message, evidenceFrames(f))
		}
	}
	if !slices.Equal(accepted, want) {
		t.Errorf("accepted %v, want %v", accepted, want)
	}
	support := checks.VersionSupport(outcomes)
	if got, _ := support.Data["accepted"].([]string); !slices.Equal(got, want) || support.Status != checks.StatusInfo {
		t.Errorf("lifecycle.version-support: %s %v (%s), want accepted %v", support.Status, support.Data["accepted"], support.Message, want)
	}
	if main := probe.NewestAccepted(results); results[main].Requested != want[len(want)-1] {
		t.Errorf("the report would be about %s, want the newest accepted %s", results[main].Requested, want[len(want)-1])
	}
}

// eraOrTransportCheck names the checks this test holds on every accepted revision: those of
// the stateless revision and of the legacy transport, whose verdicts must not depend on
// which revision a session speaks.
func eraOrTransportCheck(id string) bool {
	for _, prefix := range []string{"discover.", "results.", "sse."} {
		if strings.HasPrefix(id, prefix) {
			return true
		}
	}
	return false
}

// knownOf finds a known finding of a case.
func knownOf(c serverCase, id string) (known, bool) {
	for _, k := range c.known {
		if k.id == id {
			return k, true
		}
	}
	return known{}, false
}
