package probe

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
)

// writes records each write its writer got, so that two writers can be compared write by
// write: the same bytes in the same TCP writes.
type writes struct{ got [][]byte }

func (w *writes) Write(p []byte) (int, error) {
	w.got = append(w.got, bytes.Clone(p))
	return len(p), nil
}

// wireWrites is what goes out on a socket when req is written through the transport's
// buffer by write and flushed.
func wireWrites(t testing.TB, req *http.Request, write func(*bufio.Writer, *http.Request) error) ([][]byte, error) {
	t.Helper()
	var w writes
	bw := bufio.NewWriterSize(&w, http1BufferSize)
	err := write(bw, req)
	if err == nil {
		err = bw.Flush()
	}
	return w.got, err
}

// asNetHTTP compares the writes of the transport's writeRequest with those of net/http's
// Request.Write for the request newReq makes (twice: a body is read once). It returns
// whether writeRequestHead wrote the request itself.
func asNetHTTP(t testing.TB, newReq func() *http.Request) (own bool) {
	t.Helper()
	want, werr := wireWrites(t, newReq(), func(w *bufio.Writer, r *http.Request) error { return r.Write(w) })
	got, gerr := wireWrites(t, newReq(), func(w *bufio.Writer, r *http.Request) error {
		byNetHTTP, err := writeRequest(w, r)
		own = !byNetHTTP
		return err
	})
	if (werr == nil) != (gerr == nil) || (werr != nil && werr.Error() != gerr.Error()) {
		t.Fatalf("error %v, net/http's %v", gerr, werr)
	}
	if len(got) != len(want) {
		t.Fatalf("%d writes, net/http makes %d:\n%q\n%q", len(got), len(want), got, want)
	}
	for i := range want {
		if !bytes.Equal(got[i], want[i]) {
			t.Fatalf("write %d:\n got %q\nwant %q", i, got[i], want[i])
		}
	}
	return own
}

