package checks

import (
	"encoding/json"
	"slices"
	"strconv"
	"unicode/utf8"
)

// appendCanonical writes a decoded JSON value (as mcpschema.Decode returns it) in one fixed
// form: object members sorted by name, no whitespace, numbers exactly as sent, strings with
// only the escapes JSON requires. Two documents that differ only in member order or spacing
// come out byte-identical, which is what a fingerprint and a verdict cache need.
func appendCanonical(b []byte, v any) []byte {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...)
	case bool:
		return strconv.AppendBool(b, v)
	case json.Number:
		return append(b, v...)
	case string:
		return appendJSONString(b, v)
	case []any:
		b = append(b, '[')
		for i, e := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendCanonical(b, e)
		}
		return append(b, ']')
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, k)
			b = append(b, ':')
			b = appendCanonical(b, v[k])
		}
		return append(b, '}')
	case float64:
		// Not produced by Decode; kept so that a value built by hand still encodes.
		return strconv.AppendFloat(b, v, 'g', -1, 64)
	}
	return append(b, "null"...)
}

func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
			i++
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			i++
		case c < utf8.RuneSelf:
			b = append(b, c)
			i++
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				b = append(b, `\ufffd`...)
			} else {
				b = append(b, s[i:i+size]...)
			}
			i += size
		}
	}
	return append(b, '"')
}
