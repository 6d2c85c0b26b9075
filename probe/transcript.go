package probe

import (
	"net/http"
	"sync"
	"time"
)

// Direction says who sent a frame.
type Direction uint8

const (
	// Out is a frame the probe sent to the server.
	Out Direction = iota + 1
	// In is a frame the server sent to the probe.
	In
)

func (d Direction) String() string {
	switch d {
	case Out:
		return "out"
	case In:
		return "in"
	}
	return "?"
}

// FrameKind says what a frame holds. Checks key on it, so the meanings are fixed.
type FrameKind uint8

const (
	// KindMessage is one candidate JSON-RPC message: a stdout line, an HTTP JSON body, or the
	// data of one SSE event. Raw holds its exact bytes; it may well not be valid JSON.
	KindMessage FrameKind = iota + 1
	// KindHTTPResponse is the head of an HTTP response (HTTP set) and, when the body was not a
	// message (202, an error page, a wrong content type), that body in Raw.
	KindHTTPResponse
	// KindSSEEvent is an SSE event that carries no message: a priming event with empty data,
	// or a comment-only event. SSE is set.
	KindSSEEvent
	// KindHTTPRequest is an HTTP request that carries no message (a GET opening a stream, a
	// DELETE ending a session). HTTP is set.
	KindHTTPRequest
	// KindNote is something the transport observed rather than received: a process exit, a
	// closed stream, a limit that was hit, a timeout. Note says what; Raw is empty.
	KindNote
)

func (k FrameKind) String() string {
	switch k {
	case KindMessage:
		return "message"
	case KindHTTPResponse:
		return "http-response"
	case KindSSEEvent:
		return "sse-event"
	case KindHTTPRequest:
		return "http-request"
	case KindNote:
		return "note"
	}
	return "?"
}

// HTTPInfo is the HTTP side of a frame. On an Out frame it describes the request, on an In
// frame the response it belongs to. Header values of secret headers are redacted before they
// are stored here.
type HTTPInfo struct {
	Method      string      `json:"method,omitempty"`
	URL         string      `json:"url,omitempty"`
	Status      int         `json:"status,omitempty"`
	ContentType string      `json:"contentType,omitempty"`
	Header      http.Header `json:"header,omitempty"`
	// Timing splits the exchange into phases (In frames of the response head or JSON body).
	Timing *HTTPTiming `json:"timing,omitempty"`
	// TLS describes the server certificate of an https exchange.
	TLS *TLSInfo `json:"tls,omitempty"`
}

// HTTPTiming is the phase split of one HTTP exchange, measured with net/http/httptrace.
// Phases that did not happen (a reused connection has no DNS, connect or TLS) are zero.
type HTTPTiming struct {
	DNS       time.Duration `json:"dns"`
	Connect   time.Duration `json:"connect"`
	TLS       time.Duration `json:"tls"`
	Wrote     time.Duration `json:"wrote"`     // from the start of the exchange to the request written
	FirstByte time.Duration `json:"firstByte"` // from the request written to the first response byte
	Total     time.Duration `json:"total"`     // from the start to the whole body read (SSE: the head)
	Reused    bool          `json:"reused"`
	// OpenedBy is the connection (Frame.Conn) that dialled the socket the exchange went
	// over, when that was another connection of the probe (they share keep-alive sockets,
	// see http1Shared); 0 when it was the frame's own.
	OpenedBy int `json:"openedBy,omitempty"`
}

// TLSInfo is what the probe saw of a server certificate.
type TLSInfo struct {
	Version  string    `json:"version"`
	Subject  string    `json:"subject"`
	Issuer   string    `json:"issuer"`
	NotAfter time.Time `json:"notAfter"`
	DNSNames []string  `json:"dnsNames,omitempty"`
	// VerifyError is why the chain did not verify ("" when it did, or was not verified).
	VerifyError string `json:"verifyError,omitempty"`
	// Unverified: the chain was not verified at all (Options.InsecureSkipVerify).
	Unverified bool `json:"unverified,omitempty"`
}