func TestRequestHeadAsNetHTTP(t *testing.T) {
	probeHeader := func() http.Header {
		return http.Header{
			"User-Agent":           {"mcpwatch/dev"},
			"Accept-Encoding":      {"identity"},
			"Content-Type":         {"application/json"},
			"Accept":               {acceptBoth},
			"Mcp-Session-Id":       {"0123456789abcdef"},
			"Mcp-Protocol-Version": {"2025-11-25"},
		}
	}
	message := []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	large := bytes.Repeat([]byte("x"), 3*http1BufferSize+17)
	type request struct {
		name   string
		method string
		url    string
		body   func() io.Reader
		edit   func(*http.Request)
		// own says the transport writes it itself (else net/http does, as before).
		own bool
	}
	bytesBody := func(b []byte) func() io.Reader { return func() io.Reader { return bytes.NewReader(b) } }
	cases := []request{
		{name: "a message", method: http.MethodPost, url: "http://127.0.0.1:8080/mcp", body: bytesBody(message), own: true},
		{name: "a GET of the endpoint", method: http.MethodGet, url: "http://127.0.0.1:8080/mcp", own: true},
		{name: "a DELETE of the session", method: http.MethodDelete, url: "http://127.0.0.1:8080/mcp", own: true},
		{name: "a POST without a body", method: http.MethodPost, url: "http://127.0.0.1:8080/mcp", own: true},
		{name: "a PUT with an empty body", method: http.MethodPut, url: "http://127.0.0.1/mcp", body: bytesBody(nil), own: true},
		{name: "a HEAD", method: http.MethodHead, url: "http://127.0.0.1/mcp", own: true},
		{name: "no method is a GET", method: "", url: "http://127.0.0.1/mcp", own: true},
		{name: "a query and an escaped path", method: http.MethodGet, url: "http://h.example:80/a%20b/c?x=1&y=%2F", own: true},
		{name: "an IPv6 host", method: http.MethodPost, url: "http://[::1]:3000/mcp", body: bytesBody(message), own: true},
		{name: "a body longer than the buffer", method: http.MethodPost, url: "http://127.0.0.1/mcp", body: bytesBody(large), own: true},
		{name: "a strings.Reader body", method: http.MethodPost, url: "http://127.0.0.1/mcp", body: func() io.Reader { return strings.NewReader("{}") }, own: true},
		{name: "a bytes.Buffer body", method: http.MethodPost, url: "http://127.0.0.1/mcp", body: func() io.Reader { return bytes.NewBufferString("{}") }, own: true},
		{name: "no User-Agent is Go's", method: http.MethodGet, url: "http://127.0.0.1/mcp", edit: func(r *http.Request) { delete(r.Header, "User-Agent") }, own: true},
		{name: "an empty User-Agent is none", method: http.MethodGet, url: "http://127.0.0.1/mcp", edit: func(r *http.Request) { r.Header["User-Agent"] = []string{""} }, own: true},
		{name: "a User-Agent without values is none", method: http.MethodGet, url: "http://127.0.0.1/mcp", edit: func(r *http.Request) { r.Header["User-Agent"] = nil }, own: true},
		{name: "values trimmed, repeated and unsorted", method: http.MethodPost, url: "http://127.0.0.1/mcp", body: bytesBody(message), edit: func(r *http.Request) {
			r.Header["User-Agent"] = []string{" \tua/1 "}
			r.Header["X-Many"] = []string{"b", " a", ""}
			r.Header["x-lower"] = []string{"kept as it is"}
			r.Header["A-First"] = []string{"1"}
		}, own: true},
		{name: "keys written apart are not repeated", method: http.MethodPost, url: "http://127.0.0.1/mcp", body: bytesBody(message), edit: func(r *http.Request) {
			r.Header["Host"] = []string{"other.example"}
			r.Header["Content-Length"] = []string{"999"}
			r.Header["Transfer-Encoding"] = []string{"chunked"}
			r.Header["Trailer"] = []string{"X"}
			r.Header["content-length"] = []string{"written: not canonical"}
		}, own: true},
		{name: "a body longer than it says", method: http.MethodPost, url: "http://127.0.0.1/mcp", body: bytesBody(message), edit: func(r *http.Request) { r.ContentLength = 5 }, own: true},
		{name: "a Host set apart", method: http.MethodGet, url: "http://127.0.0.1/mcp", edit: func(r *http.Request) { r.Host = "virtual.example:81" }, own: true},

		// Left to net/http.
		{name: "a value with a newline", method: http.MethodGet, url: "http://127.0.0.1/mcp", edit: func(r *http.Request) { r.Header["X-Bad"] = []string{"a\r\nInjected: 1"} }},
		{name: "a User-Agent with a newline", method: http.MethodGet, url: "http://127.0.0.1/mcp", edit: func(r *http.Request) { r.Header["User-Agent"] = []string{"a\nb"} }},
		{name: "a name that is no token", method: http.MethodGet, url: "http://127.0.0.1/mcp", edit: func(r *http.Request) { r.Header["Bad Name"] = []string{"dropped"} }},
		{name: "a name with other token bytes", method: http.MethodGet, url: "http://127.0.0.1/mcp", edit: func(r *http.Request) { r.Header["X_Under.score"] = []string{"1"} }},
		{name: "a non-ASCII host", method: http.MethodGet, url: "http://127.0.0.1/mcp", edit: func(r *http.Request) { r.Host = "bücher.example" }},
		{name: "a host with a zone", method: http.MethodGet, url: "http://127.0.0.1/mcp", edit: func(r *http.Request) { r.Host = "[fe80::1%25eth0]:80" }},
		{name: "an invalid host", method: http.MethodGet, url: "http://127.0.0.1/mcp", edit: func(r *http.Request) { r.Host = "a b/c" }},
		{name: "Connection: close", method: http.MethodGet, url: "http://127.0.0.1/mcp", edit: func(r *http.Request) { r.Close = true }},
		{name: "a body of unknown length", method: http.MethodPost, url: "http://127.0.0.1/mcp", body: func() io.Reader { return io.MultiReader(strings.NewReader("{}")) }},
		{name: "a head longer than the buffer", method: http.MethodGet, url: "http://127.0.0.1/mcp", edit: func(r *http.Request) { r.Header["X-Big"] = []string{strings.Repeat("v", http1BufferSize)} }},
		{name: "a chunked body", method: http.MethodPost, url: "http://127.0.0.1/mcp", body: bytesBody(message), edit: func(r *http.Request) { r.TransferEncoding = []string{"chunked"} }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			own := asNetHTTP(t, func() *http.Request {
				var body io.Reader
				if c.body != nil {
					body = c.body()
				}
				req, err := http.NewRequestWithContext(context.Background(), c.method, c.url, body)
				if err != nil {
					t.Fatal(err)
				}
				req.Header = probeHeader()
				if c.edit != nil {
					c.edit(req)
				}
				return req
			})
			if own != c.own {
				t.Errorf("written by the transport itself: %v, want %v", own, c.own)
			}
		})
	}
}

