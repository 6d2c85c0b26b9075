package runreport

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/checks"
	"github.com/mcpwatch/mcpwatch/internal/testkit/fixture"
	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/protocol"
	"github.com/mcpwatch/mcpwatch/store"
)

func catalog(t *testing.T) *checks.Registry {
	t.Helper()
	reg, err := checks.Default()
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

// record probes the project's fixture server on loopback, as the monitor would.
func record(t *testing.T) *probe.Result {
	t.Helper()
	srv, err := fixture.New(fixture.Config{})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	res, err := probe.Run(t.Context(), probe.Target{URL: ts.URL}, probe.Options{Timeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func stored(findings []checks.Finding) []store.FindingRecord {
	var out []store.FindingRecord
	for _, f := range findings {
		out = append(out, store.FindingRecord{CheckID: f.ID, Status: string(f.Status), Severity: string(f.Severity), Message: f.Message})
	}
	return out
}

// The verdict is the stored one, whatever judging the recording again says; the recording
// gives evidence only to the findings it is judged the same way today.
func TestBuildGivesTheStoredVerdictsWithTheRecordingsEvidence(t *testing.T) {
	reg := catalog(t)
	res := record(t)
	today := reg.Evaluate(res)
	run := store.RunRecord{ProtocolVersion: res.Negotiated, Findings: stored(today)}
	// changed passes today with measurements, but the run stored it as failing; kept is
	// stored as judged today, with measurements too.
	kept, changed := "", ""
	for i, f := range today {
		switch {
		case changed == "" && f.Status == checks.StatusPass && len(f.Data) > 0:
			run.Findings[i].Status, run.Findings[i].Severity = "fail", "error"
			changed = f.ID
		case kept == "" && f.Status != checks.StatusPass && len(f.Data) > 0:
			kept = f.ID
		}
	}
	if changed == "" || kept == "" {
		t.Fatalf("the fixture's run needs a passing check and another with measurements: %+v", today)
	}
	rep := Build(run, store.Server{Transport: "http", URL: res.Target}, res, Options{Catalog: reg})
	if rep.Verdict != "fail" || len(rep.Checks) != len(today) {
		t.Fatalf("verdict %s with %d checks, want fail with the %d stored", rep.Verdict, len(rep.Checks), len(today))
	}
	for _, c := range rep.Checks {
		switch c.ID {
		case changed:
			if c.Status != "fail" || len(c.Data) != 0 {
				t.Errorf("%s: %s with data %v, want the stored fail without what today's judging measured", c.ID, c.Status, c.Data)
			}
		case kept:
			if len(c.Data) == 0 || c.Title == "" {
				t.Errorf("%s: no data from the recording or no title from the catalogue", c.ID)
			}
		}
	}
	if len(rep.Steps) != len(res.Steps) {
		t.Errorf("%d steps, the recording has %d", len(rep.Steps), len(res.Steps))
	}
}

// Without a recording the stored steps, error and verdicts are the report.
func TestBuildWithoutARecordingUsesTheStoredRun(t *testing.T) {
	code := int64(-32603)
	run := store.RunRecord{ProtocolVersion: "2025-06-18", Error: "initialize failed: JSON-RPC error -32603",
		Steps:    []store.StepRecord{{Name: "initialize", Method: "initialize", Outcome: "error", ErrorCode: &code}},
		Findings: []store.FindingRecord{{CheckID: "lifecycle.initialize", Status: "fail", Severity: "error", Message: "refused"}}}
	rep := Build(run, store.Server{Transport: "http", URL: "https://a.example/mcp"}, nil, Options{Catalog: catalog(t)})
	if rep.Verdict != "fail" || rep.Error != run.Error || len(rep.Steps) != 1 || rep.Steps[0].Name != "initialize" ||
		len(rep.Checks) != 1 || rep.Checks[0].Title == "" || rep.Target != "https://a.example/mcp" {
		t.Errorf("report %+v", rep)
	}
}

// A report never shows what the server's configuration keeps secret.
func TestBuildHidesTheServersSecrets(t *testing.T) {
	for _, tc := range []struct {
		name    string
		srv     store.Server
		res     *probe.Result
		target  string
		secrets []string
		shown   []string // text the report must still show
	}{
		{"credentials in the URL",
			store.Server{Transport: "http", URL: "https://u:pw-secret@a.example/mcp?api_key=key-secret"},
			&probe.Result{Transport: protocol.TransportHTTP, Target: "https://u:pw-secret@a.example/mcp?api_key=key-secret",
				Err: "GET https://a.example/mcp?api_key=key-secret: refused"},
			"https://u:REDACTED@a.example/mcp?api_key=REDACTED", []string{"pw-secret", "key-secret"}, nil},
		{"a stdio server's arguments and environment",
			store.Server{Transport: protocol.TransportStdio, Command: "/usr/bin/srv", Args: []string{"--token=arg-secret"},
				Env: []store.EnvVar{{Name: "TOKEN", Value: "env-secret"}}},
			&probe.Result{Transport: protocol.TransportStdio, Target: "/usr/bin/srv --token=arg-secret",
				Err: "exited: bad token env-secret"},
			"stdio: srv", []string{"arg-secret", "env-secret"}, nil},
		{"a stdio server's subcommand is not a secret",
			store.Server{Transport: protocol.TransportStdio, Command: "npx", Args: []string{"-y", "@scope/server@1.2.3", "stdio"}},
			&probe.Result{Transport: protocol.TransportStdio, Target: "npx -y @scope/server@1.2.3 stdio",
				Err: "exited: @scope/server@1.2.3 failed to start over stdio"},
			"stdio: npx", []string{"@scope/server@1.2.3"}, []string{"to start over stdio"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			original := tc.res.Target
			rep := Build(store.RunRecord{}, tc.srv, tc.res, Options{Catalog: catalog(t)})
			out, err := json.Marshal(rep)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Target != tc.target {
				t.Errorf("target %q, want %q", rep.Target, tc.target)
			}
			for _, s := range tc.secrets {
				if strings.Contains(string(out), s) {
					t.Errorf("report shows %q: %s", s, out)
				}
			}
			for _, s := range tc.shown {
				if !strings.Contains(string(out), s) {
					t.Errorf("report lacks %q: %s", s, out)
				}
			}
			if tc.res.Target != original {
				t.Errorf("Build changed the caller's recording: target %q", tc.res.Target)
			}
		})
	}
}
