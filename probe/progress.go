package probe

import "time"

// EventKind says what a progress Event tells.
type EventKind uint8

const (
	// EventStart: the probe of one revision begins (Target, Revision, Bound is the whole
	// probe's --timeout).
	EventStart EventKind = iota + 1
	// EventOpen: a connection is being opened (a stdio server started, an HTTP client made).
	EventOpen
	// EventWait: a request is on its way and its answer awaited, up to Bound.
	EventWait
	// EventAnswered: the wait of an EventWait ended; Outcome says how.
	EventAnswered
	// EventClose: a connection is being closed, up to Bound (a stdio server's shutdown
	// sequence: stdin closed, SIGTERM, SIGKILL).
	EventClose
	// EventClosed: the connection of an EventClose is closed.
	EventClosed
	// EventFinish: the probe of one revision ended (Err is Result.Err).
	EventFinish
)

// Event is one thing the probe is doing, told to Options.Observe as it happens. The probe
// judges nothing and shows nothing: an observer renders what it likes of these.
type Event struct {
	Kind EventKind
	// At is when it happened.
	At time.Time
	// Revision is the revision the probe offers (with era detection, the one it starts from).
	Revision string
	// Target is what the probe talks to (EventStart, EventOpen).
	Target string
	// Conn is the connection number (see ConnMain); 0 for the events of the whole probe.
	Conn int
	// Step and Method name the request of EventWait and EventAnswered.
	Step, Method string
	// Bound is how long the probe waits at most: the request's timeout for EventWait, the
	// shutdown's for EventClose, the whole probe's for EventStart.
	Bound time.Duration
	// Outcome is how an EventAnswered wait ended.
	Outcome Outcome
	// Err is the failure of EventAnswered (a step's Err) or EventFinish (Result.Err).
	Err string
}

// observe tells o.Observe about e, stamped with the time and the revision; without an
// observer it costs a nil check.
func (o *Options) observe(e Event) {
	if o.Observe == nil {
		return
	}
	e.At = time.Now()
	e.Revision = o.ProtocolVersion
	o.Observe(e)
}
