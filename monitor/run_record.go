package monitor

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mcpwatch/mcpwatch/checks"
	"github.com/mcpwatch/mcpwatch/internal/redact"
	"github.com/mcpwatch/mcpwatch/jsondoc"
	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/protocol"
	"github.com/mcpwatch/mcpwatch/store"
)

// RunMeta is what a run record needs beyond the probe: whose run it is, and what to keep.
type RunMeta struct {
	ServerID int64
	Region   string
	Worker   string
	// Transcripts is TranscriptsChanges, TranscriptsAll, TranscriptsFailing or
	// TranscriptsNone.
	Transcripts string
	// Previous is the outcome of the last run of the same server and region ("" when
	// unknown: none yet, or the database was away).
	Previous string
	// MaxTranscriptBytes bounds a kept transcript; a larger one is not kept (default
	// DefaultMaxTranscriptBytes). A server that floods the probe up to its frame limit would
	// otherwise cost seconds of encoding and megabytes of storage on every run.
	MaxTranscriptBytes int
	// Secrets are the values the probe sent that must be neither stored nor shown: header
	// values and environment values taken from the monitor's environment (fromEnv). A server
	// can echo them anywhere (its serverInfo, an error, a tool's description, its stderr),
	// so they are replaced by [redacted] in every string of the run and in its transcript.
	Secrets []string
	// Due is the slot the run probes, when it probes one: the run then gets the slot's id
	// (store.SlotRunID), so that the store keeps one run per slot whoever probed it; zero
	// gives a fresh id.
	Due time.Time
}

func (m RunMeta) runID(start time.Time) store.RunID {
	if m.Due.IsZero() {
		return store.NewRunID(start)
	}
	return store.SlotRunID(m.ServerID, m.Region, m.Due)
}

// DefaultMaxTranscriptBytes bounds a stored transcript: a conformant probe records some
// 30 KB.
const DefaultMaxTranscriptBytes = 1 << 20

// mustSucceed reports whether a working server answers a step with a result: the basic
// requests, and the list methods of the capabilities it declared. The other steps expect
// errors (an unknown method, a revision that does not exist, a list it never offered).
func mustSucceed(name string, res *probe.Result) bool {
	switch name {
	case probe.StepInitialize, probe.StepInitialized, probe.StepPing:
		return true
	case probe.StepToolsList:
		return res.Declares("tools")
	case probe.StepResourcesList, probe.StepTemplatesList:
		return res.Declares("resources")
	case probe.StepPromptsList:
		return res.Declares("prompts")
	}
	return false
}

// RunRecordOf turns a probe's result and the checks' findings into the run the store keeps.
//
// The outcome: down when initialize did not succeed, or for a stateless server (2026-07-28,
// never initialized) server/discover (the server cannot be used at all), up
// when it did and no check failed (a MUST of the specification is kept; warnings about
// SHOULDs do not count), degraded otherwise. ErrorCode, HTTPStatus and Error describe the step
// that made the run down or degraded: initialize for a down run; for a degraded one the step
// the first failing check cites, or else the first basic request that failed.
func RunRecordOf(res *probe.Result, findings []checks.Finding, meta RunMeta) store.RunRecord {
	rec := store.RunRecord{
		ID:              meta.runID(res.Start),
		ServerID:        meta.ServerID,
		Region:          meta.Region,
		Worker:          meta.Worker,
		Start:           res.Start,
		Duration:        res.Duration,
		AnswerTime:      answerTime(res),
		ProtocolVersion: res.Negotiated,
	}
	handshake, _ := res.Handshake()
	rec.ServerName, rec.ServerVersion = serverInfo(handshake)

	// Sized once, and one array for the steps' statuses: appends and a pointer a step were
	// most of the allocations of the worker's own part of a run.
	if len(res.Steps) > 0 {
		rec.Steps = make([]store.StepRecord, 0, len(res.Steps))
	}
	var statuses []int
	for i, st := range res.Steps {
		sr := store.StepRecord{Name: st.Name, Method: st.Method, Outcome: string(st.Outcome), Latency: st.Latency, ErrorCode: st.ErrorCode}
		if st.HTTPStatus != 0 {
			if statuses == nil {
				statuses = make([]int, len(res.Steps))
			}
			statuses[i] = st.HTTPStatus
			sr.HTTPStatus = &statuses[i]
		}
		rec.Steps = append(rec.Steps, sr)
	}
	if len(findings) > 0 {
		rec.Findings = make([]store.FindingRecord, 0, len(findings))
	}
	var failing []checks.Finding
	for i := range findings {
		f := &findings[i] // a finding is some 200 bytes: not copied for each
		rec.Findings = append(rec.Findings, store.FindingRecord{CheckID: f.ID, Status: string(f.Status), Severity: string(f.Severity), Message: f.Message})
		if f.Status == checks.StatusFail {
			failing = append(failing, *f)
		}
		if f.Status == checks.StatusInfo {
			if fp, n, ok := checks.ToolFingerprint(*f); ok {
				rec.ToolFingerprint, rec.ToolCount = fp.String(), ptr(n)
			}
		}
	}

	if p, ok := res.ProcessOf(probe.ConnMain); ok && p.Exited && p.EndedBy == "exit" {
		// The server ended on its own, before the probe was done with it.
		rec.ExitStatus = ptr(p.ExitCode)
	}

	init, initialized := res.FirstStep(probe.StepInitialize)
	switch {
	case res.Discover == nil && (!initialized || init.Outcome != probe.OutcomeOK || res.Initialize == nil):
		rec.Outcome = store.OutcomeDown
		rec.Error = downReason(res, init, initialized)
		if initialized {
			describeStep(&rec, init)
		}
	case len(failing) > 0:
		rec.Outcome = store.OutcomeDegraded
		rec.Error = degradedReason(failing)
		if st, ok := failingStep(res, failing[0]); ok {
			describeStep(&rec, st)
			rec.Error = fmt.Sprintf("%s; %s: %s", rec.Error, st.Name, stepProblem(res, st))
		}
	default:
		rec.Outcome = store.OutcomeUp
	}

	red := redact.New(meta.Secrets...)
	limit := meta.MaxTranscriptBytes
	if limit <= 0 {
		limit = DefaultMaxTranscriptBytes
	}
	// Sized only when kept: a passing run whose outcome did not change keeps none.
	if keepTranscript(meta.Transcripts, rec.Outcome, meta.Previous) {
		if size := recordingSize(res); size <= limit {
			rec.Transcript = recording(res, red, size)
		}
	}
	redactRun(red, &rec)
	return rec
}

