package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/mcpwatch/mcpwatch/internal/redact"
	"github.com/mcpwatch/mcpwatch/internal/textclip"
	"github.com/mcpwatch/mcpwatch/probe"
)

// Progress of `prober check` goes to stderr, drawn from the probe's events (probe.Event). On
// a terminal it is one status line, rewritten in place (carriage return, erase to the end of
// the line) and erased before the report is written; with --progress on anything else (a CI
// log) it is plain lines, only for what a reader of the log needs: the probe starting, the
// main connection opening, a wait that lasts, an interrupt, the end.

const (
	// progressTick is how often the status line is redrawn, which is also what the "12 s
	// of 45 s" counter steps by at most.
	progressTick = 250 * time.Millisecond
	// slowWait is how long a wait lasts before the plain lines mention it, and then how
	// often they do again.
	slowWait      = time.Second
	slowWaitEvery = 5 * time.Second
)

// progressMode says how progress is shown.
type progressMode uint8

const (
	progressOff   progressMode = iota
	progressLine               // a terminal: one status line, redrawn
	progressPlain              // --progress elsewhere: plain lines
)

// progressModeFor decides from --progress (nil: not given) and whether stderr is a terminal.
func progressModeFor(flag *bool, stderrTerminal bool) progressMode {
	switch {
	case flag != nil && !*flag:
		return progressOff
	case stderrTerminal:
		return progressLine
	case flag != nil:
		return progressPlain
	}
	return progressOff
}

// progress renders probe events. Its methods are safe for concurrent use: the probe calls
// observe from many goroutines.
type progress struct {
	mode  progressMode
	w     io.Writer
	red   *redact.Redactor
	width int // columns of the terminal (progressLine)
	all   int // --protocol-version all: how many revisions are probed (each wait names its own); 0 otherwise
	now   func() time.Time

	mu          sync.Mutex
	start       time.Time
	revs        map[string]bool // revisions started (true once finished)
	waits       map[waitKey]*waiting
	note        string // what the probe did last, for the status line when nothing is awaited
	drawn       bool   // a status line is on the screen
	stopped     bool
	interruptAt time.Time // when the interrupt was noticed (zero: none)
}

// waitKey names one outstanding wait: two requests of one connection may be awaited at
// once (the concurrent-requests probe), and under --protocol-version all the connections of
// every revision's probe are numbered alike.
type waitKey struct {
	rev  string
	conn int
	step string
}

// waiting is one outstanding wait.
type waiting struct {
	what  string // "waiting for initialize (connection 1)", "shutting down connection 3"
	since time.Time
	bound time.Duration
	told  time.Duration // plain lines: how long it had waited when last mentioned
}

func newProgress(mode progressMode, w io.Writer, red *redact.Redactor, width int, all int, now func() time.Time) *progress {
	if width <= 0 {
		width = 80
	}
	return &progress{mode: mode, w: w, red: red, width: width, all: all, now: now,
		revs: map[string]bool{}, waits: map[waitKey]*waiting{}}
}

// options sets the observer in o when progress is shown (and leaves o alone otherwise, so
// that a silent run pays nothing).
func (p *progress) options(o probe.Options) probe.Options {
	if p.mode != progressOff {
		o.Observe = p.observe
	}
	return o
}

// run redraws the status line, and writes the plain lines of long waits, until stop; it
// notices the interrupt (ctx's end) and says so at once.
func (p *progress) run(ctx context.Context, stop <-chan struct{}) {
	if p.mode == progressOff {
		return
	}
	t := time.NewTicker(progressTick)
	defer t.Stop()
	done := ctx.Done()
	for {
		select {
		case <-stop:
			return
		case <-done:
			done = nil
			p.interrupted()
		case <-t.C:
			p.tick()
		}
	}
}

// observe takes one event of the probe.
func (p *progress) observe(e probe.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped {
		return
	}
	if p.start.IsZero() {
		p.start = e.At
	}
	key := waitKey{rev: e.Revision, conn: e.Conn, step: e.Step}
	switch e.Kind {
	case probe.EventStart:
		p.revs[e.Revision] = false
		p.note = "probing " + e.Target
		if p.mode == progressPlain {
			p.linef("probing %s%s (up to %s)", e.Target, p.revisionSuffix(e.Revision), roundSeconds(e.Bound))
		}
	case probe.EventOpen:
		p.note = fmt.Sprintf("opening connection %d", e.Conn)
		if p.mode == progressPlain && e.Conn == probe.ConnMain {
			p.linef("%sopening the connection to %s", p.revisionPrefix(e.Revision), e.Target)
		}
	case probe.EventWait:
		p.waits[key] = &waiting{what: fmt.Sprintf("waiting for %s (connection %d)", e.Method, e.Conn), since: e.At, bound: e.Bound}
	case probe.EventClose:
		key.step = "shutdown"
		p.waits[key] = &waiting{what: fmt.Sprintf("shutting down connection %d", e.Conn), since: e.At, bound: e.Bound}
	case probe.EventAnswered, probe.EventClosed:
		if e.Kind == probe.EventClosed {
			key.step = "shutdown"
		}
		w, ok := p.waits[key]
		if !ok {
			return
		}
		delete(p.waits, key)
		if p.mode == progressPlain && w.told > 0 {
			p.linef("%s%s: %s after %s", p.revisionPrefix(e.Revision), w.what, waitEnd(e), roundSeconds(e.At.Sub(w.since)))
		}
	case probe.EventFinish:
		p.revs[e.Revision] = true
		if p.mode == progressPlain {
			end := "finished"
			if e.Err != "" {
				end = "ended early: " + e.Err
			}
			p.linef("%sprobe %s after %s", p.revisionPrefix(e.Revision), end, roundSeconds(e.At.Sub(p.start)))
		}
	}
}

