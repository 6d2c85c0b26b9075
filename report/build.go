package report

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"math"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/mcpwatch/mcpwatch/checks"
	"github.com/mcpwatch/mcpwatch/internal/redact"
	"github.com/mcpwatch/mcpwatch/internal/textclip"
	"github.com/mcpwatch/mcpwatch/probe"
)

// Bounds on what a report copies out of a result: a hostile server must not make the report
// (and the CI log it lands in) enormous. The full transcript is only there with Verbose, and
// the probe's own limits bound it.
const (
	maxCitedFrames     = 64
	maxCitedFrameBytes = 4 << 10
	maxStderrTail      = 16 << 10
	maxServerInfoBytes = 16 << 10
	maxErrorCodeRaw    = 64
)

// BuildOptions tune Build.
type BuildOptions struct {
	// FailOn is the lowest severity that fails the verdict; default error.
	FailOn checks.Severity
	// Verbose includes every transcript frame with its full bytes.
	Verbose bool
	// Catalog supplies check titles (optional).
	Catalog *checks.Registry
	// Generator names the program writing the report.
	Generator Generator
	// Redactor removes secrets from every string of the report (optional).
	Redactor *redact.Redactor
	// SecretHeaders are header names whose values are never shown (besides Authorization,
	// Cookie and the like, which never are).
	SecretHeaders []string
	// Baseline lists accepted failures: a check they cover stays failing but does not fail
	// the verdict (optional).
	Baseline *Baseline
}

// Build assembles the report of one probe. Findings keep the order they come in (catalogue
// order); writers regroup them as their readers need.
func Build(res *probe.Result, findings []checks.Finding, o BuildOptions) *Report {
	if res == nil {
		res = &probe.Result{}
	}
	if o.FailOn == checks.SeverityNone {
		o.FailOn = checks.SeverityError
	}
	b := builder{o: o, red: o.Redactor}
	r := &Report{
		Generator:        o.Generator,
		Target:           b.text(res.Target),
		Transport:        res.Transport,
		RequestedVersion: res.Requested,
		EvaluatedVersion: res.ProtocolVersion,
		ServerInfo:       b.serverInfo(serverInfoSource(res)),
		StartedAt:        res.Start,
		DurationMs:       millis(res.Duration),
		FailOn:           string(o.FailOn),
		Error:            b.text(res.Err),
		InterruptedMs:    millis(res.Interrupted),
		Unreached:        !heardFrom(res),
		Checks:           make([]Check, 0, len(findings)),
		Steps:            make([]Step, 0, len(res.Steps)),
	}
	if r.EvaluatedVersion == "" {
		r.EvaluatedVersion = res.Requested
	}
	if res.Negotiated != "" {
		v := b.text(res.Negotiated)
		r.ProtocolVersion = &v
	}
	for _, f := range findings {
		c := b.check(f)
		r.Checks = append(r.Checks, c)
		r.Summary.add(c, false)
	}
	for _, s := range res.Steps {
		r.Steps = append(r.Steps, b.step(s))
	}
	for _, p := range res.Processes {
		r.Processes = append(r.Processes, b.process(p))
	}
	if o.Verbose {
		r.Transcript = make([]Frame, 0, len(res.Frames))
		for _, f := range res.Frames {
			r.Transcript = append(r.Transcript, b.frame(f, 0))
		}
	} else {
		for _, seq := range citedSeqs(r.Checks) {
			if seq >= 0 && seq < len(res.Frames) {
				r.CitedFrames = append(r.CitedFrames, b.frame(res.Frames[seq], maxCitedFrameBytes))
			}
		}
	}
	r.rejudge(o.Baseline)
	return r
}

// rejudge reaches the verdict of the report's checks by baseline b: which failures it accepts,
// what fails the verdict, which of its entries are stale. Build judges by BuildOptions.Baseline;
// Judge again by a baseline it has just renewed from the report, rather than build it twice.
func (r *Report) rejudge(b *Baseline) {
	failOn := checks.Severity(r.FailOn)
	r.Summary.Failing, r.Summary.Baselined = 0, 0
	for i := range r.Checks {
		c := &r.Checks[i]
		c.Baselined, c.BaselineReason = false, ""
		failing := failsAt(*c, failOn)
		if failing {
			c.Baselined, c.BaselineReason = b.accepts(*c, failOn)
			failing = !c.Baselined
		}
		if failing {
			r.Summary.Failing++
		}
		if c.Baselined {
			r.Summary.Baselined++
		}
	}
	r.Baseline = b.use(r.Checks)
	r.Verdict = VerdictPass
	if r.Summary.Failing > 0 || r.Error != "" {
		r.Verdict = VerdictFail
	}
}

// remove takes back the count of one check's status (not Failing nor Baselined: the caller
// replaces a check that fails nothing).
func (s *Summary) remove(c Check) {
	s.Total--
	switch checks.Status(c.Status) {
	case checks.StatusPass:
		s.Pass--
	case checks.StatusFail:
		s.Fail--
	case checks.StatusWarn:
		s.Warn--
		if c.advice() {
			s.Advice--
		}
	case checks.StatusUntested:
		s.Untested--
	case checks.StatusSkip:
		s.Skip--
	case checks.StatusInfo:
		s.Info--
	}
}

