// Package checks judges a probe.Result against the MCP specification. Every check is a pure
// function of the result, keyed by an ID from docs/checks.md; those IDs are a public contract.
package checks

import (
	"fmt"
	"strings"
	"time"

	"github.com/mcpwatch/mcpwatch/internal/textclip"
	"github.com/mcpwatch/mcpwatch/probe"
)

// Status of a finding.
type Status string

const (
	StatusPass Status = "pass"
	StatusFail Status = "fail"
	StatusWarn Status = "warn"
	StatusSkip Status = "skip"
	// StatusUntested is a check that applies but that the probe could not judge (the server
	// died, a step it needs failed, the probe was interrupted). It is never a pass.
	StatusUntested Status = "untested"
	StatusInfo     Status = "info"
)

// Severity of a non-passing finding, from the keyword of the rule it enforces: error for a
// broken MUST, warning for a SHOULD, advice where no normative keyword applies (metadata
// quality, heuristics).
type Severity string

const (
	SeverityNone    Severity = ""
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
	SeverityAdvice  Severity = "advice"
)

// SeverityRank orders severities by weight: error 3, warning 2, advice 1, anything else 0. A
// threshold t is met by every severity s with SeverityRank(s) >= SeverityRank(t).
func SeverityRank(s Severity) int {
	switch s {
	case SeverityError:
		return 3
	case SeverityWarning:
		return 2
	case SeverityAdvice:
		return 1
	}
	return 0
}

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

	skipReason     string
	untestedReason string
	info           string
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

// Advise records what no normative keyword requires but a server author should hear of
// (metadata quality, heuristics): shown, gating only with --fail-on advice.
func (f *Finding) Advise(frames []int, format string, args ...any) {
	f.add(Evidence{Severity: SeverityAdvice, Message: fmt.Sprintf(format, args...), Frames: frames})
}

// FailTool, WarnTool and AdviseTool are Fail, Warn and Advise about one named tool.
func (f *Finding) FailTool(tool string, frames []int, format string, args ...any) {
	f.add(Evidence{Severity: SeverityError, Message: fmt.Sprintf(format, args...), Frames: frames, Tool: tool})
}

func (f *Finding) WarnTool(tool string, frames []int, format string, args ...any) {
	f.add(Evidence{Severity: SeverityWarning, Message: fmt.Sprintf(format, args...), Frames: frames, Tool: tool})
}

func (f *Finding) AdviseTool(tool string, frames []int, format string, args ...any) {
	f.add(Evidence{Severity: SeverityAdvice, Message: fmt.Sprintf(format, args...), Frames: frames, Tool: tool})
}

// Skip marks the check not applicable, with the reason (an undeclared capability, another
// transport, a revision the rule does not exist in, a fault another check judges).
func (f *Finding) Skip(format string, args ...any) { f.skipReason = sprintf(format, args) }

// Untested marks a check that applies but that the probe could not judge, with the reason:
// the server died or stopped answering, a step the check needs failed, the probe was
// interrupted. Unlike a skip it says nothing about whether the rule holds, and it is never
// counted as a pass. Evidence recorded alongside still decides the status.
func (f *Finding) Untested(format string, args ...any) {
	f.untestedReason = sprintf(format, args)
}

// notJudged is Untested when untested holds, Skip otherwise: for the reasons that mean either,
// depending on how the run went.
func (f *Finding) notJudged(untested bool, format string, args ...any) {
	if untested {
		f.Untested(format, args...)
		return
	}
	f.Skip(format, args...)
}

// Info marks the finding as a fact rather than a verdict.
func (f *Finding) Info(format string, args ...any) { f.info = sprintf(format, args) }

// Pass sets the message of a passing finding (what was verified).
func (f *Finding) Pass(format string, args ...any) { f.Message = sprintf(format, args) }

// sprintf is fmt.Sprintf, but a format without verbs or arguments is its own text: most
// findings of a healthy server are passes and skips with a fixed message, and formatting
// each cost more than the check that set it.
func sprintf(format string, args []any) string {
	if len(args) == 0 && strings.IndexByte(format, '%') < 0 {
		return format
	}
	return fmt.Sprintf(format, args...)
}

func (f *Finding) add(e Evidence) {
	if len(f.Evidence) >= maxEvidence {
		if f.Data == nil {
			f.Data = map[string]any{}
		}
		n, _ := f.Data["moreEvidence"].(int)
		f.Data["moreEvidence"] = n + 1
		switch e.Severity {
		case SeverityError:
			f.Data["moreErrors"] = true
		case SeverityWarning:
			f.Data["moreWarnings"] = true
		}
		return
	}
	f.Evidence = append(f.Evidence, e)
}

// settle derives Status, Severity and Message from what the check recorded. Evidence decides
// first (the worst severity: error fails, warning or advice warns); then a check that could
// not judge is untested, before a skip: a check that was both not judged and partly not
// applicable must not read as "not applicable".
func (f *Finding) settle() {
	var errs, warns, advice int
	for _, e := range f.Evidence {
		switch e.Severity {
		case SeverityError:
			errs++
		case SeverityWarning:
			warns++
		case SeverityAdvice:
			advice++
		}
	}
	if more, _ := f.Data["moreErrors"].(bool); more {
		errs++
	}
	if more, _ := f.Data["moreWarnings"].(bool); more {
		warns++
	}
	switch {
	case errs > 0:
		f.Status, f.Severity = StatusFail, SeverityError
	case warns > 0:
		f.Status, f.Severity = StatusWarn, SeverityWarning
	case advice > 0:
		f.Status, f.Severity = StatusWarn, SeverityAdvice
	case f.untestedReason != "":
		f.Status, f.Message = StatusUntested, f.untestedReason
		return
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
		return fmt.Sprintf("%q… (%d bytes)", textclip.Prefix(s, max), len(b))
	}
	return fmt.Sprintf("%q", s)
}

// cutShort keeps, of the verdict of an interrupted probe, only what the server was seen to do
// before the interrupt: evidence that cites something the server sent by then and nothing the
// transport noted (a timeout, a process ended, a stream cut). What else failed may have failed
// only because the probe stopped waiting (an answer on its way, a server still starting, a
// shutdown cut short), and an interrupt is the user's doing, never the server's: with none of
// its evidence left, the check is untested. A fact (info) stays a fact, a pass a pass.
func cutShort(res *probe.Result, f *Finding) {
	if res.Interrupted <= 0 || len(f.Evidence) == 0 {
		return
	}
	kept := f.Evidence[:0:0]
	for _, e := range f.Evidence {
		if seenBefore(res, e.Frames, res.Interrupted) {
			kept = append(kept, e)
		}
	}
	if len(kept) == len(f.Evidence) {
		return
	}
	f.Evidence = kept
	if len(kept) == 0 {
		f.Data = nil
		f.Untested("interrupted after %s, before this could be judged", res.Interrupted.Round(time.Millisecond))
	}
}

// seenBefore reports whether the frames show something the server sent before at, and no
// note of the transport.
func seenBefore(res *probe.Result, frames []int, at time.Duration) bool {
	seen := false
	for _, seq := range frames {
		if seq < 0 || seq >= len(res.Frames) {
			continue
		}
		fr := res.Frames[seq]
		switch {
		case fr.Kind == probe.KindNote:
			return false
		case fr.Dir == probe.In && fr.At < at:
			seen = true
		}
	}
	return seen
}
