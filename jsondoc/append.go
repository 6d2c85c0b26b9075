package jsondoc

import (
	"time"
	"unicode/utf8"
)

// AppendString appends s as a JSON string exactly as encoding/json writes it with its
// default HTML escaping: ", \ and control characters escaped (\b \f \n \r \t by name), <, >
// and & as \u003c \u003e \u0026, U+2028 and U+2029 as \u2028 \u2029, and each byte that
// is not part of valid UTF-8 as \ufffd. Encoders that write JSON without reflection (a run's
// recording, the server list of the API) write their strings with it.
func AppendString[T ~string | ~[]byte](dst []byte, s T) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		// Runs that need no escaping are skipped a word at a time.
		if i = PlainRun(s, i, true); i >= len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			dst = append(dst, s[start:i]...)
			switch c {
			case '\\', '"':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(string(s[i:min(len(s), i+utf8.UTFMax)]))
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i++
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// AppendStrings appends ss as a JSON array of strings (AppendString each), and nil as null,
// as encoding/json writes a nil slice.
func AppendStrings(dst []byte, ss []string) []byte {
	if ss == nil {
		return append(dst, "null"...)
	}
	dst = append(dst, '[')
	for i, s := range ss {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = AppendString(dst, s)
	}
	return append(dst, ']')
}

// AppendTime appends t as time.Time's MarshalJSON writes it (RFC 3339 with nanoseconds as
// needed, quoted) without the copy MarshalJSON makes; a year outside 0–9999 is an error, as
// there.
func AppendTime(dst []byte, t time.Time) ([]byte, error) {
	out, err := t.AppendText(append(dst, '"'))
	if err != nil {
		return dst, err
	}
	return append(out, '"'), nil
}