// The body a request was retried with (GetBody) goes out as the first did.
func TestRequestHeadAsNetHTTPForARewoundBody(t *testing.T) {
	own := asNetHTTP(t, func() *http.Request {
		req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, "http://127.0.0.1/mcp", bytes.NewReader([]byte(`{"a":1}`)))
		if err != nil {
			t.Fatal(err)
		}
		again, err := rewound(req)
		if err != nil {
			t.Fatal(err)
		}
		return again
	})
	if !own {
		t.Error("a rewound body was left to net/http")
	}
}

func FuzzRequestHeadAsNetHTTP(f *testing.F) {
	f.Add("POST", "/mcp?x=1", "127.0.0.1:8080", "Mcp-Session-Id", " abc ", "mcpwatch/dev", []byte(`{"jsonrpc":"2.0"}`))
	f.Add("GET", "/", "[::1]:80", "x-lower", "a\tb", "", []byte(nil))
	f.Add("DELETE", "/a%2Fb", "example.com", "Bad Name", "v\r\n", "ua\n", []byte("{}"))
	f.Fuzz(func(t *testing.T, method, path, host, key, value, userAgent string, body []byte) {
		newReq := func() *http.Request {
			var rd io.Reader
			if body != nil {
				rd = bytes.NewReader(body)
			}
			req, err := http.NewRequestWithContext(context.Background(), method, "http://127.0.0.1"+path, rd)
			if err != nil {
				return nil
			}
			req.Host = host
			req.Header = http.Header{key: {value, value + "2"}, "User-Agent": {userAgent}, "Accept": {acceptBoth}}
			return req
		}
		if newReq() == nil {
			t.Skip()
		}
		asNetHTTP(t, newReq)
	})
}

// The transport's head of a message allocates nothing.
func TestRequestHeadAllocatesNothing(t *testing.T) {
	message := []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, "http://127.0.0.1:8080/mcp", bytes.NewReader(message))
	if err != nil {
		t.Fatal(err)
	}
	req.Header = http.Header{"User-Agent": {"mcpwatch/dev"}, "Content-Type": {"application/json"}, "Accept": {acceptBoth}}
	bw := bufio.NewWriterSize(io.Discard, http1BufferSize)
	length, ok := plainBodyLength(req)
	if !ok {
		t.Fatal("a message's body is not written by the transport")
	}
	if n := testing.AllocsPerRun(100, func() {
		head, _ := appendRequestHead(bw.AvailableBuffer(), req, length)
		_, _ = bw.Write(head)
		bw.Reset(io.Discard)
	}); n != 0 {
		t.Errorf("%v allocations per head, want none", n)
	}
}
