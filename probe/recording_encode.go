package probe

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/mcpwatch/mcpwatch/jsondoc"
)

// AppendRecording appends the recording of r to dst, exactly the bytes WriteRecording writes.
//
// Why not encoding/json on the recording's structs: a monitor encodes a recording on every
// run, and the reflective encoder spent about a tenth of a probe's CPU walking a hundred
// frames with their HTTP heads. This encoder writes the same members in the same order with
// the same escaping (HTML-safe strings, \ufffd for bytes that are not UTF-8, raw JSON
// compacted and validated); TestAppendRecordingMatchesReflection holds it to the reflective
// encoding, field by field. Only the opt-in tool calls, rare and owned by their own code,
// still go through encoding/json.
func AppendRecording(dst []byte, r *Result) ([]byte, error) {
	e := recordingEncoder{b: dst}
	e.raw(`{"mcpwatchRecording":`)
	e.int(RecordingVersion)
	e.raw(`,"result":`)
	if err := e.head(r); err != nil {
		return dst, err
	}
	if len(r.Initialize) > 0 {
		e.raw(`,"initialize":`)
		if err := e.rawJSON(r.Initialize); err != nil {
			return dst, err
		}
	}
	if len(r.Discover) > 0 {
		e.raw(`,"discover":`)
		if err := e.rawJSON(r.Discover); err != nil {
			return dst, err
		}
	}
	// The lists are built by appending, so that an empty one was written as null too.
	e.raw(`,"frames":`)
	if len(r.Frames) == 0 {
		e.raw("null")
	} else {
		e.b = append(e.b, '[')
		for i := range r.Frames {
			if i > 0 {
				e.b = append(e.b, ',')
			}
			if err := e.frame(&r.Frames[i]); err != nil {
				return dst, err
			}
		}
		e.b = append(e.b, ']')
	}
	e.raw(`,"steps":`)
	if len(r.Steps) == 0 {
		e.raw("null")
	} else {
		e.b = append(e.b, '[')
		for i := range r.Steps {
			if i > 0 {
				e.b = append(e.b, ',')
			}
			if err := e.step(&r.Steps[i]); err != nil {
				return dst, err
			}
		}
		e.b = append(e.b, ']')
	}
	if len(r.Processes) > 0 {
		e.raw(`,"processes":[`)
		for i := range r.Processes {
			if i > 0 {
				e.b = append(e.b, ',')
			}
			e.process(&r.Processes[i])
		}
		e.b = append(e.b, ']')
	}
	e.raw(`,"durationNs":`)
	e.int(int64(r.Duration))
	e.raw(`,"initializedAt":`)
	e.int(int64(r.InitializedAt))
	e.raw("}\n")
	return e.b, nil
}

// recordingEncoder appends JSON to b.
type recordingEncoder struct{ b []byte }

func (e *recordingEncoder) raw(s string)       { e.b = append(e.b, s...) }
func (e *recordingEncoder) int(n int64)        { e.b = strconv.AppendInt(e.b, n, 10) }
func (e *recordingEncoder) str(s string)       { e.b = jsondoc.AppendString(e.b, s) }
func (e *recordingEncoder) bytesStr(s []byte)  { e.b = jsondoc.AppendString(e.b, s) }
func (e *recordingEncoder) bool(v bool)        { e.b = strconv.AppendBool(e.b, v) }
func (e *recordingEncoder) member(name string) { e.b = append(e.b, name...) }

// head is the Result without its steps, frames and processes (which the recording holds
// apart), as encoding/json writes it: steps null, processes left out.
func (e *recordingEncoder) head(r *Result) error {
	e.raw(`{"target":`)
	e.str(r.Target)
	e.raw(`,"transport":`)
	e.str(r.Transport)
	e.raw(`,"requested":`)
	e.str(r.Requested)
	if r.Negotiated != "" {
		e.raw(`,"negotiated":`)
		e.str(r.Negotiated)
	}
	if r.ProtocolVersion != "" {
		e.raw(`,"protocolVersion":`)
		e.str(r.ProtocolVersion)
	}
	e.raw(`,"steps":null,"start":`)
	if err := e.time(r.Start); err != nil {
		return err
	}
	if r.Err != "" {
		e.raw(`,"err":`)
		e.str(r.Err)
	}
	if r.Interrupted != 0 {
		e.raw(`,"interrupted":`)
		e.int(int64(r.Interrupted))
	}
	if r.RulesElsewhere != "" {
		e.raw(`,"rulesElsewhere":`)
		e.str(r.RulesElsewhere)
	}
	if len(r.Calls) > 0 {
		calls, err := json.Marshal(r.Calls)
		if err != nil {
			return fmt.Errorf("writing recording: %w", err)
		}
		e.raw(`,"calls":`)
		e.b = append(e.b, calls...)
	}
	e.b = append(e.b, '}')
	return nil
}

