package checks

import (
	"encoding/json"
	"sync"

	"github.com/mcpwatch/mcpwatch/probe"
)

// Run is what checks read: the probe result with every message frame decoded once.
type Run struct {
	*probe.Result
	msgs map[int]*Message // by frame Seq, message frames only

	// exchanges groups the frames of HTTP exchanges, built on first use (see httpExchanges).
	exchangesOnce sync.Once
	exchanges     []httpExchange
}

// NewRun decodes the message frames of a result.
func NewRun(res *probe.Result) *Run {
	r := &Run{Result: res, msgs: make(map[int]*Message, len(res.Frames))}
	for i := range res.Frames {
		f := &res.Frames[i]
		if f.Kind == probe.KindMessage {
			m := Classify(f.Raw)
			r.msgs[f.Seq] = &m
		}
	}
	return r
}

// Message returns the decoded message of a frame (nil for frames that are not messages).
func (r *Run) Message(seq int) *Message { return r.msgs[seq] }

// Frame returns the frame with the given Seq.
func (r *Run) Frame(seq int) (probe.Frame, bool) {
	if seq < 0 || seq >= len(r.Frames) {
		return probe.Frame{}, false
	}
	return r.Frames[seq], true
}

// Inbound calls fn for every message frame the server sent, in order.
func (r *Run) Inbound(fn func(f probe.Frame, m *Message)) {
	for _, f := range r.Frames {
		if f.Dir == probe.In && f.Kind == probe.KindMessage {
			fn(f, r.msgs[f.Seq])
		}
	}
}

// Outbound calls fn for every message frame the probe sent, in order.
func (r *Run) Outbound(fn func(f probe.Frame, m *Message)) {
	for _, f := range r.Frames {
		if f.Dir == probe.Out && f.Kind == probe.KindMessage {
			fn(f, r.msgs[f.Seq])
		}
	}
}

// ResponseOf returns the decoded answer of a step (nil when nothing answered it).
func (r *Run) ResponseOf(st probe.Step) *Message {
	if st.Response < 0 {
		return nil
	}
	return r.msgs[st.Response]
}

// Revision is the revision the probe spoke (negotiated when known, requested otherwise).
func (r *Run) Revision() string {
	if r.ProtocolVersion != "" {
		return r.ProtocolVersion
	}
	return r.Requested
}

// Capabilities decodes the server's declared capabilities from the initialize result.
func (r *Run) Capabilities() map[string]json.RawMessage {
	var ir struct {
		Capabilities map[string]json.RawMessage `json:"capabilities"`
	}
	_ = json.Unmarshal(r.Initialize, &ir)
	return ir.Capabilities
}

// Declares reports whether the server declared a capability (tools, resources, prompts...).
func (r *Run) Declares(capability string) bool {
	v, ok := r.Capabilities()[capability]
	return ok && string(v) != "null"
}

// Seqs is a convenience for evidence frame lists.
func Seqs(seqs ...int) []int {
	out := make([]int, 0, len(seqs))
	for _, s := range seqs {
		if s >= 0 {
			out = append(out, s)
		}
	}
	return out
}
