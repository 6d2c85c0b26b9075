package checks

import (
	"strings"
	"testing"

	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/protocol"
)

// The rule: 2025-03-26 basic/index, "Batching": "MCP implementations MAY support sending
// JSON-RPC batches, but MUST support receiving JSON-RPC batches." Over Streamable HTTP the
// answer to a POST carrying requests is one JSON body or an event stream, whose responses
// "MAY be batched" (2025-03-26 basic/transports). 2025-06-18 removed batching.

const (
	initResult20250326 = `{"protocolVersion":"2025-03-26","capabilities":{"tools":{}},"serverInfo":{"name":"fixture","version":"1.0.0"}}`
	pong1              = `{"jsonrpc":"2.0","id":"mcpwatch-batch-1","result":{}}`
	pong2              = `{"jsonrpc":"2.0","id":"mcpwatch-batch-2","result":{}}`
)

// batchSession is a session whose batch connection negotiated initResult and, when it is
// 2025-03-26, sent the batch that answer answered.
func batchSession(transport, initResult string, answer reply) *probe.Result {
	return scriptedSession(transport, func(p *sessionPlan) {
		p.initResult = initResult
		p.atEnd = func(w *wireScript, _ func() string) {
			w.ruleHandshake(probe.ConnBatch, initResult, "")
			if answer != nil {
				w.raw(probe.ConnBatch, probe.StepBatch, probe.BatchRequest, "", answer)
				w.call(probe.ConnBatch, probe.StepBatchPing, "ping", `"batch-ping"`, "", resultReply(`{}`))
			}
		}
	})
}

// eventsReply answers a POST with an event stream carrying each message as an event.
func eventsReply(msgs ...string) reply {
	return func(w *wireScript, conn int, id string) int {
		w.head(conn, 200, "text/event-stream", "")
		seq := -1
		for _, m := range msgs {
			seq = w.sse(conn, m, "")
		}
		w.note(conn, probe.NoteStreamEnded, "")
		return seq
	}
}

func TestBatch(t *testing.T) {
	both := jsonReply("[" + pong1 + "," + pong2 + "]")
	runCheckRows(t, "jsonrpc.batch", []checkRow{
		{name: "both pings answered in one array over stdio pass",
			res: batchSession(protocol.TransportStdio, initResult20250326, both), want: StatusPass, msg: "answered, in a batch"},
		{name: "both pings answered in one JSON body over HTTP pass",
			res: batchSession(protocol.TransportHTTP, initResult20250326, both), want: StatusPass, msg: "answered, in a batch"},
		{name: "both pings answered one event at a time pass",
			res: batchSession(protocol.TransportHTTP, initResult20250326, eventsReply(pong1, pong2)), want: StatusPass, msg: "one response at a time"},
		{name: "one -32600 for the whole batch fails",
			res: batchSession(protocol.TransportStdio, initResult20250326,
				jsonReply(`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}`)),
			want: StatusFail, msg: `got none for id "mcpwatch-batch-1" and "mcpwatch-batch-2"; the server answered {"jsonrpc":"2.0","id":null`},
		{name: "a batch answered with HTTP 400 fails",
			res: batchSession(protocol.TransportHTTP, initResult20250326,
				statusReply(400, "application/json", `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"batches not supported"}}`)),
			want: StatusFail, msg: "the POST got HTTP 400"},
		{name: "no answer at all fails",
			res: batchSession(protocol.TransportStdio, initResult20250326, noReply()), want: StatusFail, msg: "the server answered nothing to it, though it answered the ping sent after it"},
		{name: "one ping of two answered fails",
			res:  batchSession(protocol.TransportStdio, initResult20250326, jsonReply("["+pong1+"]")),
			want: StatusFail, msg: `got none for id "mcpwatch-batch-2"`},
		{name: "a ping of the batch answered with an error fails",
			res: batchSession(protocol.TransportStdio, initResult20250326,
				jsonReply("["+pong1+`,{"jsonrpc":"2.0","id":"mcpwatch-batch-2","error":{"code":-32603,"message":"boom"}}]`)),
			want: StatusFail, msg: `the ping with id "mcpwatch-batch-2" got JSON-RPC error -32603`},
		{name: "a connection that negotiated 2025-11-25 skips",
			res: batchSession(protocol.TransportStdio, plainInitResult, nil), want: StatusSkip, msg: `batches exist in 2025-03-26 only; the batch connection negotiated "2025-11-25"`},
		{name: "a 2025-11-25 session without a batch connection skips",
			res: scriptedSession(protocol.TransportStdio), want: StatusSkip, msg: "batches exist in 2025-03-26 only; the server speaks 2025-11-25"},
	})
}

// TestBatchAnswerIsJudgedOnce: the array answering the probe's batch is jsonrpc.batch's
// alone (one fault, one finding): jsonrpc.parse and stdio.stdout-purity do not warn about it,
// and the responses to its members are responses to requests the probe sent.
func TestBatchAnswerIsJudgedOnce(t *testing.T) {
	rows := []struct {
		name, transport, check string
		answer                 reply
	}{
		{"an array body is no jsonrpc.parse finding", protocol.TransportHTTP, "jsonrpc.parse", jsonReply("[" + pong1 + "," + pong2 + "]")},
		{"an array line is no stdio.stdout-purity finding", protocol.TransportStdio, "stdio.stdout-purity", jsonReply("[" + pong1 + "," + pong2 + "]")},
		{"responses to the batch's members echo ids the probe sent", protocol.TransportHTTP, "jsonrpc.id-echo", eventsReply(pong1, pong2)},
		{"responses to the batch's members on stdio echo ids the probe sent", protocol.TransportStdio, "jsonrpc.id-echo", func(w *wireScript, conn int, id string) int {
			w.in(conn, pong1)
			return w.in(conn, pong2)
		}},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			f := evaluateCheck(t, row.check, batchSession(row.transport, initResult20250326, row.answer))
			if f.Status != StatusPass {
				t.Errorf("%s: %s %q, want pass", row.check, f.Status, f.Message)
			}
		})
	}
	// An array the server sends unasked, on the main connection, is still judged.
	res := batchSession(protocol.TransportHTTP, initResult20250326, jsonReply("["+pong1+","+pong2+"]"))
	w := &wireScript{res: res, exchange: map[int]int{probe.ConnMain: 99}}
	w.out(probe.ConnMain, `{"jsonrpc":"2.0","id":50,"method":"ping"}`)
	w.in(probe.ConnMain, `[{"jsonrpc":"2.0","id":50,"result":{}}]`)
	if f := evaluateCheck(t, "jsonrpc.parse", res); f.Status != StatusWarn || !strings.Contains(f.Message, "a JSON-RPC batch") {
		t.Errorf("jsonrpc.parse on an unasked array: %s %q, want warn", f.Status, f.Message)
	}
}