func (e *recordingEncoder) time(t time.Time) error {
	b, err := jsondoc.AppendTime(e.b, t)
	if err != nil {
		return fmt.Errorf("writing recording: %w", err)
	}
	e.b = b
	return nil
}

func (e *recordingEncoder) frame(f *Frame) error {
	e.raw(`{"seq":`)
	e.int(int64(f.Seq))
	e.raw(`,"conn":`)
	e.int(int64(f.Conn))
	if f.Truncated {
		e.raw(`,"truncated":true`)
	}
	if f.Exchange != 0 {
		e.raw(`,"exchange":`)
		e.int(int64(f.Exchange))
	}
	if f.HTTP != nil {
		e.raw(`,"http":`)
		if err := e.http(f.HTTP); err != nil {
			return err
		}
	}
	if f.SSE != nil {
		e.raw(`,"sse":{`)
		first := true
		for _, m := range [...]struct{ name, v string }{{`"event":`, f.SSE.Event}, {`"id":`, f.SSE.ID}, {`"retry":`, f.SSE.Retry}, {`"malformed":`, f.SSE.Malformed}} {
			if m.v == "" {
				continue
			}
			if !first {
				e.b = append(e.b, ',')
			}
			first = false
			e.member(m.name)
			e.str(m.v)
		}
		e.b = append(e.b, '}')
	}
	if f.Note != "" {
		e.raw(`,"note":`)
		e.str(string(f.Note))
	}
	if f.Detail != "" {
		e.raw(`,"detail":`)
		e.str(f.Detail)
	}
	e.raw(`,"dir":`)
	e.str(f.Dir.String())
	e.raw(`,"kind":`)
	e.str(f.Kind.String())
	e.raw(`,"atNs":`)
	e.int(int64(f.At))
	switch {
	case len(f.Raw) == 0:
	case utf8.Valid(f.Raw):
		e.raw(`,"raw":`)
		e.bytesStr(f.Raw)
	default:
		e.raw(`,"raw":"`)
		e.b = base64.StdEncoding.AppendEncode(e.b, f.Raw)
		e.raw(`","base64":true`)
	}
	e.b = append(e.b, '}')
	return nil
}

