package probe

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// stdoutChunk is how much one read of stdout asks for.
const stdoutChunk = 64 << 10

// readStdout records every stdout line as an In message frame until EOF, a limit, or Close
// taking the pipe away. Once a limit is hit the server is killed: it has shown it will not
// stop, and reading on would only cost memory.
func (t *stdioTransport) readStdout() {
	defer close(t.stdoutDone)
	defer t.stdout.Close()

	lim := t.limits
	split := lineSplitter{max: lim.MaxMessageBytes}
	buf := make([]byte, stdoutChunk)
	var total int64
	lines := 0
	record := func(l stdoutLine, detail string) bool {
		if lines >= lim.MaxFrames {
			return false
		}
		lines++
		if l.truncated && detail == "" {
			detail = "longer than " + lim.messageLimitText() + "; only the start is kept"
		}
		t.w.Record(Frame{Dir: In, Kind: KindMessage, Raw: l.raw, At: l.at, Truncated: l.truncated, Detail: detail})
		return true
	}
	emit := func(l stdoutLine) bool { return record(l, "") }

	for {
		n, err := t.stdout.Read(buf)
		if n > 0 {
			at := t.clock.read()
			chunk := buf[:n]
			overBytes := total+int64(n) > lim.MaxTotalBytes
			if overBytes {
				chunk = chunk[:lim.MaxTotalBytes-total]
			}
			total += int64(len(chunk))
			switch split.feed(chunk, at, emit) {
			case splitTooLarge:
				t.limitHit(NoteTooLarge, "a stdout line is longer than "+lim.messageLimitText())
				return
			case splitStopped:
				t.limitHit(NoteTooMany, fmt.Sprintf("more than %d stdout lines", lim.MaxFrames))
				return
			}
			if overBytes {
				if l, ok := split.rest(); ok {
					l.truncated = true
					record(l, "cut off at the stdout byte limit")
				}
				t.limitHit(NoteTooLarge, fmt.Sprintf("stdout exceeded %d bytes", lim.MaxTotalBytes))
				return
			}
		}
		if err != nil {
			if l, ok := split.rest(); ok {
				detail := "no trailing newline"
				if cut := t.cutByProbe(err); cut != "" {
					// Not the server's line as it meant it: the probe ended the server (or took
					// the pipe) while the line was being written. Marked truncated, it is not
					// judged as a message.
					l.truncated, detail = true, cut
				}
				record(l, detail)
			}
			t.stdoutEnded(err)
			return
		}
	}
}

func (t *stdioTransport) limitHit(note NoteCode, detail string) {
	t.w.Record(Frame{Dir: In, Kind: KindNote, Note: note, Detail: detail})
	t.killForLimit(detail)
}

func (t *stdioTransport) stdoutEnded(err error) {
	switch {
	case errors.Is(err, io.EOF):
		t.w.Record(Frame{Dir: In, Kind: KindNote, Note: NoteStdoutClosed})
	case errors.Is(err, os.ErrClosed):
		// Close took the pipe away: something outside the process group still held it open.
		t.w.Record(Frame{Dir: In, Kind: KindNote, Note: NoteStdoutClosed, Detail: "closed by the probe"})
	default:
		t.w.Record(Frame{Dir: In, Kind: KindNote, Note: NoteReadError, Detail: "reading stdout: " + err.Error()})
	}
}

// cutByProbe says how the probe itself cut stdout short, when it did, for a line left
// unterminated when stdout ended with err: the probe closed stdout, or was ending the server
// (stdin closed, then signals). "" when the server ended stdout on its own.
func (t *stdioTransport) cutByProbe(err error) string {
	if errors.Is(err, os.ErrClosed) {
		return "no trailing newline: cut off when the probe closed stdout"
	}
	t.mu.Lock()
	phase := t.phase
	t.mu.Unlock()
	switch phase {
	case phaseStdinClosed:
		return "no trailing newline: stdout ended after the probe closed stdin to end the session, while this line was being written"
	case phaseSIGTERM, phaseSIGKILL:
		return fmt.Sprintf("no trailing newline: cut off when the probe ended the server with %s", phase.endedBy())
	}
	return ""
}