// SSEInfo is the event-stream side of a frame read from text/event-stream.
type SSEInfo struct {
	Event string `json:"event,omitempty"`
	ID    string `json:"id,omitempty"`
	Retry string `json:"retry,omitempty"`
	// Malformed describes a framing fault found while reading this event (a field line
	// without a colon inside data, bytes after the stream ended mid-event, ...).
	Malformed string `json:"malformed,omitempty"`
}

// NoteCode classifies a KindNote frame so checks need not parse prose.
type NoteCode string

const (
	NoteProcessExit    NoteCode = "process-exit"     // the server process ended; see Result.Process
	NoteStdoutClosed   NoteCode = "stdout-closed"    // EOF on the server's stdout
	NoteStreamEnded    NoteCode = "stream-ended"     // an SSE response stream ended
	NoteStreamNoAnswer NoteCode = "stream-no-answer" // an SSE stream ended before the response it was opened for
	NoteTooLarge       NoteCode = "too-large"        // a message exceeded Limits.MaxMessageBytes
	NoteTooMany        NoteCode = "too-many-frames"  // Limits.MaxFrames was reached; reading stopped
	NoteReadError      NoteCode = "read-error"       // the transport failed to read
	NoteSendError      NoteCode = "send-error"       // the transport failed to send
	NoteTimeout        NoteCode = "timeout"          // a request got no answer within its deadline
)

// Frame is one entry of a Transcript.
type Frame struct {
	Seq       int           `json:"seq"`
	Conn      int           `json:"conn"`
	Dir       Direction     `json:"-"`
	Kind      FrameKind     `json:"-"`
	At        time.Duration `json:"-"`
	Raw       []byte        `json:"-"`
	Truncated bool          `json:"truncated,omitempty"`
	// Exchange numbers the HTTP request/response pairs of a connection (1-based) so that a
	// response frame can be tied to the request that caused it. 0 on stdio.
	Exchange int       `json:"exchange,omitempty"`
	HTTP     *HTTPInfo `json:"http,omitempty"`
	SSE      *SSEInfo  `json:"sse,omitempty"`
	Note     NoteCode  `json:"note,omitempty"`
	Detail   string    `json:"detail,omitempty"`
}

// Transcript is the ordered record of every frame of a probe, across all of its connections.
// It is safe for concurrent appends; readers take a snapshot with Frames once the probe ended.
type Transcript struct {
	start time.Time

	mu     sync.Mutex
	frames []Frame
}

// NewTranscript starts a transcript whose frame times are measured from now.
func NewTranscript() *Transcript {
	return &Transcript{start: time.Now(), frames: make([]Frame, 0, transcriptFrames)}
}

// transcriptFrames is room for the frames of a probe of a well-behaved server (about 60 over
// stdio, 90 over HTTP), so that recording them does not copy the transcript over and over.
const transcriptFrames = 128

// Start is the instant frame times are measured from.
func (t *Transcript) Start() time.Time { return t.start }

// Append stores f, setting its Seq, and returns that Seq. A zero At is set to now.
func (t *Transcript) Append(f Frame) int {
	if f.At == 0 {
		f.At = time.Since(t.start)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	f.Seq = len(t.frames)
	t.frames = append(t.frames, f)
	return f.Seq
}

// Len is the number of frames so far.
func (t *Transcript) Len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.frames)
}

// Frames returns a copy of the frame list (the frames' byte slices are shared, never mutated).
func (t *Transcript) Frames() []Frame {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]Frame, len(t.frames))
	copy(out, t.frames)
	return out
}

// Frame returns the frame with the given Seq.
func (t *Transcript) Frame(seq int) (Frame, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if seq < 0 || seq >= len(t.frames) {
		return Frame{}, false
	}
	return t.frames[seq], true
}

// SetAt corrects the time of a frame recorded before the moment it stands for was known (an
// Out frame is recorded before its write so that no answer can precede it in the transcript,
// and stamped once the last byte is written).
func (t *Transcript) SetAt(seq int, at time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if seq >= 0 && seq < len(t.frames) {
		t.frames[seq].At = at
	}
}
