package probe

import (
	"encoding/json"
	"time"

	"github.com/mcpwatch/mcpwatch/jsondoc"
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
	// Err is set when the probe itself could not run to the end (timeout, spawn failure,
	// interrupt).
	Err string `json:"err,omitempty"`
	// Interrupted is how long after Start the probe was interrupted (its context cancelled
	// by its caller: Ctrl-C, a service stopping); 0 when it was not. A step cut short by it
	// got no answer because the probe stopped asking, not because the server did not
	// answer.
	Interrupted time.Duration `json:"interrupted,omitempty"`
	// RulesElsewhere says where the rule probes ran when this probe left them out (one of
	// several probes of the same server, see RunRevisions); "" when they ran here.
	RulesElsewhere string `json:"rulesElsewhere,omitempty"`
	// Calls is what became of each opt-in tool call of Options.Calls, in order (nil
	// without calls).
	Calls []CallRecord `json:"calls,omitempty"`
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

// SentToolCall is a tools/call the probe sent: the frame that carried it and the tool named.
type SentToolCall struct {
	Frame Frame
	Tool  string
}

// SentToolCalls are the tools/call requests of the transcript, on every connection, in the
// order they were sent: what a run really asked a server to execute, whatever its steps say.
func (r *Result) SentToolCalls() []SentToolCall {
	var out []SentToolCall
	for _, f := range r.Frames {
		if f.Dir != Out || f.Kind != KindMessage {
			continue
		}
		var m struct {
			Method string `json:"method"`
			Params struct {
				Name string `json:"name"`
			} `json:"params"`
		}
		if json.Unmarshal(f.Raw, &m) == nil && m.Method == "tools/call" {
			out = append(out, SentToolCall{Frame: f, Tool: m.Params.Name})
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

// HandshakeKind says which result opened the main connection.
type HandshakeKind uint8

const (
	// HandshakeNone: neither initialize nor server/discover succeeded.
	HandshakeNone HandshakeKind = iota
	// HandshakeInitialize: the InitializeResult of a session revision.
	HandshakeInitialize
	// HandshakeDiscover: the DiscoverResult of a stateless server, which is never
	// initialized and declares its capabilities there instead.
	HandshakeDiscover
)

// Handshake is the result that opened the main connection and declares what the server
// offers: the initialize result, or for a stateless server the server/discover result. It
// is nil, with HandshakeNone, when neither came back.
func (r *Result) Handshake() (json.RawMessage, HandshakeKind) {
	switch {
	case r.Initialize != nil:
		return r.Initialize, HandshakeInitialize
	case r.Discover != nil:
		return r.Discover, HandshakeDiscover
	}
	return nil, HandshakeNone
}

// Capability is what the handshake declares of a capability (tools, resources, prompts...):
// the raw member of that name of its capabilities object, nil when there is none (or no
// such object). declared is false for a missing member and for null.
func (r *Result) Capability(name string) (value json.RawMessage, declared bool) {
	handshake, _ := r.Handshake()
	return capability(handshake, name)
}

// Capabilities is every member of the handshake's capabilities object, raw, null ones
// included (nil when there is no such object). A name given twice keeps its last value. A
// caller that asks of many capabilities decodes them once here rather than through
// Capability, which scans the handshake on every call.
func (r *Result) Capabilities() map[string]json.RawMessage {
	handshake, _ := r.Handshake()
	caps, ok := exactMember(handshake, "capabilities")
	if !ok || caps == nil {
		return nil
	}
	out := map[string]json.RawMessage{}
	kind, valid := jsondoc.ScanObject(caps, func(token, v []byte) {
		out[string(jsondoc.Unquote(token))] = v
	})
	if !valid || kind != jsondoc.Object {
		return nil
	}
	return out
}

// Declares reports whether the handshake declares a capability: its member of that name is
// there and not null.
func (r *Result) Declares(name string) bool {
	_, declared := r.Capability(name)
	return declared
}

// declaresCapability is Result.Declares of a handshake result.
func declaresCapability(handshake json.RawMessage, name string) bool {
	_, declared := capability(handshake, name)
	return declared
}

// capability is Result.Capability of a handshake result, for the probe itself, which asks
// before its Result exists. Names match exactly, and a name given twice keeps its last
// value, as the checks read every other member.
func capability(handshake json.RawMessage, name string) (value json.RawMessage, declared bool) {
	caps, ok := exactMember(handshake, "capabilities")
	if !ok {
		return nil, false
	}
	value, ok = exactMember(caps, name)
	if !ok {
		return nil, false
	}
	return value, value != nil && !jsondoc.IsNull(value)
}

// exactMember is the value of the object's member called name (nil when it has none); ok is
// false when raw is not a JSON object.
func exactMember(raw []byte, name string) (value []byte, ok bool) {
	kind, valid := jsondoc.ScanObject(raw, func(token, v []byte) {
		if string(jsondoc.Unquote(token)) == name {
			value = v
		}
	})
	if !valid || kind != jsondoc.Object {
		return nil, false
	}
	return value, true
}
