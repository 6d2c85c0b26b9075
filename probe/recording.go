package probe

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"time"
)

// RecordingVersion is bumped when the recording format changes incompatibly.
const RecordingVersion = 1

// A recording is a Result written out without loss: every frame's exact bytes, directions,
// kinds and times. It is what the store keeps for a run's detail page and what tests and
// benchmarks replay checks on. These structs read it; AppendRecording writes the same
// members without reflection (a test holds it to what encoding/json writes of them).
type recording struct {
	Version int             `json:"mcpwatchRecording"`
	Result  *Result         `json:"result"`
	Init    json.RawMessage `json:"initialize,omitempty"`
	Disc    json.RawMessage `json:"discover,omitempty"`
	Frames  []frameRecord   `json:"frames"`
	Steps   []stepRecord    `json:"steps"`
	Procs   []procRecord    `json:"processes,omitempty"`
	DurNS   int64           `json:"durationNs"`
	InitAt  int             `json:"initializedAt"`
}

type frameRecord struct {
	Frame
	Dir    string `json:"dir"`
	Kind   string `json:"kind"`
	AtNS   int64  `json:"atNs"`
	Raw    string `json:"raw,omitempty"`
	Base64 bool   `json:"base64,omitempty"`
}

type stepRecord struct {
	Step
	LatencyNS    int64           `json:"latencyNs"`
	ErrorCodeRaw json.RawMessage `json:"errorCodeRaw,omitempty"`
	Result       json.RawMessage `json:"result,omitempty"`
}

type procRecord struct {
	ProcessInfo
	ShutdownNS int64  `json:"shutdownNs"`
	Stderr     string `json:"stderr,omitempty"`
}

// WriteRecording writes r as a recording (see AppendRecording).
func WriteRecording(w io.Writer, r *Result) error {
	out, err := AppendRecording(nil, r)
	if err != nil {
		return err
	}
	if _, err := w.Write(out); err != nil {
		return fmt.Errorf("writing recording: %w", err)
	}
	return nil
}

// ReadRecording reads a recording written by WriteRecording.
func ReadRecording(rd io.Reader) (*Result, error) {
	var rec recording
	if err := json.NewDecoder(rd).Decode(&rec); err != nil {
		return nil, fmt.Errorf("reading recording: %w", err)
	}
	if rec.Version != RecordingVersion || rec.Result == nil {
		return nil, fmt.Errorf("reading recording: unsupported version %d", rec.Version)
	}
	r := rec.Result
	r.Initialize = rec.Init
	r.Discover = rec.Disc
	r.Duration = time.Duration(rec.DurNS)
	r.InitializedAt = rec.InitAt
	r.Frames = make([]Frame, 0, len(rec.Frames))
	for i, fr := range rec.Frames {
		f := fr.Frame
		f.At = time.Duration(fr.AtNS)
		var ok bool
		if f.Dir, ok = parseDirection(fr.Dir); !ok {
			return nil, fmt.Errorf("reading recording: frame %d: unknown direction %q", i, fr.Dir)
		}
		if f.Kind, ok = parseFrameKind(fr.Kind); !ok {
			return nil, fmt.Errorf("reading recording: frame %d: unknown kind %q", i, fr.Kind)
		}
		if fr.Base64 {
			raw, err := base64.StdEncoding.DecodeString(fr.Raw)
			if err != nil {
				return nil, fmt.Errorf("reading recording: frame %d: %w", i, err)
			}
			f.Raw = raw
		} else if fr.Raw != "" {
			f.Raw = []byte(fr.Raw)
		}
		r.Frames = append(r.Frames, f)
	}
	r.Steps = nil
	for _, sr := range rec.Steps {
		s := sr.Step
		s.Latency = time.Duration(sr.LatencyNS)
		s.ErrorCodeRaw = sr.ErrorCodeRaw
		s.Result = sr.Result
		r.Steps = append(r.Steps, s)
	}
	r.Processes = nil
	for _, pr := range rec.Procs {
		p := pr.ProcessInfo
		p.ShutdownAfter = time.Duration(pr.ShutdownNS)
		if pr.Stderr != "" {
			p.Stderr = []byte(pr.Stderr)
		}
		r.Processes = append(r.Processes, p)
	}
	return r, nil
}

func parseDirection(s string) (Direction, bool) {
	for _, d := range []Direction{Out, In} {
		if d.String() == s {
			return d, true
		}
	}
	return 0, false
}

func parseFrameKind(s string) (FrameKind, bool) {
	for k := KindMessage; k <= KindNote; k++ {
		if k.String() == s {
			return k, true
		}
	}
	return 0, false
}
