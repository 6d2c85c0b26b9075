package probe

import (
	"context"
	"encoding/json"

	"github.com/mcpwatch/mcpwatch/protocol"
)

// The jsonrpc.batch probe (2025-03-26 basic/index, "Batching": implementations "MUST support
// receiving JSON-RPC batches"): a batch of two pings, on a connection of its own that
// negotiated 2025-03-26. Never initialize: it "MUST NOT be part of a JSON-RPC batch".

// StepBatch is the batch; StepBatchPing the ping that bounds the wait for its answers.
const (
	StepBatch     = "batch"
	StepBatchPing = "batch-ping"
)

// The ids of the batch's two requests, and the batch itself.
const (
	BatchID1     = `"mcpwatch-batch-1"`
	BatchID2     = `"mcpwatch-batch-2"`
	BatchRequest = `[{"jsonrpc":"2.0","id":` + BatchID1 + `,"method":"ping"},{"jsonrpc":"2.0","id":` + BatchID2 + `,"method":"ping"}]`
)

// probeBatch sends the batch once the connection negotiated 2025-03-26, the only revision
// that has batches.
func probeBatch(ctx context.Context, c *ruleConn) {
	if !c.handshake(ctx) || c.version != protocol.Revision20250326 {
		return
	}
	c.batchCall(ctx, StepBatch, json.RawMessage(BatchRequest), []string{BatchID1, BatchID2}, StepBatchPing)
}

// batchCall sends raw, a batch of requests with ids, and waits until every id is answered
// (in one array, in several, or one response at a time), until the fence ping is answered
// and a little more, or until the request timeout. The step is OK when every id was
// answered; which frames answered is the check's to read from the transcript.
func (c *ruleConn) batchCall(ctx context.Context, name string, raw json.RawMessage, ids []string, fence string) Step {
	x := c.watched.watch(raw, nil)
	x.batch = map[string]bool{}
	for _, id := range ids {
		x.batch[idKey([]byte(id))] = true
	}
	return c.watchedCall(ctx, name, raw, x, fence, "ping")
}

// batchAnswered takes the responses in a frame off the ids still awaited and reports whether
// none is left; x.mu is held.
func (x *rawWatch) batchAnswered(raw []byte) bool {
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) != nil {
		items = []json.RawMessage{raw}
	}
	for _, item := range items {
		if env, ok := peekEnvelope(item); ok && !env.hasMethod && env.hasID {
			delete(x.batch, idKey(env.id))
		}
	}
	return len(x.batch) == 0
}
