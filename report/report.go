// Package report turns a probe result and its findings into a report, and writes that report
// in the formats the CLI offers (see Formats). The Report type is the `--format json` contract
// of docs/checks.md; every other format is a rendering of the same Report, so adding one is one
// writer file plus its entry in Formats.
package report

import (
	"encoding/json"
	"time"

	"github.com/mcpwatch/mcpwatch/checks"
	"github.com/mcpwatch/mcpwatch/probe"
)

// Verdicts.
const (
	VerdictPass = "pass"
	VerdictFail = "fail"
)

// Report is one probe and its verdict. Field order is the JSON order.
type Report struct {
	Generator Generator `json:"generator"`
	// Target is the URL or command as given (a password in a URL is redacted).
	Target    string `json:"target"`
	Transport string `json:"transport"`
	// ProtocolVersion is the revision the server answered in initialize, or null when
	// initialize did not succeed.
	ProtocolVersion *string `json:"protocolVersion"`
	// RequestedVersion is the revision the probe offered.
	RequestedVersion string `json:"requestedVersion"`
	// EvaluatedVersion is the revision whose rules the checks applied: the negotiated one when
	// the probe knows it, the requested one otherwise.
	EvaluatedVersion string `json:"evaluatedVersion"`
	// ServerInfo is the serverInfo object of the initialize result, or null.
	ServerInfo json.RawMessage `json:"serverInfo"`
	StartedAt  time.Time       `json:"startedAt"`
	DurationMs float64         `json:"durationMs"`
	// FailOn is the lowest severity that fails the verdict ("error", "warning" or "advice").
	FailOn  string `json:"failOn"`
	Verdict string `json:"verdict"`
	// Error says why the probe could not run to the end ("" when it did).
	Error string `json:"error,omitempty"`
	// InterruptedMs is when the probe was interrupted (Ctrl-C), in milliseconds after its
	// start; 0 when it was not. The checks it cut short are untested, not failed.
	InterruptedMs float64 `json:"interruptedMs,omitempty"`
	// Unreached: not one byte came back from the server (no HTTP response, no stdout line,
	// no event): every check that applies is untested for that one reason, and the text
	// report says so in one line rather than one per check.
	Unreached bool      `json:"unreached,omitempty"`
	Summary   Summary   `json:"summary"`
	Checks    []Check   `json:"checks"`
	Steps     []Step    `json:"steps"`
	Processes []Process `json:"processes,omitempty"`
	// CitedFrames are the transcript frames that evidence of failures and warnings points at
	// (without Verbose), their bytes clipped; Transcript is every frame (with Verbose).
	CitedFrames []Frame `json:"citedFrames,omitempty"`
	Transcript  []Frame `json:"transcript,omitempty"`
	// Baseline says which accepted failures the run was judged with (with --baseline).
	Baseline *BaselineUse `json:"baseline,omitempty"`
	// Revisions is every revision of a --protocol-version all run (see AddRevisions).
	Revisions []Revision `json:"revisions,omitempty"`
}

// Generator names the program that wrote the report.
type Generator struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Summary counts checks per status.
type Summary struct {
	Pass int `json:"pass"`
	Fail int `json:"fail"`
	Warn int `json:"warn"`
	// Advice counts the warn checks whose severity is advice (they are in Warn too).
	Advice int `json:"advice"`
	// Untested counts the checks that applied but that the probe could not judge: never
	// passes, never skips.
	Untested int `json:"untested"`
	Skip     int `json:"skip"`
	Info     int `json:"info"`
	Total    int `json:"total"`
	// Failing counts the checks that fail the verdict at the FailOn threshold; for
	// --protocol-version all also those that fail it only in another accepted revision.
	Failing int `json:"failing"`
	// Baselined counts the checks that would fail the verdict but are accepted by the
	// baseline (not in Failing).
	Baselined int `json:"baselined,omitempty"`
}

// Check is one finding.
type Check struct {
	ID     string `json:"id"`
	Status string `json:"status"`
	// Severity is "error" for fail, "warning" or "advice" for warn, null otherwise.
	Severity *string    `json:"severity"`
	Message  string     `json:"message"`
	Title    string     `json:"title,omitempty"`
	Area     string     `json:"area"`
	Rule     string     `json:"rule,omitempty"`
	Spec     string     `json:"spec,omitempty"`
	Evidence []Evidence `json:"evidence,omitempty"`
	// MoreEvidence counts evidence the check observed beyond what it kept.
	MoreEvidence int            `json:"moreEvidence,omitempty"`
	Data         map[string]any `json:"data,omitempty"`
	// Baselined marks a check that fails the verdict but whose failures the baseline accepts:
	// its status stays, it does not count in Summary.Failing.
	Baselined      bool   `json:"baselined,omitempty"`
	BaselineReason string `json:"baselineReason,omitempty"`

	// Hint is the usual fix, in one line; every check that is not a pass carries one.
	Hint string `json:"hint,omitempty"`
}

// Evidence is one observed violation or fact, with the frames that show it.
type Evidence struct {
	Severity string `json:"severity,omitempty"`
	Message  string `json:"message"`
	Frames   []int  `json:"frames,omitempty"`
	Tool     string `json:"tool,omitempty"`
}

