package checks

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"

	"github.com/mcpwatch/mcpwatch/jsondoc"
)

// MessageKind is what a frame's bytes turned out to be.
type MessageKind uint8

const (
	// NotJSON: not a single JSON value (or invalid UTF-8).
	NotJSON MessageKind = iota + 1
	// NotObject: valid JSON, but not an object (a batch array counts here; batches were only
	// ever allowed in 2025-03-26 and the probe never sends one).
	NotObject
	// Request has a method and an id.
	Request
	// Notification has a method and no id.
	Notification
	// ResultResponse has no method, has result and no error.
	ResultResponse
	// ErrorResponse has no method, has error and no result.
	ErrorResponse
	// Malformed is an object that is none of the above (both result and error, neither, a
	// non-string method).
	Malformed
)

func (k MessageKind) String() string {
	return [...]string{"?", "not JSON", "not an object", "request", "notification", "result", "error", "malformed"}[k]
}

// Message is one frame's bytes decoded just enough to judge the envelope. Members are kept
// raw; a check decodes what it needs.
type Message struct {
	Kind     MessageKind
	ParseErr string // why NotJSON
	BadUTF8  bool

	JSONRPC    json.RawMessage // nil when absent
	ID         json.RawMessage // nil when absent
	Method     string
	MethodRaw  json.RawMessage
	Params     json.RawMessage
	Result     json.RawMessage
	Error      json.RawMessage
	HasJSONRPC bool
	HasID      bool
	HasMethod  bool
	HasResult  bool
	HasError   bool

	// rpcErr is the error member decoded, when rpcErrDecoded says so (see errorOf): a
	// capture decodes it once for the many checks that read the error answers.
	rpcErr        rpcError
	rpcErrObject  bool
	rpcErrDecoded bool
}

// IsResponse reports whether the message is meant as a response (has result or error and no
// method), malformed or not.
func (m *Message) IsResponse() bool {
	return !m.HasMethod && (m.HasResult || m.HasError || m.Kind == ResultResponse || m.Kind == ErrorResponse)
}

// NullID reports an explicit "id": null.
func (m *Message) NullID() bool { return m.HasID && bytes.Equal(bytes.TrimSpace(m.ID), []byte("null")) }

// Classify decodes raw bytes into a Message. It never fails: every outcome is a Kind.
func Classify(raw []byte) Message { return classify(raw, nil) }

// classify is Classify stepping over the member values known says it has read before (see
// jsondoc.ScanObjectKnowing).
func classify(raw []byte, known func(rest []byte) int) Message {
	var m Message
	if !utf8.Valid(raw) {
		m.BadUTF8 = true
		m.Kind = NotJSON
		m.ParseErr = "invalid UTF-8"
		return m
	}
	// Only JSON's own whitespace: a line padded with, say, a no-break space is not JSON.
	trimmed := bytes.Trim(raw, " \t\r\n")
	if len(trimmed) == 0 {
		m.Kind = NotJSON
		m.ParseErr = "empty"
		return m
	}
	kind, valid := jsondoc.ScanObjectKnowing(trimmed, known, func(name, value []byte) {
		switch string(jsondoc.Unquote(name)) {
		case "jsonrpc":
			m.JSONRPC, m.HasJSONRPC = value, true
		case "id":
			m.ID, m.HasID = value, true
		case "method":
			m.MethodRaw, m.HasMethod = value, true
		case "params":
			m.Params = value
		case "result":
			m.Result, m.HasResult = value, true
		case "error":
			m.Error, m.HasError = value, true
		}
	})
	if !valid || kind != jsondoc.Object {
		m = Message{} // members seen before the fault mean nothing
		if valid {
			m.Kind = NotObject
			return m
		}
		m.Kind = NotJSON
		var v any
		if err := json.Unmarshal(trimmed, &v); err != nil {
			m.ParseErr = err.Error()
		} else {
			m.ParseErr = "invalid JSON"
		}
		return m
	}

	switch {
	case m.HasMethod:
		// null decodes into a string without error: only a JSON string is a method.
		method, ok := jsondoc.Str(m.MethodRaw)
		if !ok {
			m.Kind = Malformed
			return m
		}
		m.Method = method
		if m.HasResult || m.HasError {
			m.Kind = Malformed
		} else if m.HasID {
			m.Kind = Request
		} else {
			m.Kind = Notification
		}
	case m.HasResult && m.HasError:
		m.Kind = Malformed
	case m.HasResult:
		m.Kind = ResultResponse
	case m.HasError:
		m.Kind = ErrorResponse
	default:
		m.Kind = Malformed
	}
	return m
}
