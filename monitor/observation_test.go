package monitor

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/alert"
	"github.com/mcpwatch/mcpwatch/checks"
	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/store"
)

func TestCertificateOfTakesTheFirstToExpire(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	later, sooner := t0.Add(90*24*time.Hour), t0.Add(10*24*time.Hour)
	res := &probe.Result{Frames: []probe.Frame{
		{HTTP: &probe.HTTPInfo{TLS: &probe.TLSInfo{Subject: "CN=a", NotAfter: later}}},
		{HTTP: &probe.HTTPInfo{}},
		{HTTP: &probe.HTTPInfo{TLS: &probe.TLSInfo{Subject: "CN=b", NotAfter: sooner}}},
	}}
	c := certificateOf(res)
	if c == nil || c.Subject != "CN=b" || !c.NotAfter.Equal(sooner) {
		t.Errorf("certificate %+v", c)
	}
	if certificateOf(&probe.Result{}) != nil {
		t.Error("a result without TLS has a certificate")
	}
}

// TestObservationOfAddsWhatOnlyTheProbeResultHolds: the stored run gives the outcome, the
// checks and the steps; the findings give each check its rule, the result the main
// connection's step latencies when the run has none, the tool surface and the certificate.
func TestObservationOfAddsWhatOnlyTheProbeResultHolds(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	server := store.Server{ID: 7, Name: "s", Labels: map[string]string{"team": "sky"}}
	rec := store.RunRecord{ID: store.NewRunID(at), ServerID: 7, Region: "eu", Start: at, Outcome: store.OutcomeDegraded,
		Findings: []store.FindingRecord{{CheckID: "lifecycle.ping", Status: "fail", Message: "stored"}}}
	res := &probe.Result{
		Initialize: json.RawMessage(`{"capabilities":{"tools":{}}}`),
		Steps: []probe.Step{
			{Name: probe.StepInitialize, Conn: probe.ConnMain, Outcome: probe.OutcomeOK, Latency: time.Millisecond},
			{Name: probe.StepPing, Conn: probe.ConnMain, Outcome: probe.OutcomeError, Latency: 2 * time.Millisecond},
			{Name: probe.StepInitialize, Conn: probe.ConnNegotiation, Outcome: probe.OutcomeOK, Latency: 3 * time.Millisecond},
			{Name: probe.StepToolsList, Conn: probe.ConnMain, Outcome: probe.OutcomeOK, Latency: 4 * time.Millisecond,
				Result: json.RawMessage(`{"tools":[{"name":"echo"}]}`)},
		},
		Frames: []probe.Frame{{HTTP: &probe.HTTPInfo{TLS: &probe.TLSInfo{Subject: "CN=s", NotAfter: at.Add(time.Hour)}}}},
	}
	findings := []checks.Finding{{ID: "lifecycle.ping", Status: checks.StatusFail, Message: "judged", Rule: "B3", Spec: "https://spec/ping"}}

	stored := ObservationOf(server, &rec, nil, nil)
	if stored.Tools != nil || stored.Certificate != nil || stored.Steps != nil ||
		!reflect.DeepEqual(stored.Checks, []alert.CheckResult{{ID: "lifecycle.ping", Status: "fail", Message: "stored"}}) {
		t.Errorf("without a result: %+v", stored)
	}
	if stored.RunID != rec.ID.String() || stored.Server != "s" || stored.Labels["team"] != "sky" || stored.Outcome != store.OutcomeDegraded {
		t.Errorf("the run's fields: %+v", stored)
	}

	o := ObservationOf(server, &rec, res, findings)
	if want := []alert.CheckResult{{ID: "lifecycle.ping", Status: "fail", Message: "judged", Rule: "B3", Spec: "https://spec/ping"}}; !reflect.DeepEqual(o.Checks, want) {
		t.Errorf("checks %+v, want %+v", o.Checks, want)
	}
	if want := []alert.StepLatency{{Name: probe.StepInitialize, Latency: time.Millisecond}, {Name: probe.StepToolsList, Latency: 4 * time.Millisecond}}; !reflect.DeepEqual(o.Steps, want) {
		t.Errorf("steps %+v, want %+v", o.Steps, want)
	}
	if o.Tools == nil || len(o.Tools.Tools) != 1 || o.Tools.Tools[0].Name != "echo" {
		t.Errorf("tools %+v", o.Tools)
	}
	if o.Certificate == nil || o.Certificate.Subject != "CN=s" {
		t.Errorf("certificate %+v", o.Certificate)
	}

	rec.Steps = []store.StepRecord{{Name: probe.StepPing, Outcome: string(probe.OutcomeOK), Latency: 5 * time.Millisecond}}
	if o := ObservationOf(server, &rec, res, findings); !reflect.DeepEqual(o.Steps, []alert.StepLatency{{Name: probe.StepPing, Latency: 5 * time.Millisecond}}) {
		t.Errorf("the stored steps were not preferred: %+v", o.Steps)
	}
}
