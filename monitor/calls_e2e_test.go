package monitor

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/internal/testkit/fixture"
	"github.com/mcpwatch/mcpwatch/internal/testkit/pgtest"
	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/store"
)

// callSecret is the value of the argument read from the environment: a fixture's echo
// returns it, so it is in the answer as well as in the request.
const callSecret = "s3cret-arg-7d41c9"

// The monitor's side of issue 23, from the configuration file to the database: a server with
// calls: has each call stored as a step with its latency and the four call checks judged; an
// argument read from the environment is in no stored row; a call whose variable is not set is
// recorded untested with the reason (the run goes on); and a server without calls: gets no
// tools/call of a tool it lists.
func TestAMonitorRunWithCallsStoresTheCallStepsAndFindings(t *testing.T) {
	t.Parallel()
	db, pool := pgtest.Migrated(t)
	dir := t.TempDir()
	body := fmt.Sprintf(`transcripts: all
spool: {dir: %s}
defaults: {schedule: "@every 1h", timeout: 20s}
servers:
  - name: with-calls
    url: %s
    calls:
      - tool: echo
        arguments: {text: {fromEnv: ECHO_TEXT}}
        invalid-arguments: true
        expect: {isError: false}
      - tool: add
        arguments: {a: 1, b: 2}
        timeout: 5s
        expect: {textContains: '"sum":3'}
  - name: missing-env
    url: %s
    calls:
      - tool: echo
        arguments: {text: {fromEnv: UNSET_TEXT}}
  - name: no-calls
    url: %s
`, filepath.Join(dir, "spool"), fixtureURL(t, ""), fixtureURL(t, ""), fixtureURL(t, ""))
	path := filepath.Join(dir, "mcpwatch.yaml")
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"ECHO_TEXT": callSecret}
	svc, err := Start(t.Context(), cfg, ServiceOptions{DatabaseURL: db.URL, Worker: "w", Version: "test",
		LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = svc.Stop(context.Background()) })

	st := openStore(t, db.URL)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	runs := map[string]store.RunRecord{}
	for _, name := range []string{"with-calls", "missing-env", "no-calls"} {
		srv, err := st.ServerByName(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		for {
			got, err := st.Runs(ctx, store.RunQuery{ServerID: srv.ID, Limit: 1})
			if err != nil {
				t.Fatal(err)
			}
			if len(got) == 1 {
				if runs[name], err = st.Run(ctx, got[0].ID); err != nil {
					t.Fatal(err)
				}
				break
			}
			select {
			case <-ctx.Done():
				t.Fatalf("no run of %s stored", name)
			case <-time.After(100 * time.Millisecond):
			}
		}
	}

	with := runs["with-calls"]
	steps := map[string]store.StepRecord{}
	for _, s := range with.Steps {
		steps[s.Name] = s
	}
	for _, name := range []string{"call:echo", "call:echo:invalid-arguments", "call:add"} {
		s, ok := steps[name]
		if !ok || s.Method != "tools/call" || s.Latency <= 0 {
			t.Errorf("step %s: %+v (stored %v), want a tools/call step with its latency", name, s, ok)
		}
	}
	if s := steps["call:echo"]; s.Outcome != string(probe.OutcomeOK) {
		t.Errorf("call:echo outcome %s, want ok", s.Outcome)
	}
	for id, want := range map[string]string{"tools.call-result": "pass", "tools.call-expectations": "pass", "tools.invalid-arguments": "pass"} {
		if f := findingOf(with, id); f.Status != want {
			t.Errorf("with calls: %s %s %q, want %s", id, f.Status, f.Message, want)
		}
	}
	if with.Outcome != store.OutcomeUp {
		t.Errorf("with calls: outcome %s (%s), want up", with.Outcome, with.Error)
	}

	missing := runs["missing-env"]
	for _, s := range missing.Steps {
		if strings.HasPrefix(s.Name, probe.CallStepPrefix) {
			t.Errorf("missing variable: step %s was sent", s.Name)
		}
	}
	if f := findingOf(missing, "tools.call-result"); f.Status != "untested" || !strings.Contains(f.Message, "UNSET_TEXT is not set or empty") {
		t.Errorf("missing variable: tools.call-result %s %q, want untested naming UNSET_TEXT", f.Status, f.Message)
	}
	if missing.Outcome == store.OutcomeDown {
		t.Errorf("missing variable: the run is down (%s); only the call is untested", missing.Error)
	}

	none := runs["no-calls"]
	for _, s := range none.Steps {
		if strings.HasPrefix(s.Name, probe.CallStepPrefix) {
			t.Errorf("without calls: step %s", s.Name)
		}
	}
	if f := findingOf(none, "tools.call-result"); f.Status != "skip" {
		t.Errorf("without calls: tools.call-result %s %q, want skip", f.Status, f.Message)
	}
	listed := map[string]bool{}
	for _, tool := range fixture.DefaultTools() {
		listed[tool.Name] = true
	}
	for name, run := range runs {
		raw, err := st.Transcript(ctx, run.ID)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if bytes.Contains(raw, []byte(callSecret)) {
			t.Errorf("%s: the argument's value is in the stored transcript", name)
		}
		if name == "with-calls" {
			if !bytes.Contains(raw, []byte("[redacted]")) {
				t.Errorf("%s: the transcript shows no [redacted] where the argument was sent", name)
			}
			continue
		}
		res, err := probe.ReadRecording(bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range res.SentToolCalls() {
			if listed[c.Tool] {
				t.Errorf("%s: frame %d calls the listed tool %q without calls for it", name, c.Frame.Seq, c.Tool)
			}
		}
	}

	// No row the monitor stored holds the secret: not the server (its calls keep the
	// variable's name), not a run, a step, a finding or a transcript (compressed, so read
	// above).
	for _, table := range []string{"servers", "runs", "run_steps", "run_finding_sets", "config_generations"} {
		var n int
		if err := pool.QueryRow(ctx, `SELECT count(*) FROM `+table+` t WHERE strpos(t::text, $1) > 0`, callSecret).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			t.Errorf("%d rows of %s hold the argument's value", n, table)
		}
	}
	var refs int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM servers WHERE strpos(calls::text, '"fromEnv":"ECHO_TEXT"') > 0`).Scan(&refs); err != nil || refs != 1 {
		t.Errorf("servers holding the reference to ECHO_TEXT: %d (%v), want 1", refs, err)
	}
}

func findingOf(run store.RunRecord, id string) store.FindingRecord {
	for _, f := range run.Findings {
		if f.CheckID == id {
			return f
		}
	}
	return store.FindingRecord{CheckID: id, Status: "missing"}
}
