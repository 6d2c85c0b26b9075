package probe

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"net/http/httptrace"
	"net/textproto"
	"reflect"
	"strconv"
	"strings"
)

// The request head of the probe's plain-http transport, written as net/http's Request.Write
// writes it, byte for byte, without its costs: Request.Write formats with fmt, sorts the
// header through a pool, replaces newlines in every value and allocates a transfer writer,
// seven allocations and a twentieth of a probe's CPU for the forty requests of a probe. What
// this writer does not handle exactly as net/http does (a value with a newline, a header
// name net/http would drop, a body of unknown length, Connection: close, trailers, a
// non-ASCII host...) is left to Request.Write: the bytes on the wire are the same either
// way, which TestRequestHeadAsNetHTTP and FuzzRequestHeadAsNetHTTP check.

// writeRequestHead writes req, head and body, to w as req.Write(w) would, and reports
// whether it did; false leaves w untouched, for Request.Write to write the request.
func writeRequestHead(w *bufio.Writer, req *http.Request) (bool, error) {
	length, ok := plainBodyLength(req)
	if !ok || tracesHeaderFields(req) {
		return false, nil
	}
	// A head longer than the buffer's room would go out in other writes than net/http's.
	head, ok := appendRequestHead(w.AvailableBuffer(), req, length)
	if !ok || len(head) > w.Available() {
		return false, nil
	}
	if _, err := w.Write(head); err != nil {
		closeRequestBody(req)
		return true, err
	}
	return true, writeRequestBody(w, req, length)
}

// plainBodyLength is the Content-Length net/http sends for req's body when it writes the body
// right after the head in one go (a body in memory of known length, or none); ok is false for
// anything else (chunked, an unknown length, a body it flushes the head before).
func plainBodyLength(req *http.Request) (length int64, ok bool) {
	if req.Close || req.TransferEncoding != nil || req.Trailer != nil {
		return 0, false
	}
	if req.Body == nil || req.Body == http.NoBody {
		return 0, req.ContentLength == 0 || req.Body == http.NoBody
	}
	return req.ContentLength, req.ContentLength > 0 && inMemoryReader(req.Body)
}

// inMemoryReader is net/http's isKnownInMemoryReader: a reader that never blocks, bare or in
// io.NopCloser (NewRequest's body, and its GetBody's).
func inMemoryReader(r io.Reader) bool {
	switch r.(type) {
	case *bytes.Reader, *bytes.Buffer, *strings.Reader:
		return true
	}
	// io.NopCloser's two types: over a reader with WriteTo and over one without.
	switch reflect.TypeOf(r) {
	case reflect.TypeOf(io.NopCloser(nil)), reflect.TypeOf(io.NopCloser(http.NoBody)):
		return inMemoryReader(reflect.ValueOf(r).Field(0).Interface().(io.Reader))
	}
	return false
}

// tracesHeaderFields reports whether the request's httptrace hooks watch the head being
// written field by field, which only Request.Write reports.
func tracesHeaderFields(req *http.Request) bool {
	ct := httptrace.ContextClientTrace(req.Context())
	return ct != nil && (ct.WroteHeaderField != nil || ct.WroteHeaders != nil || ct.Wait100Continue != nil)
}

// requestHeadExcluded are the header keys Request.Write writes apart or not at all (keys
// compared as they are, not canonicalized, as it does).
func requestHeadExcluded(key string) bool {
	switch key {
	case "Host", "User-Agent", "Content-Length", "Transfer-Encoding", "Trailer":
		return true
	}
	return false
}

