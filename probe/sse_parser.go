package probe

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/mcpwatch/mcpwatch/internal/textclip"
)

// sseEvent is one block of an event stream: the lines up to a blank line. It is reported
// whether or not a browser would dispatch it (a priming event with empty data, a block of
// comments), because what a server sends is evidence either way.
type sseEvent struct {
	// At is when the first line of the block arrived.
	At time.Duration
	// Data is the data lines joined by "\n"; HasData says whether there was a data field at all.
	Data    []byte
	HasData bool
	Event   string
	ID      string
	Retry   string
	// Comments counts the comment lines (":..." ).
	Comments int
	// Fields counts the non-comment lines.
	Fields int
	// Truncated: data beyond the event bound was dropped.
	Truncated bool
	// Malformed lists framing faults found in the block, "; "-joined.
	Malformed string
}

// empty reports whether the block carried no line at all.
func (e *sseEvent) empty() bool { return e.Comments == 0 && e.Fields == 0 }

func (e *sseEvent) malformed(format string, args ...any) {
	// Bounded: a hostile stream repeating one fault in every line must not grow this without end.
	const maxMalformed = 512
	if len(e.Malformed) >= maxMalformed {
		return
	}
	msg := fmt.Sprintf(format, args...)
	if e.Malformed != "" {
		msg = "; " + msg
	}
	if strings.Contains(e.Malformed, msg) {
		return
	}
	e.Malformed += msg
	if len(e.Malformed) > maxMalformed {
		e.Malformed = e.Malformed[:maxMalformed] + "..."
	}
}

// sseParser reads an event stream by the WHATWG rules (fields event, data, id and retry;
// ":" comment lines; CR, LF or CRLF line ends; a leading BOM), one block at a time, with
// every line and every event bounded. It never fails on bad framing: it notes it in the
// event's Malformed and goes on, the way a lenient client would.
type sseParser struct {
	r        *bufio.Reader
	clock    func() time.Duration
	maxLine  int
	maxEvent int

	started bool // the BOM check is done
	skipLF  bool // the last line ended with CR: a following LF belongs to it
}

func newSSEParser(r io.Reader, maxLine, maxEvent int, clock func() time.Duration) *sseParser {
	if clock == nil {
		start := time.Now()
		clock = func() time.Duration { return time.Since(start) }
	}
	return &sseParser{r: bufio.NewReaderSize(r, 32<<10), clock: clock, maxLine: maxLine, maxEvent: maxEvent}
}

// errLineTooLong marks a line cut at the line bound (the rest of it was skipped).
var errLineTooLong = errors.New("line too long")

// Next returns the next block of the stream. When the stream ends it returns the error that
// ended it (io.EOF for a clean end) together with whatever part of an unfinished block was
// read (check empty()): a client discards such a block, but the probe reports it.
func (p *sseParser) Next() (sseEvent, error) {
	var ev sseEvent
	var data bytes.Buffer
	finish := func() {
		if ev.HasData {
			ev.Data = bytes.Clone(data.Bytes())
		}
	}
	for {
		line, at, err := p.readLine()
		if errors.Is(err, errLineTooLong) {
			ev.malformed("a line longer than %d bytes was cut", p.maxLine)
			err = nil
		}
		if err != nil {
			if len(line) > 0 {
				// The last line had no line end: it is part of the unfinished block.
				p.field(&ev, &data, line, at)
			}
			finish()
			return ev, err
		}
		if len(line) == 0 {
			if ev.empty() {
				continue // blank lines between blocks
			}
			finish()
			return ev, nil
		}
		p.field(&ev, &data, line, at)
	}
}

// field applies one non-blank line to the block being read.
func (p *sseParser) field(ev *sseEvent, data *bytes.Buffer, line []byte, at time.Duration) {
	if ev.empty() {
		ev.At = at
	}
	if line[0] == ':' {
		ev.Comments++
		return
	}
	ev.Fields++
	name, value, hasColon := bytes.Cut(line, []byte(":"))
	if hasColon && len(value) > 0 && value[0] == ' ' {
		value = value[1:]
	}
	switch string(name) {
	case "data":
		if ev.HasData {
			p.appendData(ev, data, []byte("\n"))
		}
		ev.HasData = true
		p.appendData(ev, data, value)
	case "event":
		ev.Event = string(value)
	case "id":
		if bytes.IndexByte(value, 0) >= 0 {
			ev.malformed("an id with a NUL byte was ignored")
			return
		}
		ev.ID = string(value)
	case "retry":
		if len(value) == 0 || strings.Trim(string(value), "0123456789") != "" {
			ev.malformed("retry %q is not a number", textclip.Bytes(string(value), 32))
			return
		}
		ev.Retry = string(value)
	default:
		// The rules ignore unknown fields, so a server may add its own ("foo: 1"). A line
		// without a colon, or a "field" that is no name at all, is a message that lost its
		// "data:" prefix (a raw newline inside JSON, say): that is reported.
		switch {
		case !hasColon:
			ev.malformed("a line without a colon: %q", textclip.Bytes(string(line), 32))
		case !isFieldName(name):
			ev.malformed("a line that is not a field: %q", textclip.Bytes(string(line), 32))
		}
	}
}

func (p *sseParser) appendData(ev *sseEvent, data *bytes.Buffer, b []byte) {
	room := p.maxEvent - data.Len()
	if len(b) > room {
		if !ev.Truncated {
			ev.Truncated = true
			ev.malformed("data longer than %d bytes was cut", p.maxEvent)
		}
		b = b[:max(room, 0)]
	}
	data.Write(b)
}

// readLine returns the next line without its line end, and when its first byte arrived. A
// line longer than maxLine is returned cut, with errLineTooLong, after the rest of it was
// read and dropped. A last line without a line end comes with the error that ended the stream.
func (p *sseParser) readLine() ([]byte, time.Duration, error) {
	var line []byte
	var at time.Duration
	first, cut := true, false
	for {
		if _, err := p.r.Peek(1); err != nil {
			if cut {
				return line, at, errLineTooLong
			}
			return line, at, err
		}
		if first {
			at = p.clock()
			first = false
		}
		if p.skipLF {
			p.skipLF = false
			if b, _ := p.r.Peek(1); b[0] == '\n' {
				_, _ = p.r.Discard(1)
				first = true // the LF ended the last line: this one has not begun
				continue
			}
		}
		if !p.started {
			p.started = true
			// Peek(3) waits for three bytes: only worth it when a BOM is starting.
			if b, _ := p.r.Peek(1); b[0] != 0xEF {
				continue
			}
			if b, err := p.r.Peek(3); err == nil && bytes.Equal(b, []byte("\xEF\xBB\xBF")) {
				_, _ = p.r.Discard(3)
				continue
			}
		}
		buf, _ := p.r.Peek(p.r.Buffered())
		end := bytes.IndexAny(buf, "\r\n")
		chunk := buf
		if end >= 0 {
			chunk = buf[:end]
		}
		if room := p.maxLine - len(line); len(chunk) > room {
			line = append(line, chunk[:max(room, 0)]...)
			cut = true
		} else {
			line = append(line, chunk...)
		}
		if end < 0 {
			_, _ = p.r.Discard(len(buf))
			continue
		}
		p.skipLF = buf[end] == '\r'
		_, _ = p.r.Discard(end + 1)
		if cut {
			return line, at, errLineTooLong
		}
		return line, at, nil
	}
}

// isFieldName reports whether b looks like a field name a server meant: letters, digits, '-'
// and '_'.
func isFieldName(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}