// waitEnd says how the wait of an EventAnswered or EventClosed ended.
func waitEnd(e probe.Event) string {
	switch {
	case e.Kind == probe.EventClosed:
		return "closed"
	case e.Outcome == probe.OutcomeOK || e.Outcome == probe.OutcomeError:
		return "answered"
	case e.Err != "":
		return "no answer (" + e.Err + ")"
	}
	return "no answer"
}

// tick redraws the status line, or writes the plain line of a wait that lasts.
func (p *progress) tick() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped {
		return
	}
	now := p.now()
	if p.mode == progressLine {
		p.draw(p.statusLine(now))
		return
	}
	for key, w := range p.waits {
		waited := now.Sub(w.since)
		if waited < slowWait || (w.told > 0 && waited-w.told < slowWaitEvery) {
			continue
		}
		w.told = waited
		p.linef("%s%s, %s", p.revisionPrefix(key.rev), w.what, ofBound(waited, w.bound))
	}
}

// statusLine is what the terminal shows at now: the wait that has lasted longest (what the
// probe is held up by), or else what it did last, and under --protocol-version all how many
// revisions are done.
func (p *progress) statusLine(now time.Time) string {
	var b strings.Builder
	if !p.interruptAt.IsZero() {
		fmt.Fprintf(&b, "interrupted after %s; shutting down", roundSeconds(p.interruptAt.Sub(p.start)))
	} else {
		var longest *waiting
		var at waitKey
		for key, w := range p.waits {
			if longest == nil || w.since.Before(longest.since) || (w.since.Equal(longest.since) && key.conn < at.conn) {
				longest, at = w, key
			}
		}
		switch {
		case longest != nil:
			fmt.Fprintf(&b, "%s%s, %s", p.revisionPrefix(at.rev), longest.what, ofBound(now.Sub(longest.since), longest.bound))
		case p.note != "":
			b.WriteString(p.note)
		default:
			b.WriteString("starting")
		}
	}
	if p.all > 0 {
		// Over stdio only some revisions are probed at once: the count is of all of them.
		done := 0
		for _, finished := range p.revs {
			if finished {
				done++
			}
		}
		fmt.Fprintf(&b, " · %d of %d revisions done", done, p.all)
	}
	return b.String()
}

// ofBound is "12 s of 45 s": how long a wait has lasted against its bound, in whole seconds
// (tenths below ten seconds, where a whole second is a large step).
func ofBound(waited, bound time.Duration) string {
	return roundSeconds(waited) + " of " + roundSeconds(bound)
}

// roundSeconds writes d in seconds the way the status line counts them.
func roundSeconds(d time.Duration) string {
	if d < 9950*time.Millisecond { // what %.1f would round up to 10.0
		return fmt.Sprintf("%.1f s", d.Seconds())
	}
	return fmt.Sprintf("%d s", int(d.Round(time.Second).Seconds()))
}

func (p *progress) revisionPrefix(rev string) string {
	if p.all == 0 {
		return ""
	}
	return rev + ": "
}

func (p *progress) revisionSuffix(rev string) string {
	if p.all == 0 {
		return ""
	}
	return " with revision " + rev
}

// interrupted tells, at once, that the probe is winding down because of the interrupt, so
// that the seconds of the shutdown sequence do not look like a hang.
func (p *progress) interrupted() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped || !p.interruptAt.IsZero() {
		return
	}
	p.interruptAt = p.now()
	if p.start.IsZero() {
		p.start = p.interruptAt
	}
	if p.mode == progressLine {
		p.draw(p.statusLine(p.interruptAt))
		return
	}
	p.linef("interrupted after %s; shutting down", roundSeconds(p.interruptAt.Sub(p.start)))
}

// stop erases the status line, so that what follows on the terminal (the report, an error)
// starts on a clean line, and ends all output.
func (p *progress) stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.erase()
	p.stopped = true
}

// draw replaces the status line with s, clipped to the terminal's width: a line that
// wrapped could not be rewritten in place.
func (p *progress) draw(s string) {
	s = textclip.Runes(oneLine(p.red.String(s)), p.width-1)
	fmt.Fprintf(p.w, "\r%s\x1b[K", s)
	p.drawn = true
}

// erase removes the status line.
func (p *progress) erase() {
	if p.drawn {
		io.WriteString(p.w, "\r\x1b[K")
		p.drawn = false
	}
}

// linef writes one plain line.
func (p *progress) linef(format string, args ...any) {
	fmt.Fprintf(p.w, "prober check: %s\n", oneLine(p.red.String(fmt.Sprintf(format, args...))))
}

// oneLine replaces control characters (a newline in a server's command line, an escape
// sequence) with spaces: a progress line is one line, and draws nothing but text.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return ' '
		}
		return r
	}, s)
}

// Write lets a log line through: on a terminal the status line is erased first and drawn
// again at the next tick, so that the two never share a line.
func (p *progress) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.erase()
	return p.w.Write(b)
}