// appendRequestHead appends the head of req with a body of length bytes; ok is false when
// the request has something only Request.Write writes exactly.
func appendRequestHead(b []byte, req *http.Request, length int64) ([]byte, bool) {
	if req.URL == nil || req.Method == http.MethodConnect {
		return b, false
	}
	host := req.Host
	if host == "" {
		host = req.URL.Host
	}
	if !plainHost(host) {
		return b, false
	}
	uri := req.URL.RequestURI()
	if hasControlByte(uri) {
		return b, false
	}
	method := req.Method
	if method == "" {
		method = http.MethodGet
	}
	b = append(append(append(append(b, method...), ' '), uri...), " HTTP/1.1\r\nHost: "...)
	b = append(append(b, host...), "\r\n"...)

	userAgent := "Go-http-client/1.1"
	if _, set := req.Header["User-Agent"]; set {
		userAgent = headerValue(req.Header, "User-Agent")
	}
	if userAgent != "" {
		if hasLineBreak(userAgent) {
			return b, false
		}
		b = append(append(append(b, "User-Agent: "...), textproto.TrimString(userAgent)...), "\r\n"...)
	}
	// As net/http's transfer writer: a POST, PUT or PATCH says its length even when there is
	// no body, a GET or HEAD without one does not.
	if length > 0 || method == http.MethodPost || method == http.MethodPut || method == http.MethodPatch {
		b = strconv.AppendInt(append(b, "Content-Length: "...), length, 10)
		b = append(b, "\r\n"...)
	}

	// The other fields sorted by key, as Header.Write sorts them. A probe's request has a
	// dozen at most.
	var store [16]string
	keys := store[:0]
	for k := range req.Header {
		if !requestHeadExcluded(k) {
			keys = append(keys, k)
		}
	}
	sortStrings(keys)
	for _, k := range keys {
		if !plainFieldName(k) {
			return b, false
		}
		for _, v := range req.Header[k] {
			if hasLineBreak(v) {
				return b, false
			}
			b = append(append(append(append(b, k...), ": "...), textproto.TrimString(v)...), "\r\n"...)
		}
	}
	return append(b, "\r\n"...), true
}

// writeRequestBody writes the body of length bytes as net/http's transfer writer does (the
// head is in w's buffer already): up to length through w's ReadFrom, the rest read and
// dropped, the body closed, and a body shorter than it said an error.
func writeRequestBody(w *bufio.Writer, req *http.Request, length int64) error {
	if req.Body == nil {
		return nil
	}
	var n, extra int64
	var err error
	if length > 0 {
		n, err = io.Copy(w, io.LimitReader(req.Body, length))
		if err == nil {
			extra, err = io.Copy(io.Discard, req.Body)
		}
	}
	if cerr := req.Body.Close(); err == nil {
		err = cerr
	}
	if err == nil && n+extra != length {
		err = errBodyLength(length, n+extra)
	}
	return err
}

// errBodyLength is net/http's error for a body whose length is not the one announced.
func errBodyLength(announced, got int64) error {
	return &bodyLengthError{announced: announced, got: got}
}

type bodyLengthError struct{ announced, got int64 }

func (e *bodyLengthError) Error() string {
	return "http: ContentLength=" + strconv.FormatInt(e.announced, 10) + " with Body length " + strconv.FormatInt(e.got, 10)
}

// sortStrings sorts a few strings in place (insertion sort: no allocation, and a request
// has few fields).
func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// plainHost reports whether a Host value is one net/http writes unchanged: ASCII letters,
// digits and the punctuation of a name, an IPv4 or a bracketed IPv6 address and a port (no
// zone, nothing to encode in Punycode, nothing it would blank as invalid).
func plainHost(h string) bool {
	if h == "" {
		return false
	}
	for i := 0; i < len(h); i++ {
		c := h[i]
		if !isAlnum(c) && c != '.' && c != '-' && c != ':' && c != '[' && c != ']' && c != '_' {
			return false
		}
	}
	return true
}

// plainFieldName reports whether a header name is one net/http writes (a token of letters,
// digits and hyphens; it drops a name that is no token).
func plainFieldName(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		if !isAlnum(k[i]) && k[i] != '-' {
			return false
		}
	}
	return true
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// hasLineBreak reports whether a value holds a CR or LF, which net/http turns into spaces.
// (strings.ContainsAny builds a set on every call, and this runs for every header value.)
func hasLineBreak(v string) bool {
	return strings.IndexByte(v, '\n') >= 0 || strings.IndexByte(v, '\r') >= 0
}

// hasControlByte reports whether s has a byte net/http refuses in a request line.
func hasControlByte(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < ' ' || s[i] == 0x7f {
			return true
		}
	}
	return false
}