// recording is the transcript to store, with secrets replaced; nil when it cannot be made
// so (a secret that took the place of a JSON token would leave it unreadable). size is
// what it is expected to take (recordingSize), so that it is written in one buffer.
func recording(res *probe.Result, red *redact.Redactor, size int) []byte {
	if red.Active() {
		// Frames that are not UTF-8 are stored in base64, where the bytes replacement below
		// would not see a secret: replace it in them first.
		cp := *res
		cp.Frames = slices.Clone(res.Frames)
		for i := range cp.Frames {
			cp.Frames[i].Raw = red.Bytes(cp.Frames[i].Raw)
			cp.Frames[i].Detail = red.String(cp.Frames[i].Detail)
		}
		cp.Processes = slices.Clone(res.Processes)
		for i := range cp.Processes {
			cp.Processes[i].Stderr = red.Bytes(cp.Processes[i].Stderr)
		}
		res = &cp
	}
	written, err := probe.AppendRecording(make([]byte, 0, size), res)
	if err != nil {
		return nil
	}
	out := written
	if red.Active() {
		if out = red.Bytes(out); !bytes.Equal(out, written) {
			if _, err := probe.ReadRecording(bytes.NewReader(out)); err != nil {
				return nil
			}
		}
	}
	return out
}

// redactRun replaces secrets in every string of a run the store keeps and pages show.
func redactRun(red *redact.Redactor, rec *store.RunRecord) {
	if !red.Active() {
		return
	}
	rec.ServerName, rec.ServerVersion, rec.Error = red.String(rec.ServerName), red.String(rec.ServerVersion), red.String(rec.Error)
	rec.ProtocolVersion = red.String(rec.ProtocolVersion)
	for i := range rec.Findings {
		rec.Findings[i].Message = red.String(rec.Findings[i].Message)
	}
}

// redactFindings replaces secrets in what findings say, before anything (the run, the alert
// engine) reads them.
func redactFindings(red *redact.Redactor, findings []checks.Finding) {
	if !red.Active() {
		return
	}
	for i := range findings {
		f := &findings[i]
		f.Message, f.Hint = red.String(f.Message), red.String(f.Hint)
		for j := range f.Evidence {
			f.Evidence[j].Message, f.Evidence[j].Tool = red.String(f.Evidence[j].Message), red.String(f.Evidence[j].Tool)
		}
	}
}

// FailedRecord is the run of a probe that could not start: its target could not be built (an
// environment variable is missing, say). It is down, and says why.
func FailedRecord(start time.Time, meta RunMeta, err error) store.RunRecord {
	rec := store.RunRecord{
		ID:       meta.runID(start),
		ServerID: meta.ServerID,
		Region:   meta.Region,
		Worker:   meta.Worker,
		Start:    start,
		Duration: time.Since(start),
		Outcome:  store.OutcomeDown,
		Error:    "probe not started: " + err.Error(),
	}
	redactRun(redact.New(meta.Secrets...), &rec)
	return rec
}

