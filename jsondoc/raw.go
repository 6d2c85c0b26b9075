package jsondoc

import (
	"bytes"
	"math"
	"strconv"
	"unicode/utf8"
)

// The functions below read one raw JSON value, the member or element a scanner or walker
// handed out, without parsing a document around it. Whitespace around the value is allowed.

// KindOf is the JSON type of a raw value, told by its first byte (Missing when there is
// none): the value is trusted to be valid JSON.
func KindOf(raw []byte) Kind {
	raw = trimSpace(raw)
	if len(raw) == 0 {
		return Missing
	}
	switch raw[0] {
	case '"':
		return String
	case '{':
		return Object
	case '[':
		return Array
	case 't':
		return True
	case 'f':
		return False
	case 'n':
		return Null
	}
	return Number
}

// IsNull reports whether the raw value is null.
func IsNull(raw []byte) bool { return string(trimSpace(raw)) == "null" }

// IsTrue reports whether raw is the JSON literal true (surrounding whitespace aside).
func IsTrue(raw []byte) bool { return string(trimSpace(raw)) == "true" }

// Str decodes a raw JSON string as encoding/json does (invalid UTF-8 and unpaired
// surrogates read as U+FFFD). ok is false when raw is not exactly one string token.
func Str(raw []byte) (s string, ok bool) {
	raw = trimSpace(raw)
	end, holds := scanString(raw, 0)
	if end != len(raw) {
		return "", false
	}
	inner := raw[1 : len(raw)-1]
	if holds&hasEscape == 0 && (holds&hasNonASCII == 0 || utf8.Valid(inner)) {
		return string(inner), true // most strings: their bytes as they are
	}
	return unquote(string(inner)), true
}

// Unquote is the content of a string token that a scanner or walker handed out as a member
// name, decoded as encoding/json does. The content of a token without escapes and with
// valid UTF-8 is part of tok, not a copy.
func Unquote(tok []byte) []byte {
	inner := tok[1 : len(tok)-1]
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return inner
	}
	return []byte(unquote(string(inner)))
}

// Int64 decodes a raw JSON number that has an integral value within int64, as a JSON Schema
// "integer" reads it: 7.0 and 7e0 count, 7.5 does not. Beyond what an int64 holds, only
// values a float64 holds exactly (up to 2^53) count.
func Int64(raw []byte) (int64, bool) {
	raw = trimSpace(raw)
	if KindOf(raw) != Number {
		return 0, false
	}
	if n, err := strconv.ParseInt(string(raw), 10, 64); err == nil {
		return n, true
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return 0, false
	}
	return int64(f), true
}
