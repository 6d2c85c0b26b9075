package report

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/mcpwatch/mcpwatch/checks"
	"github.com/mcpwatch/mcpwatch/internal/redact"
	"github.com/mcpwatch/mcpwatch/probe"
)

func TestBuildTakesVersionsAndServerInfoFromTheResult(t *testing.T) {
	r := Build(stdioResult(), stdioFindings(), BuildOptions{})
	if r.ProtocolVersion == nil || *r.ProtocolVersion != "2025-06-18" {
		t.Errorf("protocolVersion = %v, want 2025-06-18", r.ProtocolVersion)
	}
	if r.RequestedVersion != "2025-11-25" || r.EvaluatedVersion != "2025-06-18" {
		t.Errorf("requested %q evaluated %q", r.RequestedVersion, r.EvaluatedVersion)
	}
	if name, version := r.ServerName(); name != "demo-server" || version != "1.2.3" {
		t.Errorf("server = %q %q", name, version)
	}
	if r.DurationMs != 10100 {
		t.Errorf("durationMs = %v", r.DurationMs)
	}
	if r.Target != "node server.js --stdio" || r.Transport != "stdio" {
		t.Errorf("target %q transport %q", r.Target, r.Transport)
	}
}

func TestBuildLeavesProtocolVersionAndServerInfoNullWhenInitializeFailed(t *testing.T) {
	r := Build(httpInitFailedResult(), httpInitFailedFindings(), BuildOptions{})
	if r.ProtocolVersion != nil {
		t.Errorf("protocolVersion = %q, want nil", *r.ProtocolVersion)
	}
	if r.ServerInfo != nil {
		t.Errorf("serverInfo = %s, want nil", r.ServerInfo)
	}
	if r.EvaluatedVersion != "2025-11-25" {
		t.Errorf("evaluatedVersion = %q, want the requested revision", r.EvaluatedVersion)
	}
	if r.Error == "" || !r.Failed() {
		t.Errorf("error %q verdict %q: an unfinished probe must fail", r.Error, r.Verdict)
	}
}

func TestBuildVerdictFollowsFailOn(t *testing.T) {
	only := func(st checks.Status, sev checks.Severity) []checks.Finding {
		return []checks.Finding{
			{ID: "a.pass", Status: checks.StatusPass},
			{ID: "a.x", Status: st, Severity: sev},
			{ID: "a.skip", Status: checks.StatusSkip},
		}
	}
	ok := stdioResult()
	tests := []struct {
		name     string
		findings []checks.Finding
		failOn   checks.Severity
		err      string
		want     string
		failing  int
	}{
		{"a failure fails at error", only(checks.StatusFail, checks.SeverityError), checks.SeverityError, "", VerdictFail, 1},
		{"a warning passes at error", only(checks.StatusWarn, checks.SeverityWarning), checks.SeverityError, "", VerdictPass, 0},
		{"a warning fails at warning", only(checks.StatusWarn, checks.SeverityWarning), checks.SeverityWarning, "", VerdictFail, 1},
		{"the default threshold is error", only(checks.StatusWarn, checks.SeverityWarning), checks.SeverityNone, "", VerdictPass, 0},
		{"info never fails", only(checks.StatusInfo, checks.SeverityNone), checks.SeverityWarning, "", VerdictPass, 0},
		{"skip never fails", only(checks.StatusSkip, checks.SeverityNone), checks.SeverityWarning, "", VerdictPass, 0},
		{"a probe error fails with no failing check", only(checks.StatusPass, checks.SeverityNone), checks.SeverityError, "spawn failed", VerdictFail, 0},
		{"no checks and no error passes", nil, checks.SeverityError, "", VerdictPass, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := *ok
			res.Err = tc.err
			r := Build(&res, tc.findings, BuildOptions{FailOn: tc.failOn})
			if r.Verdict != tc.want || r.Summary.Failing != tc.failing {
				t.Errorf("verdict %q failing %d, want %q %d", r.Verdict, r.Summary.Failing, tc.want, tc.failing)
			}
			if tc.failOn == checks.SeverityNone && r.FailOn != "error" {
				t.Errorf("failOn = %q, want error", r.FailOn)
			}
		})
	}
}

func TestBuildCountsEveryStatus(t *testing.T) {
	r := Build(stdioResult(), stdioFindings(), BuildOptions{})
	want := Summary{Pass: 2, Fail: 2, Warn: 1, Skip: 1, Info: 1, Total: 7, Failing: 2}
	if r.Summary != want {
		t.Errorf("summary = %+v, want %+v", r.Summary, want)
	}
}

func TestBuildChecksKeepOrderSeverityAndOverflow(t *testing.T) {
	r := Build(stdioResult(), stdioFindings(), BuildOptions{})
	var ids []string
	for _, c := range r.Checks {
		ids = append(ids, c.ID)
	}
	if got := strings.Join(ids, " "); got != "jsonrpc.parse jsonrpc.version lifecycle.ping tools.description stdio.stdout-purity http.status tools.fingerprint" {
		t.Errorf("order = %s", got)
	}
	for _, c := range r.Checks {
		switch c.Status {
		case "fail", "warn":
			if c.Severity == nil {
				t.Errorf("%s: %s without severity", c.ID, c.Status)
			}
		default:
			if c.Severity != nil {
				t.Errorf("%s: %s with severity %q", c.ID, c.Status, *c.Severity)
			}
		}
	}
	purity := r.Checks[4]
	if purity.MoreEvidence != 3 || purity.Data != nil {
		t.Errorf("overflow: moreEvidence %d data %v; want 3 and the counters out of data", purity.MoreEvidence, purity.Data)
	}
	if fp := r.Checks[6]; fp.Data["hash"] != "sha256:9f86d081884c" {
		t.Errorf("fingerprint data = %v", fp.Data)
	}
}

func TestBuildStepsCarryLatencyOnlyWhenAnswered(t *testing.T) {
	r := Build(stdioResult(), stdioFindings(), BuildOptions{})
	byName := map[string]Step{}
	for _, s := range r.Steps {
		byName[s.Name] = s
	}
	if s := byName[probe.StepInitialize]; s.LatencyMs == nil || *s.LatencyMs != 40.5 || *s.ResponseFrame != 2 {
		t.Errorf("initialize step = %+v", s)
	}
	if s := byName[probe.StepUnknownMethod]; s.LatencyMs != nil || s.ResponseFrame != nil || s.Outcome != "no-answer" {
		t.Errorf("unanswered step = %+v", s)
	}
	h := Build(httpInitFailedResult(), nil, BuildOptions{}).Steps[0]
	if h.HTTPStatus != 500 || h.ErrorCode != nil {
		t.Errorf("http step = %+v", h)
	}
}

func TestBuildStepKeepsANonIntegerErrorCodeAsSent(t *testing.T) {
	res := stdioResult()
	res.Steps[4].Outcome = probe.OutcomeError
	res.Steps[4].ErrorCodeRaw = json.RawMessage(`"-32601"`)
	r := Build(res, nil, BuildOptions{})
	if s := r.Steps[4]; s.ErrorCode != nil || s.ErrorCodeRaw != `"-32601"` {
		t.Errorf("step = %+v", s)
	}
}

func TestBuildCitesOnlyFramesOfFailuresAndWarnings(t *testing.T) {
	r := Build(stdioResult(), stdioFindings(), BuildOptions{})
	var seqs []int
	for _, f := range r.CitedFrames {
		seqs = append(seqs, f.Seq)
	}
	if got, want := seqs, []int{1, 5, 6, 7, 9}; !slices.Equal(got, want) {
		t.Errorf("cited = %v, want %v", got, want)
	}
	if r.Transcript != nil {
		t.Errorf("transcript without verbose: %d frames", len(r.Transcript))
	}
}

func TestBuildVerboseKeepsEveryFrameAndEncodesBinaryAsBase64(t *testing.T) {
	res := stdioResult()
	r := Build(res, stdioFindings(), BuildOptions{Verbose: true})
	if len(r.Transcript) != len(res.Frames) || r.CitedFrames != nil {
		t.Fatalf("transcript %d frames (cited %d), want %d", len(r.Transcript), len(r.CitedFrames), len(res.Frames))
	}
	bin := r.Transcript[9]
	raw, err := base64.StdEncoding.DecodeString(bin.Raw)
	if bin.RawEncoding != "base64" || err != nil || !bytes.Equal(raw, res.Frames[9].Raw) {
		t.Errorf("binary frame = %+v", bin)
	}
	if txt := r.Transcript[2]; txt.RawEncoding != "" || txt.Raw != string(res.Frames[2].Raw) || txt.Dir != "in" || txt.Kind != "message" || txt.AtMs != 41 {
		t.Errorf("text frame = %+v", txt)
	}
	if note := r.Transcript[10]; note.Kind != "note" || note.Note != "timeout" || note.Raw != "" || note.Detail == "" {
		t.Errorf("note frame = %+v", note)
	}
}

