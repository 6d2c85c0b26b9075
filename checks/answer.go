package checks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/mcpwatch/mcpwatch/probe"
)

// describeAnswer says what came back for a step, for the "got ..." half of a finding: the
// exact error code, HTTP status or exit status, or the clipped result.
func describeAnswer(r *Capture, st probe.Step) string {
	httpNote := ""
	if st.HTTPStatus != 0 && st.HTTPStatus != 200 {
		httpNote = fmt.Sprintf(" (HTTP status %d)", st.HTTPStatus)
	}
	if m := exchangeAnswer(r, st); m != nil {
		switch m.Kind {
		case ErrorResponse:
			return describeError(m) + httpNote
		case ResultResponse:
			return "a result " + clipJSON(m.Result) + httpNote
		}
	}
	if f, ok := r.Frame(st.Response); ok && f.Kind == probe.KindMessage {
		return "an answer that is not a valid response " + clipJSON(f.Raw) + httpNote
	}
	switch {
	case st.HTTPStatus != 0 && st.Outcome == probe.OutcomeTransport:
		return fmt.Sprintf("HTTP status %d", st.HTTPStatus) + describeBody(r, st.Response)
	case st.HTTPStatus != 0:
		if f, ok := r.Frame(st.Response); ok && f.Kind == probe.KindNote {
			return fmt.Sprintf("no answer: the HTTP %d event stream ended without the response", st.HTTPStatus)
		}
		return fmt.Sprintf("no answer: the HTTP %d response carried no JSON-RPC response", st.HTTPStatus) + describeBody(r, st.Response)
	}
	if p, ok := r.ProcessOf(st.Conn); ok && p.Exited && p.EndedBy == "exit" {
		return "no answer: the server process ended by itself (" + describeExit(p) + ")"
	}
	if st.Outcome == probe.OutcomeNoAnswer {
		return "no answer within the timeout"
	}
	if st.Err != "" {
		return "no answer: " + Clip([]byte(st.Err))
	}
	return "no answer (" + string(st.Outcome) + ")"
}

// describeBody names the content type and body of a response head, when it has them.
func describeBody(r *Capture, seq int) string {
	f, ok := r.Frame(seq)
	if !ok || f.Kind != probe.KindHTTPResponse || f.HTTP == nil {
		return ""
	}
	s := ""
	if f.HTTP.ContentType != "" {
		s = " of type " + Clip([]byte(f.HTTP.ContentType))
	}
	if len(bytes.TrimSpace(f.Raw)) > 0 {
		s += " with body " + clipJSON(f.Raw)
	}
	return s
}

// exchangeAnswer is the JSON-RPC response that answered a step, also when it came as the
// body of an HTTP error status: the router gives such a request up at the status, but the
// transport records the body as a message, and a check about the error code judges that
// code (http.status judges the status).
func exchangeAnswer(r *Capture, st probe.Step) *Message {
	if m := r.ResponseOf(st); m != nil && m.IsResponse() {
		return m
	}
	req, ok := r.Frame(st.Request)
	if !ok || req.Exchange == 0 {
		return nil
	}
	want := looseIDKey(json.RawMessage(st.ID))
	for _, f := range r.Frames[req.Seq+1:] {
		if f.Conn != req.Conn || f.Exchange != req.Exchange || f.Dir != probe.In || f.Kind != probe.KindMessage {
			continue
		}
		if m := r.Message(f.Seq); m != nil && m.IsResponse() && (!m.HasID || m.NullID() || looseIDKey(m.ID) == want) {
			return m
		}
	}
	return nil
}

// describeExit renders how a process ended, with the tail of its stderr.
func describeExit(p probe.ProcessInfo) string {
	s := fmt.Sprintf("exit status %d", p.ExitCode)
	if p.Signal != "" {
		s = "killed by " + p.Signal
	}
	if tail := stderrTail(p.Stderr); tail != "" {
		s += "; stderr ends " + tail
	}
	return s
}

// stderrTail is the last few lines of a process's stderr, quoted and cut to about 200
// bytes from the end, where the reason a process died usually is.
func stderrTail(stderr []byte) string {
	const maxLines, maxBytes = 3, 200
	text := strings.TrimRight(strings.ToValidUTF8(string(stderr), "\uFFFD"), " \t\r\n")
	if text == "" {
		return ""
	}
	lines := strings.Split(text, "\n")
	kept := make([]string, 0, maxLines)
	for i := len(lines) - 1; i >= 0 && len(kept) < maxLines; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" {
			kept = append(kept, l)
		}
	}
	for i, j := 0, len(kept)-1; i < j; i, j = i+1, j-1 {
		kept[i], kept[j] = kept[j], kept[i]
	}
	tail := strings.Join(kept, " | ")
	if len(tail) > maxBytes {
		cut := len(tail) - maxBytes
		for cut < len(tail) && !utf8.RuneStart(tail[cut]) {
			cut++
		}
		tail = "…" + tail[cut:]
	}
	return fmt.Sprintf("%q", tail)
}

// answered reports whether a step got a JSON-RPC answer (result or error).
func answered(st probe.Step) bool {
	return st.Outcome == probe.OutcomeOK || st.Outcome == probe.OutcomeError
}
