package checks

import (
	"bytes"
	"encoding/json"
	"sync"

	"github.com/mcpwatch/mcpwatch/jsondoc"
	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/protocol"
)

// Capture is what checks read: the probe result with every message frame decoded once.
type Capture struct {
	*probe.Result
	// msgs is indexed by frame Seq (a frame's index in Frames); frames that are not
	// messages have a zero Message (Kind 0). One slice, not a map of pointers: a probe's
	// frames are decoded in a few allocations however many there are.
	msgs []Message

	// exchanges groups the frames of HTTP exchanges, built on first use (see httpExchanges).
	exchangesOnce sync.Once
	exchanges     []httpExchange

	// caps are the declared capabilities, decoded the first time a check asks: many checks
	// ask, and each Result.Capability would scan the handshake again.
	capsOnce sync.Once
	caps     map[string]json.RawMessage

	// surface holds the list pages the surface checks read, parsed on first use (see
	// surfaceList).
	surfaceOnce sync.Once
	surface     map[surfaceKey]*surfaceList

	// sessionEra is why the checks of the stateless revision skip a session-era run (see
	// needsStateless).
	sessionEraOnce sync.Once
	sessionEra     string
}

// Capability is Result.Capability read from capabilities decoded once per capture.
func (c *Capture) Capability(name string) (value json.RawMessage, declared bool) {
	c.capsOnce.Do(func() { c.caps = c.Result.Capabilities() })
	value = c.caps[name]
	return value, value != nil && !jsondoc.IsNull(value)
}

// Declares is Result.Declares read from capabilities decoded once per capture.
func (c *Capture) Declares(name string) bool {
	_, declared := c.Capability(name)
	return declared
}

// NewCapture decodes the message frames of a result.
func NewCapture(res *probe.Result) *Capture {
	r := &Capture{Result: res, msgs: make([]Message, len(res.Frames))}
	var results knownResults
	for i := range res.Frames {
		f := &res.Frames[i]
		if f.Kind == probe.KindMessage && f.Seq >= 0 && f.Seq < len(r.msgs) {
			m := &r.msgs[f.Seq]
			*m = classify(f.Raw, results.at)
			if m.Kind == ResultResponse {
				results.add(m.Result)
			}
			if m.HasError {
				m.rpcErr, m.rpcErrObject = decodeError(m.Error)
				m.rpcErrDecoded = true
			}
		}
	}
	return r
}

// knownResults are the large results a capture's messages carried so far, each read and
// found valid once: a server answers tools/list with the same kilobytes on every connection
// and when asked again, in messages whose ids differ.
type knownResults [][]byte

// knownResultMin is the size from which a result is remembered: below it, reading a result
// again costs less than comparing it.
const knownResultMin = 512

func (k *knownResults) add(result []byte) {
	if len(result) < knownResultMin || len(*k) >= 8 {
		return
	}
	for _, seen := range *k {
		if bytes.Equal(seen, result) {
			return
		}
	}
	*k = append(*k, result)
}

// at is the length of a known result that rest starts with, 0 for none.
func (k *knownResults) at(rest []byte) int {
	for _, seen := range *k {
		if len(rest) >= len(seen) && rest[len(seen)-1] == seen[len(seen)-1] && bytes.Equal(rest[:len(seen)], seen) {
			return len(seen)
		}
	}
	return 0
}

// Message returns the decoded message of a frame (nil for frames that are not messages).
func (r *Capture) Message(seq int) *Message {
	if seq < 0 || seq >= len(r.msgs) || r.msgs[seq].Kind == 0 {
		return nil
	}
	return &r.msgs[seq]
}

// Frame returns the frame with the given Seq.
func (r *Capture) Frame(seq int) (probe.Frame, bool) {
	if seq < 0 || seq >= len(r.Frames) {
		return probe.Frame{}, false
	}
	return r.Frames[seq], true
}

// Inbound calls fn for every message frame the server sent, in order.
func (r *Capture) Inbound(fn func(f probe.Frame, m *Message)) {
	for _, f := range r.Frames {
		if f.Dir == probe.In && f.Kind == probe.KindMessage {
			fn(f, r.Message(f.Seq))
		}
	}
}

// ResponseOf returns the decoded answer of a step (nil when nothing answered it).
func (r *Capture) ResponseOf(st probe.Step) *Message {
	return r.Message(st.Response)
}

// Revision is the revision the probe spoke (negotiated when known, requested otherwise).
func (r *Capture) Revision() string {
	if r.ProtocolVersion != "" {
		return r.ProtocolVersion
	}
	return r.Requested
}

// Stateless reports whether the server was probed under a stateless revision (2026-07-28
// and later): no initialize, no session, server/discover instead.
func (r *Capture) Stateless() bool { return protocol.Stateless(r.Revision()) }

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

// handshakeStep is the main connection's answered initialize, or for a stateless server
// its server/discover: the step whose result Result.Handshake returns.
func handshakeStep(r *Capture) (probe.Step, bool) {
	name := probe.StepInitialize
	switch _, kind := r.Handshake(); kind {
	case probe.HandshakeNone:
		return probe.Step{}, false
	case probe.HandshakeDiscover:
		name = probe.StepDiscover
	}
	st, ok := stepOn(r, probe.ConnMain, name)
	return st, ok && st.Outcome == probe.OutcomeOK
}

// handshakeFrames are the request and answer of the handshake (nil when there was none).
func handshakeFrames(r *Capture) []int {
	if st, ok := handshakeStep(r); ok {
		return Seqs(st.Request, st.Response)
	}
	return nil
}
