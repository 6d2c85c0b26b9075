package apiserver

import (
	"html"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/store"
)

// webVerdict reads the verdict line of the text report on a run page: "PASS …" or "FAIL …".
func webVerdict(t *testing.T, page string) string {
	t.Helper()
	m := regexp.MustCompile(`(?s)<pre class="report">(.*?)</pre>`).FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("run page has no report: %.500s", page)
	}
	text := html.UnescapeString(regexp.MustCompile(`<[^>]*>`).ReplaceAllString(m[1], ""))
	lines := strings.Split(strings.TrimSpace(text), "\n")
	return lines[len(lines)-1]
}

// The run page and GET /api/v1/runs/{run} give one stored run one verdict and one target: the one the
// monitor stored (its outcome and alerts came from it), even when judging the recording
// again today would say otherwise (the catalogue changed since, or the monitor ran a
// selection of the checks).
func TestRunPageAndAPIGiveAStoredRunOneVerdict(t *testing.T) {
	t.Parallel()
	w := newWorld(t, withDashboard(t))
	rec, findings, _ := w.recordFixture(nil)
	changed := ""
	for i, f := range findings {
		if f.Status == "pass" {
			findings[i].Status, findings[i].Severity, findings[i].Message = "fail", "error", "failed by the catalogue of the day"
			changed = f.CheckID
			break
		}
	}
	if changed == "" {
		t.Fatal("the fixture's run has no passing check to store as failed")
	}
	run := store.RunRecord{ID: store.NewRunID(w.now), ServerID: w.alpha.ID, Region: "eu", Worker: "w1",
		Start: w.now.Add(-2 * time.Second), Duration: time.Second, Outcome: store.OutcomeDegraded,
		ProtocolVersion: "2025-06-18", Findings: findings, Transcript: rec}
	if _, err := w.st.WriteRuns(t.Context(), []store.RunRecord{run}); err != nil {
		t.Fatal(err)
	}
	var api struct {
		Report struct {
			Verdict string
			Target  string
			Summary struct{ Failing int }
			Checks  []struct{ ID, Status string }
		} `json:"report"`
	}
	resp := w.get(t, "/api/v1/runs/"+run.ID.String())
	if resp.status != 200 {
		t.Fatalf("API: status %d: %s", resp.status, resp.body)
	}
	resp.json(t, &api)
	page := w.get(t, "/runs/"+run.ID.String())
	if page.status != 200 {
		t.Fatalf("run page: status %d: %.500s", page.status, page.body)
	}
	line := webVerdict(t, string(page.body))
	if api.Report.Verdict != "fail" {
		t.Errorf("API verdict %s, want fail: the stored run fails %s", api.Report.Verdict, changed)
	}
	if !strings.HasPrefix(line, strings.ToUpper(api.Report.Verdict)+" ") {
		t.Errorf("run page says %q, the API %s (%d failing)", line, api.Report.Verdict, api.Report.Summary.Failing)
	}
	// Both show the server's target without its credentials.
	if api.Report.Target != "https://alpha.example.com/mcp?api_key=REDACTED" || !strings.Contains(string(page.body), html.EscapeString(api.Report.Target)) {
		t.Errorf("the API shows target %q; the run page does not", api.Report.Target)
	}
	if !strings.Contains(string(page.body), changed) {
		t.Errorf("run page does not name %s, which the stored run fails", changed)
	}
}

// A recording that cannot be read back is, to the run page and the API alike, no recording:
// both show the stored run and its stored verdicts rather than one of them an error.
func TestRunPageAndAPIShowARunWithAnUnreadableRecordingByItsStoredVerdicts(t *testing.T) {
	t.Parallel()
	w := newWorld(t, withDashboard(t))
	run := store.RunRecord{ID: store.NewRunID(w.now), ServerID: w.alpha.ID, Region: "eu", Worker: "w1",
		Start: w.now.Add(-3 * time.Second), Duration: time.Second, Outcome: store.OutcomeDegraded, ProtocolVersion: "2025-06-18",
		Steps:    []store.StepRecord{{Name: "initialize", Method: "initialize", Outcome: "ok", Latency: time.Millisecond}},
		Findings: []store.FindingRecord{{CheckID: "tools.list", Status: "fail", Severity: "error", Message: "tools/list failed"}},
		// Not a recording this version writes.
		Transcript: []byte(`{"format":"something-else"`)}
	if _, err := w.st.WriteRuns(t.Context(), []store.RunRecord{run}); err != nil {
		t.Fatal(err)
	}
	var api struct {
		Report struct {
			Verdict string
			Checks  []struct{ ID, Status string }
		} `json:"report"`
	}
	resp := w.get(t, "/api/v1/runs/"+run.ID.String())
	if resp.status != 200 {
		t.Fatalf("API: status %d: %s", resp.status, resp.body)
	}
	resp.json(t, &api)
	if api.Report.Verdict != "fail" || len(api.Report.Checks) != 1 || api.Report.Checks[0].Status != "fail" {
		t.Errorf("API report %+v, want the stored fail of tools.list", api.Report)
	}
	page := w.get(t, "/runs/"+run.ID.String())
	if page.status != 200 {
		t.Fatalf("run page: status %d: %.500s", page.status, page.body)
	}
	body := string(page.body)
	if !strings.Contains(body, "cannot be read") || !strings.Contains(body, `<span class="badge fail">fail</span></td><td><code>tools.list</code>`) {
		t.Errorf("run page does not show the stored fail of tools.list: %.2000s", body)
	}
}