func (s *Summary) add(c Check, failing bool) {
	s.Total++
	switch checks.Status(c.Status) {
	case checks.StatusPass:
		s.Pass++
	case checks.StatusFail:
		s.Fail++
	case checks.StatusWarn:
		s.Warn++
		if c.advice() {
			s.Advice++
		}
	case checks.StatusUntested:
		s.Untested++
	case checks.StatusSkip:
		s.Skip++
	case checks.StatusInfo:
		s.Info++
	}
	if failing {
		s.Failing++
	}
	if c.Baselined {
		s.Baselined++
	}
}

type builder struct {
	o   BuildOptions
	red *redact.Redactor
}

// text is a string of the report as it may be shown: secrets redacted, and bytes that are no
// UTF-8 spelled out (see escapeInvalid). Every string a server may have put in a result
// passes through here or through serverInfo.
func (b builder) text(s string) string {
	return escapeInvalid(b.red.String(s), escapeInText)
}

func (b builder) check(f checks.Finding) Check {
	c := Check{
		ID: f.ID, Status: string(f.Status), Message: b.text(f.Message),
		Area: f.Area, Rule: f.Rule, Spec: f.Spec, Hint: f.Hint,
	}
	if f.Severity != checks.SeverityNone && (f.Status == checks.StatusFail || f.Status == checks.StatusWarn) {
		sev := string(f.Severity)
		c.Severity = &sev
	}
	if b.o.Catalog != nil {
		if def, ok := b.o.Catalog.Lookup(f.ID); ok {
			c.Title = def.Title
		}
	}
	for _, e := range f.Evidence {
		c.Evidence = append(c.Evidence, Evidence{
			Severity: string(e.Severity), Message: b.text(e.Message),
			Frames: slices.Clone(e.Frames), Tool: b.text(e.Tool),
		})
	}
	c.MoreEvidence, c.Data = b.data(f.Data)
	return c
}

// data separates the evidence overflow counters of a finding from its measurements.
func (b builder) data(in map[string]any) (more int, out map[string]any) {
	for k, v := range in {
		switch k {
		case "moreEvidence":
			more, _ = v.(int)
		case "moreErrors", "moreWarnings":
		default:
			if out == nil {
				out = map[string]any{}
			}
			out[k] = v
		}
	}
	if out == nil {
		return more, nil
	}
	out, _ = escapeInvalidIn(out).(map[string]any)
	if !b.red.Active() {
		return more, out
	}
	// Measurements may quote the server; a round trip through JSON redacts every string.
	raw, err := json.Marshal(out)
	if err != nil {
		return more, nil
	}
	var clean map[string]any
	if json.Unmarshal(b.red.Bytes(raw), &clean) != nil {
		return more, nil
	}
	return more, clean
}

func (b builder) step(s probe.Step) Step {
	st := Step{
		Name: s.Name, Method: s.Method, Conn: s.Conn, ID: b.text(s.ID), Page: s.Page,
		Outcome: string(s.Outcome), ErrorCode: s.ErrorCode, HTTPStatus: s.HTTPStatus,
		Error: b.text(s.Err),
	}
	if s.ErrorCode == nil && len(s.ErrorCodeRaw) > 0 {
		st.ErrorCodeRaw = textclip.Bytes(b.text(string(s.ErrorCodeRaw)), maxErrorCodeRaw)
	}
	if s.Request >= 0 {
		st.RequestFrame = ptr(s.Request)
	}
	if s.Response >= 0 {
		st.ResponseFrame = ptr(s.Response)
		st.LatencyMs = ptr(millis(s.Latency))
	}
	return st
}

func (b builder) process(p probe.ProcessInfo) Process {
	out := Process{
		Conn: p.Conn, PID: p.PID, Started: p.Started, Error: b.text(p.Error),
		Exited: p.Exited, Signal: p.Signal, EndedBy: p.EndedBy, StderrDropped: p.StderrDropped,
	}
	if p.Exited {
		out.ExitCode = ptr(p.ExitCode)
	}
	if p.ShutdownAfter > 0 {
		out.ShutdownAfterMs = ptr(millis(p.ShutdownAfter))
	}
	tail := b.red.Bytes(p.Stderr)
	if len(tail) > maxStderrTail {
		cut := len(tail) - maxStderrTail
		// Start at a line if one begins soon after the cut, so the tail reads cleanly.
		if i := bytes.IndexByte(tail[cut:], '\n'); i >= 0 && i < 512 {
			cut += i + 1
		}
		out.StderrDropped += int64(cut)
		tail = tail[cut:]
	}
	out.StderrTail = escapeInvalid(string(tail), escapeInText)
	return out
}

