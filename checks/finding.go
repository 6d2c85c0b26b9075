// Package checks judges a probe.Result against the MCP specification. Every check is a pure
// function of the result, keyed by an ID from docs/checks.md; those IDs are a public contract.
package checks

import (
	"fmt"
	"strings"
)

// Status of a finding.
type Status string

const (
	StatusPass Status = "pass"
	StatusFail Status = "fail"
	StatusWarn Status = "warn"
	StatusSkip Status = "skip"
	StatusInfo Status = "info"
)

// Severity of a non-passing finding: error for a broken MUST, warning for a SHOULD.
type Severity string

const (
	SeverityNone    Severity = ""
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
)

// Evidence is one observed violation (or, for info findings, one fact).
type Evidence struct {
	Severity Severity `json:"severity,omitempty"`
	Message  string   `json:"message"`
	// Frames are the transcript Seqs that show it.
	Frames []int `json:"frames,omitempty"`
	// Tool names the tool concerned, when there is one (baselines can match on it).
	Tool string `json:"tool,omitempty"`
}

// Finding is the verdict of one check on one probe.
type Finding struct {
	ID       string     `json:"id"`
	Status   Status     `json:"status"`
	Severity Severity   `json:"severity,omitempty"`
	Message  string     `json:"message"`
	Rule     string     `json:"rule,omitempty"`
	Spec     string     `json:"spec,omitempty"`
	Area     string     `json:"area"`
	Evidence []Evidence `json:"evidence,omitempty"`
	// Data carries measurements of info findings (tools.fingerprint: hash and count).
	Data map[string]any `json:"data,omitempty"`

	// Hint is the usual fix of what the check found; only a finding that is not a pass has one.
	Hint string `json:"hint,omitempty"`

	skipReason string
	info       string
}

// maxEvidence bounds what one finding carries: a server can repeat one fault thousands of
// times, and the first few say all there is to say.
const maxEvidence = 20

// Fail records a broken MUST.
func (f *Finding) Fail(frames []int, format string, args ...any) {
	f.add(Evidence{Severity: SeverityError, Message: fmt.Sprintf(format, args...), Frames: frames})
}

// Warn records a broken SHOULD (or a MUST that cannot be judged strictly).
func (f *Finding) Warn(frames []int, format string, args ...any) {
	f.add(Evidence{Severity: SeverityWarning, Message: fmt.Sprintf(format, args...), Frames: frames})
}

// FailTool and WarnTool are Fail and Warn about one named tool.
func (f *Finding) FailTool(tool string, frames []int, format string, args ...any) {
	f.add(Evidence{Severity: SeverityError, Message: fmt.Sprintf(format, args...), Frames: frames, Tool: tool})
}

func (f *Finding) WarnTool(tool string, frames []int, format string, args ...any) {
	f.add(Evidence{Severity: SeverityWarning, Message: fmt.Sprintf(format, args...), Frames: frames, Tool: tool})
}

// Skip marks the check not applicable, with the reason (an undeclared capability, another
// transport, a revision the rule does not exist in, an earlier failure that left no evidence).
func (f *Finding) Skip(format string, args ...any) { f.skipReason = fmt.Sprintf(format, args...) }

// Info marks the finding as a fact rather than a verdict.
func (f *Finding) Info(format string, args ...any) { f.info = fmt.Sprintf(format, args...) }

// Pass sets the message of a passing finding (what was verified).
func (f *Finding) Pass(format string, args ...any) { f.Message = fmt.Sprintf(format, args...) }

func (f *Finding) add(e Evidence) {
	if len(f.Evidence) >= maxEvidence {
		if f.Data == nil {
			f.Data = map[string]any{}
		}
		n, _ := f.Data["moreEvidence"].(int)
		f.Data["moreEvidence"] = n + 1
		if e.Severity == SeverityError {
			f.Data["moreErrors"] = true
		}
		return
	}
	f.Evidence = append(f.Evidence, e)
}

// settle derives Status, Severity and Message from what the check recorded.
func (f *Finding) settle() {
	var errs, warns int
	for _, e := range f.Evidence {
		switch e.Severity {
		case SeverityError:
			errs++
		case SeverityWarning:
			warns++
		}
	}
	if more, _ := f.Data["moreErrors"].(bool); more {
		errs++
	}
	switch {
	case errs > 0:
		f.Status, f.Severity = StatusFail, SeverityError
	case warns > 0:
		f.Status, f.Severity = StatusWarn, SeverityWarning
	case f.skipReason != "":
		f.Status, f.Message = StatusSkip, f.skipReason
		return
	case f.info != "":
		f.Status, f.Message = StatusInfo, f.info
		return
	default:
		f.Status = StatusPass
		if f.Message == "" {
			f.Message = "ok"
		}
		return
	}
	first := f.Evidence[0].Message
	for _, e := range f.Evidence {
		if e.Severity == f.Severity {
			first = e.Message
			break
		}
	}
	total := len(f.Evidence)
	if n, ok := f.Data["moreEvidence"].(int); ok {
		total += n
	}
	if total > 1 {
		first = fmt.Sprintf("%s (and %d more)", first, total-1)
	}
	f.Message = first
}

// Clip shortens a server-supplied value for a message: evidence names the offending bytes,
// but a hostile server must not fill a report.
func Clip(b []byte) string {
	const max = 200
	s := strings.ToValidUTF8(string(b), "\uFFFD")
	if len(s) > max {
		cut := max
		for cut > 0 && !isRuneStart(s[cut]) {
			cut--
		}
		return fmt.Sprintf("%q… (%d bytes)", s[:cut], len(b))
	}
	return fmt.Sprintf("%q", s)
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }
