package checks

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/mcpwatch/mcpwatch/jsondoc"
	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/protocol"
)

const specBatching = "https://modelcontextprotocol.io/specification/2025-03-26/basic#batching"

func batchCheck() Check {
	return Check{ID: "jsonrpc.batch", Area: "jsonrpc", Rule: "A8", Spec: specBatching,
		Title:    "under 2025-03-26, a batch of two requests gets both responses",
		Evaluate: checkBatch}
}

// batchElements are the members of a JSON array (ok false when raw is no array).
func batchElements(raw []byte) ([]json.RawMessage, bool) {
	var items []json.RawMessage
	if jsonType(raw) != "array" || json.Unmarshal(raw, &items) != nil {
		return nil, false
	}
	return items, true
}

// batchAnswers are the Seqs of the arrays the server sent on the batch probe's connection:
// what answers the probe's batch is jsonrpc.batch's to judge, not the envelope checks'.
func batchAnswers(r *Capture) map[int]bool {
	out := map[int]bool{}
	for _, f := range r.Frames {
		if f.Conn != probe.ConnBatch || f.Dir != probe.In || f.Kind != probe.KindMessage {
			continue
		}
		if m := r.Message(f.Seq); m != nil && m.Kind == NotObject && jsonType(f.Raw) == "array" {
			out[f.Seq] = true
		}
	}
	return out
}

// checkBatch judges the answer to the batch of two pings (2025-03-26 basic/index,
// "Batching": "MCP implementations MAY support sending JSON-RPC batches, but MUST support
// receiving JSON-RPC batches"). Both ids must come back in responses: in one array, in
// several, or (over an event stream) one response at a time.
func checkBatch(r *Capture, f *Finding) {
	st, sent := stepOn(r, probe.ConnBatch, probe.StepBatch)
	if !sent {
		batchNotSent(r, f)
		return
	}
	frames := Seqs(st.Request)
	want := map[string]bool{}
	for _, id := range []string{probe.BatchID1, probe.BatchID2} {
		key, _ := strictIDKey(json.RawMessage(id))
		want[key] = true
	}
	var faults []string
	var arrays int
	for _, fr := range r.Frames {
		if fr.Conn != probe.ConnBatch || fr.Dir != probe.In || fr.Kind != probe.KindMessage || fr.Seq < st.Request {
			continue
		}
		items, isArray := batchElements(fr.Raw)
		if !isArray {
			items = []json.RawMessage{fr.Raw}
		}
		answers := false
		for _, item := range items {
			m := Classify(item)
			if m.IsResponse() && (!m.HasID || m.NullID()) {
				answers = true // an error about the batch as a whole
				continue
			}
			if !m.IsResponse() || !m.HasID {
				if isArray && m.Kind != Request && m.Kind != Notification {
					faults = append(faults, fmt.Sprintf("a batch member that is no response: %s", clipJSON(item)))
				}
				continue
			}
			key, ok := strictIDKey(m.ID)
			if !ok || !want[key] {
				continue
			}
			answers = true
			delete(want, key)
			if m.Kind == ErrorResponse {
				faults = append(faults, fmt.Sprintf("the ping with id %s got %s", clipJSON(m.ID), describeError(&m)))
			} else if m.Kind != ResultResponse {
				faults = append(faults, fmt.Sprintf("the answer to id %s is %s", clipJSON(m.ID), m.Kind))
			} else if v := jsonValue(m.JSONRPC); v != "2.0" {
				faults = append(faults, fmt.Sprintf(`the answer to id %s carries "jsonrpc": %s`, clipJSON(m.ID), clipJSON(m.JSONRPC)))
			}
		}
		if answers || isArray {
			frames = append(frames, fr.Seq)
			if isArray {
				arrays++
			}
		}
	}
	if st.Response >= 0 && !slices.Contains(frames, st.Response) {
		frames = append(frames, st.Response) // an HTTP status that refused the batch
		slices.Sort(frames)
	}
	if len(want) > 0 {
		missing := make([]string, 0, len(want))
		for _, id := range []string{probe.BatchID1, probe.BatchID2} {
			if key, _ := strictIDKey(json.RawMessage(id)); want[key] {
				missing = append(missing, id)
			}
		}
		got := describeBatchAnswer(r, st, frames)
		f.Fail(frames, "expected a response to each request of the batch (2025-03-26: servers MUST support receiving batches), got none for id %s; %s",
			strings.Join(missing, " and "), got)
		return
	}
	if len(faults) > 0 {
		f.Fail(frames, "expected both pings of the batch answered with a result, got %s", strings.Join(faults, "; "))
		return
	}
	how := "one response at a time"
	if arrays > 0 {
		how = "in a batch"
	}
	f.Pass("both requests of the batch were answered, %s", how)
}

// jsonValue is a JSON string's value ("" for anything else).
func jsonValue(raw json.RawMessage) string {
	s, _ := jsondoc.Str(raw)
	return s
}

// describeBatchAnswer says what came back for the batch when not every request was answered.
func describeBatchAnswer(r *Capture, st probe.Step, frames []int) string {
	var parts []string
	for _, seq := range frames[1:] {
		if fr, ok := r.Frame(seq); ok {
			parts = append(parts, clipJSON(fr.Raw))
		}
	}
	switch {
	case st.HTTPStatus != 0 && st.HTTPStatus != http.StatusOK:
		return "the POST got " + httpAnswer(r, st)
	case len(parts) > 0:
		return "the server answered " + strings.Join(parts, ", ")
	}
	if fence, ok := stepOn(r, probe.ConnBatch, probe.StepBatchPing); ok && fence.Outcome == probe.OutcomeOK && st.Outcome == probe.OutcomeNoAnswer {
		return "the server answered nothing to it, though it answered the ping sent after it"
	}
	return describeAnswer(r, st)
}

// batchNotSent says why the batch was not sent: a skip under another revision (only
// 2025-03-26 has batches: 2025-06-18 removed them, 2024-11-05 never had them), untested when
// the probe could not send it.
func batchNotSent(r *Capture, f *Finding) {
	if init, ok := stepOn(r, probe.ConnBatch, probe.StepRuleInitialize); ok {
		if init.Outcome != probe.OutcomeOK {
			f.Untested("the batch was not sent: initialize on the probe's own connection did not succeed (%s)", describeAnswer(r, init))
			return
		}
		var ir struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		_ = json.Unmarshal(init.Result, &ir)
		f.Skip("batches exist in %s only; the batch connection negotiated %q", protocol.Revision20250326, ir.ProtocolVersion)
		return
	}
	if rev := r.Revision(); rev != protocol.Revision20250326 {
		f.Skip("batches exist in %s only; the server speaks %s", protocol.Revision20250326, rev)
		return
	}
	f.notJudged(stoppedHere(r), "%s", ruleMissing(r, probe.ConnBatch, "the batch"))
}
