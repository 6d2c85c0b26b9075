package checks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mcpwatch/mcpwatch/jsondoc"
)

// jsonType names the JSON type of a raw value the way a report reader thinks of it.
func jsonType(raw json.RawMessage) string {
	switch k := jsondoc.KindOf(raw); k {
	case jsondoc.Missing:
		return "nothing"
	case jsondoc.True, jsondoc.False:
		return "boolean"
	default:
		return k.String()
	}
}

// objectMembers returns the members of a raw JSON object, the last of a repeated name
// winning (ok is false for anything else).
func objectMembers(raw []byte) (map[string]json.RawMessage, bool) {
	members := make(map[string]json.RawMessage, 4)
	kind, ok := jsondoc.ScanObject(raw, func(name, value []byte) {
		members[string(jsondoc.Unquote(name))] = value
	})
	if !ok || kind != jsondoc.Object {
		return nil, false
	}
	return members, true
}

// strictIDKey is the identity of a request id with its JSON type: 1 and "1" differ, 1 and
// 1.0 do not (same type, same value). ok is false for types an id can never have.
func strictIDKey(raw json.RawMessage) (key string, ok bool) {
	switch jsonType(raw) {
	case "string":
		s, ok := jsondoc.Str(raw)
		return "s:" + s, ok
	case "number":
		if n, ok := jsondoc.Int64(raw); ok {
			return "n:" + strconv.FormatInt(n, 10), true
		}
		return "n:" + string(bytes.TrimSpace(raw)), true
	}
	return "", false
}

// looseIDKey is the identity of an id by value alone (1 and "1" share it), the way the
// probe's router matches answers; it tells a type mismatch from an id never sent.
func looseIDKey(raw json.RawMessage) string {
	k, ok := strictIDKey(raw)
	if !ok {
		return "x:" + string(bytes.TrimSpace(raw))
	}
	return k[2:]
}

// rpcError is the error member of an error response, decoded leniently.
type rpcError struct {
	Code    json.RawMessage
	Message json.RawMessage
	Data    json.RawMessage
}

// errorOf decodes the error member of a message (ok is false when it is not an object).
func errorOf(m *Message) (rpcError, bool) {
	if m == nil {
		return rpcError{}, false
	}
	if m.rpcErrDecoded {
		return m.rpcErr, m.rpcErrObject
	}
	return decodeError(m.Error)
}

// decodeError reads the code, message and data of an error member, the last of a repeated name
// winning (ok is false when it is not an object).
func decodeError(raw json.RawMessage) (e rpcError, ok bool) {
	kind, ok := jsondoc.ScanObject(raw, func(name, value []byte) {
		switch string(jsondoc.Unquote(name)) {
		case "code":
			e.Code = value
		case "message":
			e.Message = value
		case "data":
			e.Data = value
		}
	})
	if !ok || kind != jsondoc.Object {
		return rpcError{}, false
	}
	return e, true
}

// errorCode is the integer code of an error response.
func errorCode(m *Message) (int64, bool) {
	e, ok := errorOf(m)
	if !ok {
		return 0, false
	}
	return jsondoc.Int64(e.Code)
}

// describeError renders an error member for a finding: its code and, clipped, its message.
func describeError(m *Message) string {
	e, ok := errorOf(m)
	if !ok {
		return "a JSON-RPC error member that is a " + jsonType(m.Error) + " (" + clipJSON(m.Error) + ")"
	}
	code := "with code " + clipJSON(e.Code)
	if n, ok := jsondoc.Int64(e.Code); ok {
		code = strconv.FormatInt(n, 10)
	} else if e.Code == nil {
		code = "without a code"
	}
	if msg, ok := jsondoc.Str(e.Message); ok && msg != "" {
		return "JSON-RPC error " + code + " " + Clip([]byte(msg))
	}
	return "JSON-RPC error " + code
}

// clipJSON shows a JSON value as its compact JSON text, cut to about 200 bytes: unlike Clip
// it does not quote it again, so that the string "1" reads as "1" and the number 1 as 1.
// Runes that do not print are escaped, so a hostile value cannot garble a terminal. Text
// that is not JSON falls back to Clip.
func clipJSON(raw []byte) string {
	const max = 200
	var compact bytes.Buffer
	if len(bytes.TrimSpace(raw)) == 0 || json.Compact(&compact, raw) != nil {
		return Clip(raw)
	}
	var b strings.Builder
	n := 0
	for _, r := range compact.String() {
		if n >= max {
			fmt.Fprintf(&b, "… (%d bytes)", len(raw))
			break
		}
		if unicode.IsPrint(r) {
			b.WriteRune(r)
		} else {
			fmt.Fprintf(&b, `\u%04x`, r)
		}
		n += utf8.RuneLen(r)
	}
	return b.String()
}

// article is "a" or "an" for a JSON type name.
func article(typeName string) string {
	if typeName == "object" || typeName == "array" {
		return "an " + typeName
	}
	return "a " + typeName
}
