package checks

import (
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/protocol"
)

// stdoutWrites is a stdio session whose server writes extra stdout lines after the
// notifications.
func stdoutWrites(lines ...string) *probe.Result {
	return scriptedSession(protocol.TransportStdio, afterNotifications(func(w *wireScript) {
		for _, l := range lines {
			w.in(probe.ConnMain, l)
		}
	}))
}

func TestStdoutPurityAllowsOnlyJSONRPCLines(t *testing.T) {
	truncated := scriptedSession(protocol.TransportStdio, afterNotifications(func(w *wireScript) {
		w.add(probe.Frame{Conn: probe.ConnMain, Dir: probe.In, Kind: probe.KindMessage, Raw: []byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"xxxx`), Truncated: true})
		w.note(probe.ConnMain, probe.NoteTooLarge, "a stdout line is longer than 16 bytes")
	}))
	batch25a := scriptedSession(protocol.TransportStdio, withVersion("2025-03-26"), afterNotifications(func(w *wireScript) {
		w.in(probe.ConnMain, `[{"jsonrpc":"2.0","method":"notifications/message","params":{}}]`)
	}))
	runCheckRows(t, "stdio.stdout-purity", []checkRow{
		{name: "only messages pass", res: scriptedSession(protocol.TransportStdio), want: StatusPass, msg: "stdout lines, each a JSON-RPC message"},
		{name: "a malformed message is the envelope checks' to judge", res: stdoutWrites(`{"jsonrpc":"2.0","id":5}`), want: StatusPass},
		{name: "a CRLF line end is JSON whitespace", res: stdoutWrites("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{}}\r"), want: StatusPass},
		{name: "a banner fails", res: stdoutWrites("Server listening on stdio"),
			want: StatusFail, msg: `expected only JSON-RPC messages on stdout, got text that is not JSON (invalid character 'S' looking for beginning of value): "Server listening on stdio"`},
		{name: "a blank line fails", res: stdoutWrites(""), want: StatusFail, msg: "got a blank line"},
		{name: "a blank-padded line fails", res: stdoutWrites("   \t"), want: StatusFail, msg: "got a blank line"},
		{name: "a message split over two lines fails twice",
			res:  stdoutWrites(`{"jsonrpc":"2.0","method":"notifications/message",`, `"params":{}}`),
			want: StatusFail, msg: "(and 1 more)"},
		{name: "invalid UTF-8 fails", res: stdoutWrites("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"data\":\"\xc3\x28\"}}"),
			want: StatusFail, msg: "got invalid UTF-8"},
		{name: "a structured log line fails", res: stdoutWrites(`{"level":"info","msg":"ready","time":"2026-11-22T10:00:00Z"}`),
			want: StatusFail, msg: `a JSON object with no JSON-RPC member (a structured log line?): {"level":"info"`},
		{name: "a bare number fails", res: stdoutWrites(`42`), want: StatusFail, msg: "got a JSON number, not a message object: 42"},
		{name: "a batch fails outside 2025-03-26", res: stdoutWrites(`[{"jsonrpc":"2.0","method":"notifications/message","params":{}}]`),
			want: StatusFail, msg: "got a JSON array, not a message object"},
		{name: "a batch under 2025-03-26 warns", res: batch25a, want: StatusWarn, msg: "got a batch (allowed in 2025-03-26 only"},
		{name: "a line cut by the probe's limit is not judged", res: truncated, want: StatusPass},
		{name: "silence is untested", res: scriptedSession(protocol.TransportStdio, initFails), want: StatusUntested, msg: "wrote nothing"},
		{name: "http is a skip", res: scriptedSession(protocol.TransportHTTP), want: StatusSkip, msg: "stdio transport only"},
	})
}

func TestSpawnNeedsAProcessThatAnswersInitialize(t *testing.T) {
	stdio := protocol.TransportStdio
	noProcessInfo := spawnFailure()
	noProcessInfo.Processes = nil
	noRecord := newWireScript(stdio).res
	runCheckRows(t, "stdio.spawn", []checkRow{
		{name: "a started server passes", res: scriptedSession(stdio), want: StatusPass, msg: "the command started (pid 4242)"},
		{name: "a missing command fails", res: spawnFailure(), want: StatusFail, noFrames: true,
			msg: `expected the command to start (connection 1), got "exec: \"mcp-nope\": executable file not found in $PATH" (and 1 more)`},
		{name: "a spawn error without process info fails", res: noProcessInfo, want: StatusFail, noFrames: true,
			msg: `expected the command to start, got "cannot start server command`},
		{name: "an exit before answering initialize fails", res: scriptedSession(stdio, exitsBeforeAnswering), want: StatusFail,
			msg: `expected the server to answer initialize, got the process ending first (exit status 1; stderr ends "config: missing API_KEY | panic: no key | goroutine 1 [running]:")`},
		{name: "a crash by signal fails",
			res: scriptedSession(stdio, exitsBeforeAnswering, func(p *sessionPlan) {
				p.processes[0].ExitCode, p.processes[0].Signal, p.processes[0].Stderr = -1, "SIGSEGV", nil
			}),
			want: StatusFail, msg: "got the process ending first (killed by SIGSEGV)"},
		{name: "an exit after answering initialize passes",
			res: scriptedSession(stdio, func(p *sessionPlan) {
				p.processes[0].EndedBy, p.processes[0].ExitCode = "exit", 0
			}),
			want: StatusPass},
		{name: "a server that never answers but stays up passes here",
			res: scriptedSession(stdio, func(p *sessionPlan) {
				p.initialize = noReply()
				p.processes[0].EndedBy, p.processes[0].Signal, p.processes[0].ExitCode = "SIGTERM", "SIGTERM", -1
			}),
			want: StatusPass},
		{name: "no process recorded is untested", res: noRecord, want: StatusUntested, msg: "no server process"},
		{name: "http is a skip", res: scriptedSession(protocol.TransportHTTP), want: StatusSkip},
	})
}

func TestShutdownWarnsWhenASignalWasNeeded(t *testing.T) {
	stdio := protocol.TransportStdio
	endedBy := func(how string, after time.Duration) *probe.Result {
		return scriptedSession(stdio, func(p *sessionPlan) {
			p.processes[0].EndedBy, p.processes[0].ShutdownAfter = how, after
			if how == "SIGTERM" || how == "SIGKILL" {
				p.processes[0].Signal, p.processes[0].ExitCode = how, -1
			}
		})
	}
	running := scriptedSession(stdio, func(p *sessionPlan) { p.processes[0].Exited, p.processes[0].EndedBy = false, "" })
	runCheckRows(t, "stdio.shutdown", []checkRow{
		{name: "an exit on stdin EOF passes", res: endedBy("stdin-eof", 15*time.Millisecond), want: StatusPass, msg: "exited 15ms after stdin closed"},
		{name: "SIGTERM warns", res: endedBy("SIGTERM", 2*time.Second), want: StatusWarn,
			msg: "expected the server to exit once stdin closed, got no exit within the grace period: SIGTERM ended it after 2s"},
		{name: "SIGKILL warns", res: endedBy("SIGKILL", 4*time.Second), want: StatusWarn, msg: "nor after SIGTERM: SIGKILL ended it after 4s"},
		{name: "an exit before stdin closed is untested", res: scriptedSession(stdio, exitsBeforeAnswering), want: StatusUntested,
			msg: "ended by itself before stdin was closed (exit status 1"},
		{name: "an unrecorded end is untested", res: running, want: StatusUntested, msg: "still running"},
		{name: "a server that never started is untested", res: spawnFailure(), want: StatusUntested, msg: "could not be started"},
		{name: "http is a skip", res: scriptedSession(protocol.TransportHTTP), want: StatusSkip},
	})
}
