package probe

import (
	"context"
	"errors"
	"time"
)

// Transport carries the messages of one connection to a server. Implementations record every
// frame they send or receive through the Wire they were opened with; they never interpret
// JSON-RPC beyond what the transport itself needs (the HTTP transport reads the session id
// from the initialize answer's headers, for example).
type Transport interface {
	// Send writes one message. For HTTP this is a whole POST exchange: the response frames
	// are recorded (and routed) before Send returns, except SSE events, which may keep
	// arriving afterwards from a reader goroutine. Send returns the Seq of the Out frame.
	Send(ctx context.Context, msg []byte) (int, error)
	// Close ends the connection. For stdio it runs the shutdown sequence (close stdin, grace,
	// SIGTERM, SIGKILL) and does not return before the process group is gone. Close is safe
	// to call more than once and after a failed Send.
	Close(ctx context.Context) error
}

// Wire is what a transport writes into: the shared transcript and the router that hands
// answers to the request waiting for them.
type Wire interface {
	// Record appends f to the transcript (and, for In message frames, routes it to a waiting
	// request). It returns the frame's Seq.
	Record(f Frame) int
	// Now is the current frame time.
	Now() time.Duration
	// Stamp sets the time of a frame recorded earlier. Transports record an Out frame before
	// writing it, so that its answer can never come first in the transcript, and stamp it
	// once the write completed, since latency counts from the last byte sent.
	Stamp(seq int, at time.Duration)
	// Process stores what is known about a stdio server process (called once it ended, and
	// may be called earlier with partial information).
	Process(p ProcessInfo)
}

// ProcessInfo is the life of a stdio server process.
type ProcessInfo struct {
	Conn    int    `json:"conn"`
	PID     int    `json:"pid"`
	Started bool   `json:"started"`
	Error   string `json:"error,omitempty"` // why it could not be started
	// Exited is true once the process ended; ExitCode is its status (-1 when killed by a
	// signal, then Signal names it).
	Exited   bool   `json:"exited"`
	ExitCode int    `json:"exitCode"`
	Signal   string `json:"signal,omitempty"`
	// EndedBy says what ended it: "exit" (on its own before the probe closed stdin),
	// "stdin-eof" (within the grace period after stdin closed), "SIGTERM", "SIGKILL".
	EndedBy string `json:"endedBy,omitempty"`
	// ShutdownAfter is the time from closing stdin to the process being gone.
	ShutdownAfter time.Duration `json:"-"`
	// Stderr is the tail of what the process wrote to stderr (at most Limits.MaxStderrBytes);
	// StderrDropped counts the bytes that fell out of the ring.
	Stderr        []byte `json:"-"`
	StderrDropped int64  `json:"stderrDropped,omitempty"`
}

// Sentinel errors callers branch on.
var (
	// ErrClosed: the connection is closed (the process exited, the stream ended).
	ErrClosed = errors.New("connection closed")
	// ErrLimit: a bound of Limits was exceeded; the connection was given up.
	ErrLimit = errors.New("limit exceeded")
	// ErrTimeout: no answer within the request deadline.
	ErrTimeout = errors.New("timed out waiting for an answer")
	// ErrUnanswered: the exchange that carried a request ended without answering it (an HTTP
	// error status, a body that is not the response, an event stream that closed early).
	ErrUnanswered = errors.New("the exchange ended without an answer")
	// ErrSpawn: the stdio command could not be started.
	ErrSpawn = errors.New("cannot start server command")
)

// VersionAware is implemented by transports whose framing depends on the negotiated revision
// (the HTTP transport sends MCP-Protocol-Version from 2025-06-18 on). The session calls it
// once initialize has been answered.
type VersionAware interface {
	SetProtocolVersion(v string)
}