// recordingSize estimates a recording's length from its frames (JSON escaping and the
// members around each frame included), without encoding it.
func recordingSize(res *probe.Result) int {
	n := 1024 + 256*len(res.Steps)
	for _, f := range res.Frames {
		n += 300 + len(f.Raw) + len(f.Raw)/3 + len(f.Detail)
		if f.HTTP != nil { // repeated on every frame of its exchange
			n += 400 + len(f.HTTP.URL)
			for k, vs := range f.HTTP.Header {
				for _, v := range vs {
					n += len(k) + len(v) + 8
				}
			}
		}
	}
	return n
}

// keepTranscript says whether a run keeps its transcript. A run that fails is what someone
// opens a transcript for; the first run after a change of outcome shows what changed (an
// unknown previous outcome counts as a change). The transcripts of the passing runs between
// would cost most of the storage of a healthy fleet and are seldom read.
func keepTranscript(policy, outcome, previous string) bool {
	switch policy {
	case TranscriptsNone:
		return false
	case TranscriptsFailing:
		return outcome != store.OutcomeUp
	case TranscriptsChanges:
		return outcome != store.OutcomeUp || outcome != previous
	}
	return true
}

func ptr[T any](v T) *T { return &v }

// serverInfo reads the name and version a server gave of itself in its initialize result
// (serverInfo) or its server/discover result (the serverInfo key of _meta), as
// encoding/json decodes them (serverInfoDecoded); "" where there is none, or no string.
func serverInfo(result json.RawMessage) (name, version string) {
	if result == nil {
		return "", ""
	}
	// Every run reads it, and decoding with encoding/json was half of the worker's own
	// part of a run (BenchmarkRunRecord): the plain results are read with the scanner,
	// the rest as before.
	if name, version, ok := serverInfoScanned(result); ok {
		return name, version
	}
	return serverInfoDecoded(result)
}

// serverInfoScanned is serverInfo for a result that the scanner reads exactly as
// encoding/json does: ok is false when it holds what only encoding/json decides on (a
// member name matching one of ours only case-insensitively or through escapes, a member
// given twice, a value of a type that fails the decoding).
func serverInfoScanned(result []byte) (name, version string, ok bool) {
	info, meta, plain := structMembers(result, "serverInfo", "_meta")
	if !plain {
		return "", "", false
	}
	var fromMeta []byte
	switch jsondoc.KindOf(meta) {
	case jsondoc.Missing, jsondoc.Null:
	case jsondoc.Object:
		// A map: its keys are matched exactly, after unescaping, and the last one counts.
		jsondoc.ScanObject(meta, func(n, v []byte) {
			if string(jsondoc.Unquote(n)) == protocol.MetaServerInfo {
				fromMeta = v
			}
		})
	default:
		return "", "", false
	}
	// serverInfo, or where it is missing or null, the one in _meta.
	for _, obj := range [][]byte{info, fromMeta} {
		switch jsondoc.KindOf(obj) {
		case jsondoc.Object:
			return implementation(obj)
		case jsondoc.Missing, jsondoc.Null:
			continue
		}
		return "", "", false
	}
	return "", "", true
}

// implementation reads the name and version of an Implementation object as
// serverInfoScanned does the result around it.
func implementation(obj []byte) (name, version string, ok bool) {
	n, v, plain := structMembers(obj, "name", "version")
	// A server may send anything here; only strings are names. Other values are decoded
	// into Go values, which some fail (a number beyond a float64), failing the whole.
	for _, value := range [][]byte{n, v} {
		if k := jsondoc.KindOf(value); k != jsondoc.Missing && k != jsondoc.Null && k != jsondoc.String {
			plain = false
		}
	}
	if !plain {
		return "", "", false
	}
	name, _ = jsondoc.Str(n)
	version, _ = jsondoc.Str(v)
	return name, version, true
}