func TestBuildClipsCitedFramesWithoutBreakingUTF8(t *testing.T) {
	res := stdioResult()
	res.Frames[1].Raw = []byte(strings.Repeat("é", maxCitedFrameBytes)) // 2 bytes each
	res.Frames[1].Raw = append([]byte("x"), res.Frames[1].Raw...)       // misalign the cut
	r := Build(res, stdioFindings(), BuildOptions{})
	f, _ := r.Frame(1)
	if !f.Clipped || f.RawEncoding != "" || len(f.Raw) > maxCitedFrameBytes || f.Size != len(res.Frames[1].Raw) {
		t.Errorf("clipped frame: clipped %v encoding %q len %d size %d", f.Clipped, f.RawEncoding, len(f.Raw), f.Size)
	}
}

func TestBuildBoundsServerInfoAndStderr(t *testing.T) {
	res := stdioResult()
	big := strings.Repeat("x", maxServerInfoBytes)
	res.Initialize = json.RawMessage(`{"serverInfo":{"name":"n","version":"v","blob":"` + big + `"}}`)
	res.Processes[0].Stderr = []byte(strings.Repeat("noise line\n", 4000))
	r := Build(res, nil, BuildOptions{})
	if len(r.ServerInfo) > 1024 {
		t.Errorf("serverInfo kept %d bytes", len(r.ServerInfo))
	}
	if name, version := r.ServerName(); name != "n" || version != "v" {
		t.Errorf("oversized serverInfo lost its name: %s", r.ServerInfo)
	}
	p := r.Processes[0]
	if len(p.StderrTail) > maxStderrTail || !strings.HasPrefix(p.StderrTail, "noise line") || p.StderrDropped == 0 {
		t.Errorf("stderr tail %d bytes, dropped %d, starts %q", len(p.StderrTail), p.StderrDropped, p.StderrTail[:20])
	}
}

func TestBuildServerInfoIsNullWhenNotAnObject(t *testing.T) {
	for _, init := range []string{`{}`, `{"serverInfo":"demo"}`, `{"serverInfo":null}`, `not json`} {
		res := stdioResult()
		res.Initialize = json.RawMessage(init)
		if r := Build(res, nil, BuildOptions{}); r.ServerInfo != nil {
			t.Errorf("initialize %s: serverInfo = %s", init, r.ServerInfo)
		}
	}
}

func TestBuildRedactsSecretsEverywhere(t *testing.T) {
	res := httpInitFailedResult()
	res.Err += " (" + fixtureSecret + ")"
	res.Steps[0].Err = "sent " + fixtureSecret
	fs := httpInitFailedFindings()
	fs[1].Data = map[string]any{"echo": fixtureSecret}
	for _, verbose := range []bool{false, true} {
		r := Build(res, fs, BuildOptions{Verbose: verbose, Redactor: redact.New(fixtureSecret), SecretHeaders: []string{"X-Custom"}})
		var out bytes.Buffer
		if err := WriteJSON(&out, r); err != nil {
			t.Fatal(err)
		}
		if err := WriteText(&out, r, TextOptions{Verbose: verbose}); err != nil {
			t.Fatal(err)
		}
		for _, s := range []string{fixtureSecret, "sk-live-0123456789abcdef"} {
			if strings.Contains(out.String(), s) {
				t.Errorf("verbose=%v: output contains %q", verbose, s)
			}
		}
		if !strings.Contains(out.String(), redact.Redacted) {
			t.Errorf("verbose=%v: no redaction marker in output", verbose)
		}
	}
}

func TestBuildRedactsSecretHeadersByName(t *testing.T) {
	res := httpInitFailedResult()
	res.Frames[0].HTTP.Header = map[string][]string{"X-Custom": {"plain-value"}, "Cookie": {"a=b"}, "Accept": {"application/json"}}
	r := Build(res, nil, BuildOptions{Verbose: true, SecretHeaders: []string{"x-custom"}})
	h := r.Transcript[0].HTTP.Header
	if h["X-Custom"][0] != redact.Redacted || h["Cookie"][0] != redact.Redacted || h["Accept"][0] != "application/json" {
		t.Errorf("headers = %v", h)
	}
}

func TestBuildConvertsHTTPTimingToMillis(t *testing.T) {
	r := Build(httpInitFailedResult(), nil, BuildOptions{Verbose: true})
	tm := r.Transcript[1].HTTP.Timing
	if tm == nil || tm.ConnectMs != 0.5 || tm.FirstByteMs != 2 || tm.TotalMs != 3.25 {
		t.Errorf("timing = %+v", tm)
	}
}