// frame converts a transcript frame; clip > 0 keeps at most that many bytes of it.
func (b builder) frame(f probe.Frame, clip int) Frame {
	out := Frame{
		Seq: f.Seq, Conn: f.Conn, Dir: f.Dir.String(), Kind: f.Kind.String(), AtMs: millis(f.At),
		Size: len(f.Raw), Truncated: f.Truncated, Exchange: f.Exchange,
		Note: string(f.Note), Detail: b.text(f.Detail),
	}
	raw := b.red.Bytes(f.Raw)
	if clip > 0 && len(raw) > clip {
		raw, out.Clipped = raw[:clip], true
		// A clip inside a UTF-8 sequence would turn valid text into base64.
		for len(raw) > 0 && !utf8.Valid(raw) && len(raw) > clip-utf8.UTFMax {
			raw = raw[:len(raw)-1]
		}
	}
	switch {
	case len(raw) == 0:
	case utf8.Valid(raw):
		out.Raw = string(raw)
	default:
		out.Raw, out.RawEncoding = base64.StdEncoding.EncodeToString(raw), "base64"
	}
	if f.HTTP != nil {
		out.HTTP = b.http(f.HTTP)
	}
	if f.SSE != nil {
		sse := *f.SSE
		sse.Event, sse.ID, sse.Malformed = b.text(sse.Event), b.text(sse.ID), b.text(sse.Malformed)
		out.SSE = &sse
	}
	return out
}

func (b builder) http(h *probe.HTTPInfo) *HTTP {
	out := &HTTP{
		Method: h.Method, URL: b.text(h.URL), Status: h.Status,
		ContentType: b.text(h.ContentType), TLS: h.TLS,
	}
	if len(h.Header) > 0 {
		out.Header = make(map[string][]string, len(h.Header))
		for k, vs := range h.Header {
			clean := make([]string, len(vs))
			for i, v := range vs {
				if redact.IsSecretHeader(k, b.o.SecretHeaders) {
					clean[i] = redact.Redacted
				} else {
					clean[i] = b.text(v)
				}
			}
			out.Header[k] = clean
		}
	}
	if t := h.Timing; t != nil {
		out.Timing = &HTTPTiming{
			DNSMs: millis(t.DNS), ConnectMs: millis(t.Connect), TLSMs: millis(t.TLS),
			WroteMs: millis(t.Wrote), FirstByteMs: millis(t.FirstByte), TotalMs: millis(t.Total),
			Reused: t.Reused, OpenedBy: t.OpenedBy,
		}
	}
	return out
}

// serverInfo returns the serverInfo object of an initialize result, or nil (JSON null).
func (b builder) serverInfo(initialize json.RawMessage) json.RawMessage {
	var ir struct {
		ServerInfo json.RawMessage `json:"serverInfo"`
	}
	if json.Unmarshal(initialize, &ir) != nil {
		return nil
	}
	raw := bytes.TrimSpace(ir.ServerInfo)
	if len(raw) == 0 || raw[0] != '{' {
		return nil
	}
	var compact bytes.Buffer
	if json.Compact(&compact, b.red.Bytes(raw)) != nil {
		return nil
	}
	// The one place raw server bytes reach the report unparsed: json.Compact keeps a string's
	// invalid UTF-8 as it is, so it is spelled out here, inside the string literals (the only
	// place valid JSON can hold such a byte).
	info := []byte(escapeInvalid(compact.String(), escapeInJSON))
	if len(info) <= maxServerInfoBytes {
		return info
	}
	// An oversized serverInfo keeps what a reader needs: who the server says it is.
	var si struct {
		Name    any `json:"name"`
		Version any `json:"version"`
	}
	_ = json.Unmarshal(info, &si)
	short := map[string]any{"truncated": true}
	if s, ok := si.Name.(string); ok {
		short["name"] = textclip.Bytes(s, 256)
	}
	if s, ok := si.Version.(string); ok {
		short["version"] = textclip.Bytes(s, 256)
	}
	out, _ := json.Marshal(short)
	return out
}

// citedSeqs lists the frames that evidence of failing and warning checks points at.
func citedSeqs(cs []Check) []int {
	var seqs []int
	for _, c := range cs {
		if c.Status != string(checks.StatusFail) && c.Status != string(checks.StatusWarn) {
			continue
		}
		for _, e := range c.Evidence {
			seqs = append(seqs, e.Frames...)
		}
	}
	slices.Sort(seqs)
	seqs = slices.Compact(seqs)
	if len(seqs) > maxCitedFrames {
		seqs = seqs[:maxCitedFrames]
	}
	return seqs
}

// millis converts a duration to milliseconds, to the microsecond.
func millis(d time.Duration) float64 {
	return math.Round(float64(d)/float64(time.Microsecond)) / 1000
}

func ptr[T any](v T) *T { return &v }

// heardFrom reports whether anything came from the server: a frame it sent, as opposed to
// what the probe sent and the notes of what the transport observed (a process exit, a
// timeout).
func heardFrom(res *probe.Result) bool {
	for _, f := range res.Frames {
		if f.Dir == probe.In && f.Kind != probe.KindNote {
			return true
		}
	}
	return false
}
