package probe

import (
	"encoding/json"
	"time"
)

// Step names: what the probe meant by a request or notification. Checks find their evidence
// by these names, so they are fixed.
const (
	StepInitialize          = "initialize"
	StepInitializeBogus     = "initialize-bogus-version"
	StepInitialized         = "notifications/initialized"
	StepUnknownNotification = "unknown-notification"
	StepToolsList           = "tools/list"
	StepResourcesList       = "resources/list"
	StepTemplatesList       = "resources/templates/list"
	StepPromptsList         = "prompts/list"
	StepPing                = "ping"
	StepUnknownMethod       = "unknown-method"
)

// Methods the probe sends on purpose that no server implements.
const (
	UnknownNotificationMethod = "notifications/mcpwatch/unknown"
	UnknownMethod             = "mcpwatch/unknown-method"
)

// Connection numbers.
const (
	ConnMain        = 1 // the session a client would run
	ConnNegotiation = 2 // a fresh connection that offers protocol.BogusRevision
)

// Outcome of a step.
type Outcome string

const (
	OutcomeOK        Outcome = "ok"        // a result came back (or a notification was accepted)
	OutcomeError     Outcome = "error"     // a JSON-RPC error came back
	OutcomeNoAnswer  Outcome = "no-answer" // nothing came back before the deadline
	OutcomeTransport Outcome = "transport" // the transport failed (closed, HTTP error status, limit)
	OutcomeSent      Outcome = "sent"      // a notification was written (stdio: no answer expected)
)

// Step is one request or notification of the probe with what came back.
type Step struct {
	Name   string `json:"name"`
	Method string `json:"method"`
	Conn   int    `json:"conn"`
	// ID is the request id exactly as sent (JSON text), "" for notifications.
	ID string `json:"id,omitempty"`
	// Page numbers the pages of a list method (1-based); 0 for other steps.
	Page int `json:"page,omitempty"`
	// Request and Response are the Seqs of the Out frame and of the frame that answered it
	// (-1 when there is none). For HTTP failures Response is the response head's frame.
	Request  int           `json:"request"`
	Response int           `json:"response"`
	Latency  time.Duration `json:"-"`
	Outcome  Outcome       `json:"outcome"`
	// ErrorCode is the exact JSON-RPC error code when the answer was an error object whose
	// code is a JSON number (ErrorCodeRaw keeps it as sent, whatever its type).
	ErrorCode    *int64          `json:"errorCode,omitempty"`
	ErrorCodeRaw json.RawMessage `json:"-"`
	HTTPStatus   int             `json:"httpStatus,omitempty"`
	Err          string          `json:"err,omitempty"`
	// Result is the raw result member of a successful answer.
	Result json.RawMessage `json:"-"`
}

// Result is everything one probe observed. Checks are pure functions of it.
type Result struct {
	Target    string `json:"target"`
	Transport string `json:"transport"`
	// Requested is the revision offered in initialize; Negotiated the one the server answered
	// (empty when initialize failed). ProtocolVersion is what the probe then spoke: Negotiated
	// when it is a known revision, Requested otherwise.
	Requested       string `json:"requested"`
	Negotiated      string `json:"negotiated,omitempty"`
	ProtocolVersion string `json:"protocolVersion,omitempty"`
	// Initialize is the raw result of the main initialize (nil when it failed).
	Initialize json.RawMessage `json:"-"`
	// Discover is the raw result of the main server/discover when the server was probed
	// statelessly (nil otherwise): there it takes the place of the initialize result.
	Discover  json.RawMessage `json:"-"`
	Steps     []Step          `json:"steps"`
	Frames    []Frame         `json:"-"`
	Processes []ProcessInfo   `json:"processes,omitempty"`
	// InitializedAt is the Seq of the notifications/initialized frame (-1 when not sent).
	InitializedAt int           `json:"-"`
	Start         time.Time     `json:"start"`
	Duration      time.Duration `json:"-"`
	// Err is set when the probe itself could not run to the end (timeout, spawn failure).
	Err string `json:"err,omitempty"`
	// RulesElsewhere says where the rule probes ran when this probe left them out (one of
	// several probes of the same server, see RunRevisions); "" when they ran here.
	RulesElsewhere string `json:"rulesElsewhere,omitempty"`
}

// StepsNamed returns the steps with the given name, in order.
func (r *Result) StepsNamed(name string) []Step {
	var out []Step
	for _, s := range r.Steps {
		if s.Name == name {
			out = append(out, s)
		}
	}
	return out
}

// FirstStep returns the first step with the given name.
func (r *Result) FirstStep(name string) (Step, bool) {
	for _, s := range r.Steps {
		if s.Name == name {
			return s, true
		}
	}
	return Step{}, false
}

// ProcessOf returns the stdio process of a connection.
func (r *Result) ProcessOf(conn int) (ProcessInfo, bool) {
	for _, p := range r.Processes {
		if p.Conn == conn {
			return p, true
		}
	}
	return ProcessInfo{}, false
}