// Step is one request or notification of the probe.
type Step struct {
	Name    string `json:"name"`
	Method  string `json:"method"`
	Conn    int    `json:"conn"`
	ID      string `json:"id,omitempty"`
	Page    int    `json:"page,omitempty"`
	Outcome string `json:"outcome"`
	// LatencyMs runs from the request sent to its answer; null when nothing answered.
	LatencyMs *float64 `json:"latencyMs"`
	ErrorCode *int64   `json:"errorCode,omitempty"`
	// ErrorCodeRaw is the error code as sent when it was not a JSON integer.
	ErrorCodeRaw  string `json:"errorCodeRaw,omitempty"`
	HTTPStatus    int    `json:"httpStatus,omitempty"`
	Error         string `json:"error,omitempty"`
	RequestFrame  *int   `json:"requestFrame,omitempty"`
	ResponseFrame *int   `json:"responseFrame,omitempty"`
}

// Process is the life of one stdio server process.
type Process struct {
	Conn    int    `json:"conn"`
	PID     int    `json:"pid,omitempty"`
	Started bool   `json:"started"`
	Error   string `json:"error,omitempty"`
	Exited  bool   `json:"exited"`
	// ExitCode is set once the process exited (-1 when a signal ended it).
	ExitCode        *int     `json:"exitCode,omitempty"`
	Signal          string   `json:"signal,omitempty"`
	EndedBy         string   `json:"endedBy,omitempty"`
	ShutdownAfterMs *float64 `json:"shutdownAfterMs,omitempty"`
	// StderrTail is the end of what the process wrote to stderr; StderrDropped counts the
	// bytes before it that were not kept.
	StderrTail    string `json:"stderrTail,omitempty"`
	StderrDropped int64  `json:"stderrDropped,omitempty"`
}

// Frame is one transcript frame.
type Frame struct {
	Seq  int     `json:"seq"`
	Conn int     `json:"conn"`
	Dir  string  `json:"dir"`
	Kind string  `json:"kind"`
	AtMs float64 `json:"atMs"`
	// Raw is the frame's bytes: as a string when they are valid UTF-8, else base64 with
	// RawEncoding "base64".
	Raw         string `json:"raw,omitempty"`
	RawEncoding string `json:"rawEncoding,omitempty"`
	// Size is the number of bytes received or sent; Clipped says Raw holds only a prefix
	// (cited frames), Truncated that the probe itself stopped reading at its size limit.
	Size      int            `json:"size"`
	Clipped   bool           `json:"clipped,omitempty"`
	Truncated bool           `json:"truncated,omitempty"`
	Exchange  int            `json:"exchange,omitempty"`
	HTTP      *HTTP          `json:"http,omitempty"`
	SSE       *probe.SSEInfo `json:"sse,omitempty"`
	Note      string         `json:"note,omitempty"`
	Detail    string         `json:"detail,omitempty"`
}

// HTTP is the HTTP side of a frame. Secret header values are redacted.
type HTTP struct {
	Method      string              `json:"method,omitempty"`
	URL         string              `json:"url,omitempty"`
	Status      int                 `json:"status,omitempty"`
	ContentType string              `json:"contentType,omitempty"`
	Header      map[string][]string `json:"header,omitempty"`
	Timing      *HTTPTiming         `json:"timing,omitempty"`
	TLS         *probe.TLSInfo      `json:"tls,omitempty"`
}

// HTTPTiming is the phase split of an HTTP exchange, in milliseconds.
type HTTPTiming struct {
	DNSMs       float64 `json:"dnsMs"`
	ConnectMs   float64 `json:"connectMs"`
	TLSMs       float64 `json:"tlsMs"`
	WroteMs     float64 `json:"wroteMs"`
	FirstByteMs float64 `json:"firstByteMs"`
	TotalMs     float64 `json:"totalMs"`
	Reused      bool    `json:"reused"`
	// OpenedBy is the connection that dialled the socket, when another one than the
	// frame's own did (the probe's short connections share keep-alive sockets).
	OpenedBy int `json:"openedBy,omitempty"`
}

// Failed reports whether the verdict is a failure.
func (r *Report) Failed() bool { return r.Verdict == VerdictFail }

// ServerName returns serverInfo.name and serverInfo.version when they are strings.
func (r *Report) ServerName() (name, version string) {
	var si struct {
		Name    any `json:"name"`
		Version any `json:"version"`
	}
	if json.Unmarshal(r.ServerInfo, &si) != nil {
		return "", ""
	}
	name, _ = si.Name.(string)
	version, _ = si.Version.(string)
	return name, version
}

// Frame returns a frame of the report (from the transcript or the cited frames).
func (r *Report) Frame(seq int) (Frame, bool) {
	if seq >= 0 && seq < len(r.Transcript) && r.Transcript[seq].Seq == seq {
		return r.Transcript[seq], true
	}
	for _, f := range r.CitedFrames {
		if f.Seq == seq {
			return f, true
		}
	}
	return Frame{}, false
}

// failsAt reports whether a check fails the verdict at the given threshold: a failure always,
// a warning from --fail-on warning, advice only at --fail-on advice. An untested check never
// does by itself: it is no failure the server was shown to have (and never a pass either).
func failsAt(c Check, failOn checks.Severity) bool {
	switch c.Status {
	case string(checks.StatusFail):
		return true
	case string(checks.StatusWarn):
		return severityMeets(c.severity(), failOn)
	}
	return false
}

// severityMeets reports whether a severity is at or above the threshold.
func severityMeets(s, threshold checks.Severity) bool {
	return s != checks.SeverityNone && checks.SeverityRank(s) >= checks.SeverityRank(threshold)
}
