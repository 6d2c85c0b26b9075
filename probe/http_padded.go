package probe

import (
	"bufio"
	"bytes"
	"context"
	"net/http"
)

// Padded header values: a request whose header values go out with a space before and after
// them (RFC 9110 §5.5: whitespace around a field value is not part of it, so a server must
// read the value without it). net/http trims every value it writes, so the padding is put
// into the bytes net/http wrote; only the plain-http transport (http1Transport) can do that.

// paddedKey is the context key of the header names a request pads.
type paddedKey struct{}

// withPaddedHeaders marks the request of ctx to pad the values of the named headers.
func withPaddedHeaders(ctx context.Context, names []string) context.Context {
	return context.WithValue(ctx, paddedKey{}, names)
}

// paddedHeaders are the header names whose values the request of ctx pads (nil for none).
func paddedHeaders(ctx context.Context) []string {
	names, _ := ctx.Value(paddedKey{}).([]string)
	return names
}

// padsHeaders reports whether a target's transport can pad header values: plain http.
func padsHeaders(t Target) bool {
	return len(t.URL) > len("http://") && t.URL[:len("http://")] == "http://"
}

// writeRequest writes req as net/http does, with the values of the headers it pads (see
// withPaddedHeaders) between spaces; byNetHTTP says net/http's Request.Write wrote it
// (which reports to the request's httptrace hooks itself) rather than writeRequestHead.
func writeRequest(w *bufio.Writer, req *http.Request) (byNetHTTP bool, err error) {
	names := paddedHeaders(req.Context())
	if names == nil {
		if done, err := writeRequestHead(w, req); done {
			return false, err
		}
		return true, req.Write(w)
	}
	var b bytes.Buffer
	if err := req.Write(&b); err != nil {
		return true, err
	}
	_, err = w.Write(padHeaderValues(b.Bytes(), names))
	return true, err
}

// padHeaderValues puts a space before and after the value of each named header in the head
// of an HTTP/1.1 request (names compared case-insensitively); the body is left alone.
func padHeaderValues(raw []byte, names []string) []byte {
	end := bytes.Index(raw, []byte("\r\n\r\n"))
	if end < 0 {
		return raw
	}
	lines := bytes.Split(raw[:end], []byte("\r\n"))
	for i, line := range lines[1:] { // the request line has no header
		name, value, ok := bytes.Cut(line, []byte(":"))
		if !ok || !namedIn(string(name), names) {
			continue
		}
		padded := append(append([]byte{}, name...), ':', ' ', ' ')
		padded = append(padded, bytes.TrimSpace(value)...)
		lines[i+1] = append(padded, ' ')
	}
	out := bytes.Join(lines, []byte("\r\n"))
	return append(out, raw[end:]...)
}

func namedIn(name string, names []string) bool {
	for _, n := range names {
		if http.CanonicalHeaderKey(n) == http.CanonicalHeaderKey(name) {
			return true
		}
	}
	return false
}

// paddedForShow is the header as the transcript shows a request that pads the named headers:
// with the padding, as it went out.
func paddedForShow(h http.Header, names []string) http.Header {
	out := h.Clone()
	for _, n := range names {
		vs := out.Values(n)
		for i, v := range vs {
			vs[i] = " " + v + " "
		}
	}
	return out
}