func (e *recordingEncoder) http(h *HTTPInfo) error {
	e.b = append(e.b, '{')
	sep := func() {
		if e.b[len(e.b)-1] != '{' {
			e.b = append(e.b, ',')
		}
	}
	if h.Method != "" {
		e.raw(`"method":`)
		e.str(h.Method)
	}
	if h.URL != "" {
		sep()
		e.raw(`"url":`)
		e.str(h.URL)
	}
	if h.Status != 0 {
		sep()
		e.raw(`"status":`)
		e.int(int64(h.Status))
	}
	if h.ContentType != "" {
		sep()
		e.raw(`"contentType":`)
		e.str(h.ContentType)
	}
	if len(h.Header) > 0 {
		sep()
		e.raw(`"header":{`)
		keys := make([]string, 0, len(h.Header))
		for k := range h.Header {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for i, k := range keys {
			if i > 0 {
				e.b = append(e.b, ',')
			}
			e.str(k)
			e.b = append(e.b, ':')
			e.b = jsondoc.AppendStrings(e.b, h.Header[k])
		}
		e.b = append(e.b, '}')
	}
	if t := h.Timing; t != nil {
		sep()
		e.raw(`"timing":{"dns":`)
		e.int(int64(t.DNS))
		e.raw(`,"connect":`)
		e.int(int64(t.Connect))
		e.raw(`,"tls":`)
		e.int(int64(t.TLS))
		e.raw(`,"wrote":`)
		e.int(int64(t.Wrote))
		e.raw(`,"firstByte":`)
		e.int(int64(t.FirstByte))
		e.raw(`,"total":`)
		e.int(int64(t.Total))
		e.raw(`,"reused":`)
		e.bool(t.Reused)
		if t.OpenedBy != 0 {
			e.raw(`,"openedBy":`)
			e.int(int64(t.OpenedBy))
		}
		e.b = append(e.b, '}')
	}
	if t := h.TLS; t != nil {
		sep()
		e.raw(`"tls":{"version":`)
		e.str(t.Version)
		e.raw(`,"subject":`)
		e.str(t.Subject)
		e.raw(`,"issuer":`)
		e.str(t.Issuer)
		e.raw(`,"notAfter":`)
		if err := e.time(t.NotAfter); err != nil {
			return err
		}
		if len(t.DNSNames) > 0 {
			e.raw(`,"dnsNames":`)
			e.b = jsondoc.AppendStrings(e.b, t.DNSNames)
		}
		if t.VerifyError != "" {
			e.raw(`,"verifyError":`)
			e.str(t.VerifyError)
		}
		if t.Unverified {
			e.raw(`,"unverified":true`)
		}
		e.b = append(e.b, '}')
	}
	e.b = append(e.b, '}')
	return nil
}

func (e *recordingEncoder) step(s *Step) error {
	e.raw(`{"name":`)
	e.str(s.Name)
	e.raw(`,"method":`)
	e.str(s.Method)
	e.raw(`,"conn":`)
	e.int(int64(s.Conn))
	if s.ID != "" {
		e.raw(`,"id":`)
		e.str(s.ID)
	}
	if s.Page != 0 {
		e.raw(`,"page":`)
		e.int(int64(s.Page))
	}
	e.raw(`,"request":`)
	e.int(int64(s.Request))
	e.raw(`,"response":`)
	e.int(int64(s.Response))
	e.raw(`,"outcome":`)
	e.str(string(s.Outcome))
	if s.ErrorCode != nil {
		e.raw(`,"errorCode":`)
		e.int(*s.ErrorCode)
	}
	if s.HTTPStatus != 0 {
		e.raw(`,"httpStatus":`)
		e.int(int64(s.HTTPStatus))
	}
	if s.Err != "" {
		e.raw(`,"err":`)
		e.str(s.Err)
	}
	e.raw(`,"latencyNs":`)
	e.int(int64(s.Latency))
	if len(s.ErrorCodeRaw) > 0 {
		e.raw(`,"errorCodeRaw":`)
		if err := e.rawJSON(s.ErrorCodeRaw); err != nil {
			return err
		}
	}
	if len(s.Result) > 0 {
		e.raw(`,"result":`)
		if err := e.rawJSON(s.Result); err != nil {
			return err
		}
	}
	e.b = append(e.b, '}')
	return nil
}

func (e *recordingEncoder) process(p *ProcessInfo) {
	e.raw(`{"conn":`)
	e.int(int64(p.Conn))
	e.raw(`,"pid":`)
	e.int(int64(p.PID))
	e.raw(`,"started":`)
	e.bool(p.Started)
	if p.Error != "" {
		e.raw(`,"error":`)
		e.str(p.Error)
	}
	e.raw(`,"exited":`)
	e.bool(p.Exited)
	e.raw(`,"exitCode":`)
	e.int(int64(p.ExitCode))
	if p.Signal != "" {
		e.raw(`,"signal":`)
		e.str(p.Signal)
	}
	if p.EndedBy != "" {
		e.raw(`,"endedBy":`)
		e.str(p.EndedBy)
	}
	if p.StderrDropped != 0 {
		e.raw(`,"stderrDropped":`)
		e.int(p.StderrDropped)
	}
	e.raw(`,"shutdownNs":`)
	e.int(int64(p.ShutdownAfter))
	if len(p.Stderr) > 0 {
		e.raw(`,"stderr":`)
		// encoding/json wrote string(p.Stderr): bytes that are not UTF-8 become U+FFFD.
		e.bytesStr(p.Stderr)
	}
	e.b = append(e.b, '}')
}

// rawJSON writes a JSON text as encoding/json writes a json.RawMessage: validated, without
// the whitespace between tokens, and with <, >, & and U+2028/U+2029 escaped. A text that
// needs none of that (most do not) is copied as it is.
func (e *recordingEncoder) rawJSON(raw []byte) error {
	// jsondoc.Valid accepts exactly what json.Valid accepts, in a fraction of the time.
	if !jsondoc.Valid(raw) {
		// The message encoding/json gives, so that a caller sees the same error.
		_, err := json.Marshal(json.RawMessage(raw))
		return fmt.Errorf("writing recording: %w", err)
	}
	if !needsCompacting(raw) {
		e.b = append(e.b, raw...)
		return nil
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, raw); err != nil {
		return fmt.Errorf("writing recording: %w", err)
	}
	var escaped bytes.Buffer
	json.HTMLEscape(&escaped, compact.Bytes())
	e.b = append(e.b, escaped.Bytes()...)
	return nil
}

// needsCompacting reports whether a valid JSON text holds whitespace between its tokens or,
// in a string, a character encoding/json escapes for HTML.
func needsCompacting(raw []byte) bool {
	inString := false
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if !inString {
			switch c {
			case ' ', '\t', '\n', '\r':
				return true
			case '"':
				inString = true
			}
			continue
		}
		// Only the bytes PlainRun stops at can matter inside a string.
		if i = jsondoc.PlainRun(raw, i, true); i >= len(raw) {
			return false
		}
		switch c := raw[i]; c {
		case '\\':
			i++ // the escaped character, which cannot end the string
		case '"':
			inString = false
		case '<', '>', '&':
			return true
		case 0xE2: // the first byte of U+2028 and U+2029
			if i+2 < len(raw) && raw[i+1] == 0x80 && (raw[i+2] == 0xA8 || raw[i+2] == 0xA9) {
				return true
			}
		}
	}
	return false
}