// structMembers finds the members a and b of the JSON object obj (nil when missing), as
// encoding/json finds the fields of a struct, when that is plain: plain is false when obj is
// not an object, or one of its names could be taken for a or b only case-insensitively or
// through escapes (or non-ASCII letters that Unicode folds to K and S), or a or b is given
// twice.
func structMembers(obj []byte, a, b string) (va, vb []byte, plain bool) {
	plain = true
	kind, valid := jsondoc.ScanObject(obj, func(name, value []byte) {
		inner := name[1 : len(name)-1]
		switch {
		case string(inner) == a:
			plain = plain && va == nil
			va = value
		case string(inner) == b:
			plain = plain && vb == nil
			vb = value
		case bytes.IndexByte(inner, '\\') >= 0 || !isASCII(inner) || strings.EqualFold(string(inner), a) || strings.EqualFold(string(inner), b):
			plain = false
		}
	})
	return va, vb, plain && valid && kind == jsondoc.Object
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// serverInfoDecoded is serverInfo read with encoding/json.
func serverInfoDecoded(result json.RawMessage) (name, version string) {
	type info struct {
		Name    any `json:"name"`
		Version any `json:"version"`
	}
	var r struct {
		ServerInfo *info                      `json:"serverInfo"`
		Meta       map[string]json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(result, &r) != nil {
		return "", ""
	}
	si := r.ServerInfo
	if si == nil {
		// The other members of _meta may be anything: read this one alone.
		if json.Unmarshal(r.Meta[protocol.MetaServerInfo], &si) != nil || si == nil {
			return "", ""
		}
	}
	// A server may send anything here; only strings are names.
	name, _ = si.Name.(string)
	version, _ = si.Version.(string)
	return name, version
}

// describeStep copies the exact error code and HTTP status of the step that failed.
func describeStep(rec *store.RunRecord, st probe.Step) {
	rec.ErrorCode = st.ErrorCode
	if st.HTTPStatus != 0 {
		rec.HTTPStatus = ptr(st.HTTPStatus)
	}
}

func downReason(res *probe.Result, init probe.Step, initialized bool) string {
	var why string
	explained := false
	switch {
	case !initialized:
		why = "initialize was never sent"
	case init.Outcome == probe.OutcomeOK:
		why = "initialize returned no usable result"
	default:
		why = "initialize: " + stepProblem(res, init)
		explained = true
	}
	if p, ok := res.ProcessOf(probe.ConnMain); ok && !p.Started && p.Error != "" {
		why += "; the server did not start: " + p.Error
	}
	switch {
	case !explained && res.Err != "":
		why += "; " + res.Err
	case explained:
		// The probe's own error repeats the step's failure; only a process that ended on its
		// own, before the probe was done with it, is news.
		if p, ok := res.ProcessOf(probe.ConnMain); ok && p.Exited && p.EndedBy == "exit" {
			if p.Signal != "" {
				why += "; the server process was killed by " + p.Signal
			} else {
				why += fmt.Sprintf("; the server process exited with status %d", p.ExitCode)
			}
		}
	}
	return why
}

// stepProblem says how a step failed, with the exact code or status.
func stepProblem(res *probe.Result, st probe.Step) string {
	var parts []string
	switch st.Outcome {
	case probe.OutcomeError:
		if st.ErrorCode != nil {
			parts = append(parts, fmt.Sprintf("JSON-RPC error %d", *st.ErrorCode))
		} else {
			parts = append(parts, "JSON-RPC error with code "+checks.Clip(st.ErrorCodeRaw))
		}
	case probe.OutcomeNoAnswer:
		parts = append(parts, "no answer")
	case probe.OutcomeTransport:
		parts = append(parts, "transport failure")
	default:
		parts = append(parts, string(st.Outcome))
	}
	if st.HTTPStatus != 0 && st.HTTPStatus != 200 {
		parts = append(parts, fmt.Sprintf("HTTP status %d", st.HTTPStatus))
	}
	switch {
	case st.Err == probe.ErrUnanswered.Error() && len(answerBody(res, st)) > 0:
		// The probe's words cover an exchange that ended with no answer at all; here a body
		// came back, just not a JSON-RPC response.
		parts = append(parts[1:], "the body of the answer is not a JSON-RPC response")
	case st.Err != "":
		parts = append(parts, st.Err)
	}
	return strings.Join(parts, ", ")
}

func degradedReason(failing []checks.Finding) string {
	ids := make([]string, 0, len(failing))
	for _, f := range failing {
		ids = append(ids, f.ID)
	}
	noun := "check fails"
	if len(ids) > 1 {
		noun = "checks fail"
	}
	return fmt.Sprintf("%d %s (%s): %s", len(ids), noun, strings.Join(ids, ", "), failing[0].Message)
}

// failingStep picks the step a degraded run's code and status come from: the first step the
// first failing check cites that did not succeed, or else the first basic request that
// failed.
func failingStep(res *probe.Result, first checks.Finding) (probe.Step, bool) {
	failed := func(st probe.Step) bool { return st.Outcome != probe.OutcomeOK && st.Outcome != probe.OutcomeSent }
	var cited []int
	for _, e := range first.Evidence {
		cited = append(cited, e.Frames...)
	}
	for _, st := range res.Steps {
		if failed(st) && ((st.Request >= 0 && slices.Contains(cited, st.Request)) || (st.Response >= 0 && slices.Contains(cited, st.Response))) {
			return st, true
		}
	}
	for _, st := range res.Steps {
		if failed(st) && mustSucceed(st.Name, res) {
			return st, true
		}
	}
	return probe.Step{}, false
}
