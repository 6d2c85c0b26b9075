package checks

import (
	"fmt"
	"strings"
	"time"

	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/protocol"
)

const stdioSpec = "https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#stdio"

func stdioChecks() []Check {
	return []Check{
		{ID: "stdio.stdout-purity", Area: "stdio", Rule: "F1, F2, F4", Spec: stdioSpec,
			Transport: protocol.TransportStdio,
			Title:     "every stdout line is one JSON-RPC message in UTF-8",
			Evaluate:  checkStdoutPurity},
		{ID: "stdio.spawn", Area: "stdio", Rule: "-", Spec: stdioSpec,
			Transport: protocol.TransportStdio,
			Title:     "the command starts and stays up until it has answered initialize",
			Evaluate:  checkSpawn},
		{ID: "stdio.shutdown", Area: "stdio", Rule: "C7",
			Spec:      "https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#stdio",
			Transport: protocol.TransportStdio,
			Title:     "the server exits within the grace period once stdin closes",
			Evaluate:  checkShutdown},
	}
}

// stdoutJunk says why a stdout line is no JSON-RPC message at all (junk is false when it is
// one, well-formed or not: a malformed message is the envelope checks' to judge).
func stdoutJunk(m *Message) (why string, junk bool) {
	switch m.Kind {
	case NotJSON:
		switch {
		case m.BadUTF8:
			return "invalid UTF-8", true
		case m.ParseErr == "empty":
			return "a blank line", true
		}
		return "text that is not JSON (" + m.ParseErr + ")", true
	case NotObject:
		return "", true
	}
	if !m.HasJSONRPC && !m.HasID && !m.HasMethod && !m.HasResult && !m.HasError {
		return "a JSON object with no JSON-RPC member (a structured log line?)", true
	}
	return "", false
}

func checkStdoutPurity(r *Capture, f *Finding) {
	lines := 0
	batch := batchAnswers(r)
	r.Inbound(func(fr probe.Frame, m *Message) {
		if m == nil {
			return
		}
		lines++
		if batch[fr.Seq] {
			return // the answer to the probe's batch: jsonrpc.batch judges it
		}
		if fr.Truncated {
			// The probe cut it: at its size limit (NoteTooLarge says so), or by ending the
			// server while the line was being written (the frame's Detail says so).
			return
		}
		why, junk := stdoutJunk(m)
		if !junk {
			return
		}
		if m.Kind == NotObject {
			t := jsonType(fr.Raw)
			if t == "array" && batchesAllowed(r) {
				f.Warn(Seqs(fr.Seq), "expected one JSON-RPC message per line, got a batch (allowed in 2025-03-26 only, and the probe does not read batches): %s", clipJSON(fr.Raw))
				return
			}
			why = "a JSON " + t + ", not a message object"
		}
		f.Fail(Seqs(fr.Seq), "expected only JSON-RPC messages on stdout, got %s: %s", why, clipJSON(fr.Raw))
	})
	if lines == 0 {
		f.Untested("the server wrote nothing to stdout")
		return
	}
	f.Pass("%d stdout lines, each a JSON-RPC message", lines)
}

func checkSpawn(r *Capture, f *Finding) {
	if len(r.Processes) == 0 {
		if r.Err != "" && strings.Contains(r.Err, probe.ErrSpawn.Error()) {
			f.Fail(nil, "expected the command to start, got %s", Clip([]byte(r.Err)))
			return
		}
		f.Untested("no server process was recorded")
		return
	}
	for _, p := range r.Processes {
		if !p.Started {
			why := p.Error
			if why == "" {
				why = r.Err
			}
			f.Fail(nil, "expected the command to start (connection %d), got %s", p.Conn, Clip([]byte(why)))
		}
	}
	if len(f.Evidence) > 0 {
		return
	}
	p, ok := r.ProcessOf(probe.ConnMain)
	if !ok {
		f.Untested("no process was recorded for the main connection")
		return
	}
	first := probe.StepInitialize
	if r.Stateless() {
		first = probe.StepDiscover // the first request of a stateless conversation
	}
	initStep, sent := r.FirstStep(first)
	if p.Exited && p.EndedBy == "exit" && (!sent || !answered(initStep)) {
		frames := Seqs(initStep.Request, exitNote(r, probe.ConnMain))
		f.Fail(frames, "expected the server to answer %s, got the process ending first (%s)", first, describeExit(p))
		return
	}
	f.Pass("the command started (pid %d)", p.PID)
}

// exitNote is the Seq of the NoteProcessExit frame of a connection (-1 when none).
func exitNote(r *Capture, conn int) int {
	for i := len(r.Frames) - 1; i >= 0; i-- {
		fr := r.Frames[i]
		if fr.Conn == conn && fr.Kind == probe.KindNote && fr.Note == probe.NoteProcessExit {
			return fr.Seq
		}
	}
	return -1
}

// limitKill finds the note of a limit the server of conn went over, for which the stdio
// transport kills it at once: its Seq and detail, or -1.
func limitKill(r *Capture, conn int) (int, string) {
	for _, fr := range r.Frames {
		if fr.Conn == conn && fr.Kind == probe.KindNote && (fr.Note == probe.NoteTooLarge || fr.Note == probe.NoteTooMany) {
			return fr.Seq, fr.Detail
		}
	}
	return -1, ""
}

func checkShutdown(r *Capture, f *Finding) {
	p, ok := r.ProcessOf(probe.ConnMain)
	switch {
	case !ok:
		f.Untested("no server process was recorded for the main connection")
		return
	case !p.Started:
		f.Untested("the server could not be started")
		return
	}
	frames := Seqs(exitNote(r, probe.ConnMain))
	if seq, why := limitKill(r, probe.ConnMain); seq >= 0 && p.EndedBy == "SIGKILL" {
		// The probe's own kill, not the end of a shutdown the server ignored.
		f.Untested("the probe killed the server when it went over a limit (%s), before any shutdown", why)
		return
	}
	switch p.EndedBy {
	case "stdin-eof":
		f.Pass("exited %s after stdin closed", p.ShutdownAfter.Round(time.Millisecond))
	case "SIGTERM":
		f.Warn(frames, "expected the server to exit once stdin closed, got no exit within the grace period: SIGTERM ended it after %s", p.ShutdownAfter.Round(time.Millisecond))
	case "SIGKILL":
		f.Warn(frames, "expected the server to exit once stdin closed, got no exit within the grace period, nor after SIGTERM: SIGKILL ended it after %s", p.ShutdownAfter.Round(time.Millisecond))
	case "exit":
		f.Untested("the server ended by itself before stdin was closed (%s)", describeExit(p))
	default:
		f.Untested("how the server process ended was not recorded (%s)", describeEnd(p))
	}
}

func describeEnd(p probe.ProcessInfo) string {
	if !p.Exited {
		return "still running when the probe ended"
	}
	return fmt.Sprintf("ended by %q", p.EndedBy)
}
