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
			detail = fmt.Sprintf("longer than %d bytes; only the start is kept", lim.MaxMessageBytes)
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
				t.limitHit(NoteTooLarge, fmt.Sprintf("a stdout line is longer than %d bytes", lim.MaxMessageBytes))
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
				record(l, "no trailing newline")
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
