package probe

import (
	"bytes"
	"time"
)

// stdoutLine is one line a server wrote to stdout, without its '\n' and otherwise exactly as
// written ('\r', invalid UTF-8 and all: the purity checks judge those bytes).
type stdoutLine struct {
	raw []byte
	// at is when the read that delivered the line's first byte returned.
	at time.Duration
	// truncated: the line was longer than the limit; raw holds its first max bytes.
	truncated bool
}

// splitResult says why lineSplitter.feed returned.
type splitResult uint8

const (
	splitMore     splitResult = iota // the chunk was consumed; feed the next one
	splitTooLarge                    // a line exceeded the limit (emitted truncated); stop reading
	splitStopped                     // emit asked to stop
)

// lineSplitter cuts a byte stream, arriving in chunks of any size, into newline-delimited
// lines without ever holding more than max bytes of one line.
type lineSplitter struct {
	max     int
	pending []byte        // the start of a line whose '\n' has not arrived yet
	at      time.Duration // arrival of pending's first byte
}

// feed consumes chunk, which arrived at time at, and hands every completed line to emit (a
// false return stops at once). The chunk is not retained: emitted lines own their bytes.
// After splitTooLarge or splitStopped the splitter must not be fed again.
func (s *lineSplitter) feed(chunk []byte, at time.Duration, emit func(stdoutLine) bool) splitResult {
	for len(chunk) > 0 {
		if len(s.pending) == 0 {
			s.at = at
		}
		end := bytes.IndexByte(chunk, '\n')
		part := chunk
		if end >= 0 {
			part = chunk[:end]
		}
		if len(s.pending)+len(part) > s.max {
			line := s.take(part[:s.max-len(s.pending)])
			emit(stdoutLine{raw: line, at: s.at, truncated: true})
			return splitTooLarge
		}
		if end < 0 {
			s.hold(part)
			return splitMore
		}
		line := s.take(part)
		chunk = chunk[end+1:]
		if !emit(stdoutLine{raw: line, at: s.at}) {
			return splitStopped
		}
	}
	return splitMore
}

// rest returns the unterminated line left when the stream ended, if any.
func (s *lineSplitter) rest() (stdoutLine, bool) {
	if len(s.pending) == 0 {
		return stdoutLine{}, false
	}
	return stdoutLine{raw: s.take(nil), at: s.at}, true
}

// hold appends part to pending, growing it at most to max so that a long line costs no more
// than the limit (append's doubling could nearly double it). It grows fourfold: every byte
// of a long line is copied about 1.3 times instead of 2, which matters at 16 MiB.
func (s *lineSplitter) hold(part []byte) {
	need := len(s.pending) + len(part)
	if need > cap(s.pending) {
		grown := make([]byte, len(s.pending), min(max(4*cap(s.pending), need, 4096), s.max))
		copy(grown, s.pending)
		s.pending = grown
	}
	s.pending = append(s.pending, part...)
}

// take returns pending+part in a slice of its own and empties pending. Lines are kept for the
// whole probe, so a line gets an exactly sized copy, unless pending is (nearly) exactly the
// line's size already, as it is for a line cut at the limit: then it is handed over as is.
func (s *lineSplitter) take(part []byte) []byte {
	size := len(s.pending) + len(part)
	if size > 0 && cap(s.pending) >= size && cap(s.pending)-size <= size/8 {
		line := append(s.pending, part...)
		s.pending = nil
		return line
	}
	line := make([]byte, size)
	copy(line[copy(line, s.pending):], part)
	s.pending = s.pending[:0]
	return line
}
