package probe

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// scriptedServer accepts connections on loopback and hands each to serve; it counts them.
type scriptedServer struct {
	url      string
	accepted atomic.Int64
}

func newScriptedServer(t *testing.T, serve func(c net.Conn)) *scriptedServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &scriptedServer{url: "http://" + ln.Addr().String() + "/mcp"}
	var wg sync.WaitGroup
	t.Cleanup(func() {
		ln.Close()
		wg.Wait()
	})
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.accepted.Add(1)
			wg.Go(func() {
				defer c.Close()
				serve(c)
			})
		}
	})
	return s
}

func newHTTP1Transport(maxHeader int64) *http1Transport {
	d := &net.Dialer{Timeout: 5 * time.Second}
	return &http1Transport{dial: d.DialContext, maxHeaderBytes: maxHeader, other: &http.Transport{}, idle: &http1Idle{}}
}

// post sends a POST and returns the response with its whole body.
func post(ctx context.Context, tr http.RoundTripper, url, body string) (*http.Response, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return nil, "", err
	}
	resp, err := tr.RoundTrip(req)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp, string(b), err
}

func TestHTTP1KeepsTheConnectionOnlyAfterAWholeBody(t *testing.T) {
	var conns atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		fmt.Fprintf(w, "%s:%s", b, strings.Repeat("x", 100))
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)

	cases := []struct {
		name      string
		readWhole bool
		wantConns int64
	}{
		{name: "bodies read to the end share one connection", readWhole: true, wantConns: 1},
		{name: "a body closed early costs its connection", readWhole: false, wantConns: 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			conns.Store(0)
			tr := newHTTP1Transport(1 << 20)
			defer tr.CloseIdleConnections()
			var reused []bool
			trace := &httptrace.ClientTrace{GotConn: func(i httptrace.GotConnInfo) { reused = append(reused, i.Reused) }}
			ctx := httptrace.WithClientTrace(context.Background(), trace)
			for i := range 3 {
				req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, strings.NewReader(fmt.Sprint(i)))
				resp, err := tr.RoundTrip(req)
				if err != nil {
					t.Fatal(err)
				}
				buf := make([]byte, 2)
				if tc.readWhole {
					b, err := io.ReadAll(resp.Body)
					if err != nil || !strings.HasPrefix(string(b), fmt.Sprint(i)+":") {
						t.Fatalf("body %q: %v", b, err)
					}
				} else if _, err := io.ReadFull(resp.Body, buf); err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
			}
			if got := conns.Load(); got != tc.wantConns {
				t.Errorf("%d connections, want %d", got, tc.wantConns)
			}
			if want := tc.readWhole; reused[1] != want || reused[2] != want || reused[0] {
				t.Errorf("reused per request: %v", reused)
			}
		})
	}
}

// A server that answers one request per connection without saying so (no Connection: close)
// and then hangs up: the next request must not be lost on, or sent twice over, that
// connection.
func TestHTTP1DoesNotUseAnIdleConnectionTheServerClosed(t *testing.T) {
	var requests atomic.Int64
	hungUp := make(chan struct{}, 3)
	srv := newScriptedServer(t, func(c net.Conn) {
		req, err := http.ReadRequest(bufio.NewReader(c))
		if err != nil {
			return
		}
		io.Copy(io.Discard, req.Body)
		requests.Add(1)
		io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
		c.Close()
		hungUp <- struct{}{}
	})
	tr := newHTTP1Transport(1 << 20)
	defer tr.CloseIdleConnections()
	for i := range 3 {
		if i > 0 {
			<-hungUp // on loopback the close has reached the client once the server made it
		}
		if _, body, err := post(context.Background(), tr, srv.url, "{}"); err != nil || body != "ok" {
			t.Fatalf("request %d: %q, %v", i, body, err)
		}
	}
	if n := requests.Load(); n != 3 {
		t.Errorf("the server got %d requests for 3", n)
	}
	if n := srv.accepted.Load(); n != 3 {
		t.Errorf("%d connections for 3 requests", n)
	}
}

func TestHTTP1BoundsWhatItWaitsFor(t *testing.T) {
	cases := []struct {
		name    string
		serve   func(c net.Conn)
		timeout time.Duration
		wantErr error
	}{
		{
			name: "a response head that never ends is cut at the limit",
			serve: func(c net.Conn) {
				io.WriteString(c, "HTTP/1.1 200 OK\r\n")
				for {
					if _, err := io.WriteString(c, "X-Filler: "+strings.Repeat("a", 100)+"\r\n"); err != nil {
						return
					}
				}
			},
			timeout: 10 * time.Second,
			wantErr: errHeaderTooLarge,
		},
		{
			name: "interim answers without end are not waited out",
			serve: func(c net.Conn) {
				for {
					if _, err := io.WriteString(c, "HTTP/1.1 103 Early Hints\r\nLink: </x>\r\n\r\n"); err != nil {
						return
					}
				}
			},
			timeout: 10 * time.Second,
			wantErr: errTooManyInterim,
		},
		{
			name:    "a server that never answers is given up at the deadline",
			serve:   func(c net.Conn) { io.Copy(io.Discard, c) },
			timeout: 100 * time.Millisecond,
			wantErr: context.DeadlineExceeded,
		},
		{
			name: "a head that stalls halfway is given up at the deadline",
			serve: func(c net.Conn) {
				io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Ty")
				io.Copy(io.Discard, c)
			},
			timeout: 100 * time.Millisecond,
			wantErr: context.DeadlineExceeded,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := newScriptedServer(t, tc.serve)
			tr := newHTTP1Transport(4 << 10)
			ctx, cancel := context.WithTimeout(context.Background(), tc.timeout)
			defer cancel()
			start := time.Now()
			_, _, err := post(ctx, tr, srv.url, "{}")
			if !errors.Is(err, tc.wantErr) {
				t.Errorf("error %v, want %v", err, tc.wantErr)
			}
			if took := time.Since(start); took > tc.timeout+2*time.Second {
				t.Errorf("took %v", took)
			}
		})
	}
}

// Closing net/http's own response body reads the rest of it; an event stream has no rest.
func TestHTTP1ClosingAnEndlessStreamReturnsAtOnce(t *testing.T) {
	srv := newScriptedServer(t, func(c net.Conn) {
		if _, err := http.ReadRequest(bufio.NewReader(c)); err != nil {
			return
		}
		io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
		for {
			if _, err := io.WriteString(c, "3\r\n:\n\n\r\n"); err != nil {
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	})
	tr := newHTTP1Transport(1 << 20)
	req, _ := http.NewRequest(http.MethodPost, srv.url, strings.NewReader("{}"))
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	readerDone := make(chan struct{})
	go func() {
		io.Copy(io.Discard, resp.Body)
		close(readerDone)
	}()
	time.Sleep(30 * time.Millisecond)
	closed := make(chan struct{})
	go func() {
		resp.Body.Close()
		close(closed)
	}()
	within(t, closed, "Close did not return")
	within(t, readerDone, "the reader did not end")
}

// within fails the test unless done is closed within two seconds.
func within(t *testing.T, done <-chan struct{}, failure string) {
	t.Helper()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		t.Fatal(failure)
	}
}

func TestHTTP1SkipsInterimResponses(t *testing.T) {
	srv := newScriptedServer(t, func(c net.Conn) {
		if _, err := http.ReadRequest(bufio.NewReader(c)); err != nil {
			return
		}
		io.WriteString(c, "HTTP/1.1 103 Early Hints\r\nLink: </x>\r\n\r\n"+
			"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
	})
	firstBytes := 0
	ctx := httptrace.WithClientTrace(context.Background(), &httptrace.ClientTrace{GotFirstResponseByte: func() { firstBytes++ }})
	resp, body, err := post(ctx, newHTTP1Transport(1<<20), srv.url, "{}")
	if err != nil || resp.StatusCode != http.StatusOK || body != "ok" {
		t.Fatalf("%v %q %v", resp, body, err)
	}
	if firstBytes != 1 {
		t.Errorf("first byte observed %d times", firstBytes)
	}
}

// roundTripFunc is an http.RoundTripper made of a function.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
func (roundTripFunc) CloseIdleConnections()                               {}

func TestHTTP1ConnectionsBelongToTheirHost(t *testing.T) {
	answer := func(name string) *httptest.Server {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, name) }))
		t.Cleanup(srv.Close)
		return srv
	}
	a, b := answer("a"), answer("b")
	var elsewhere []string
	tr := newHTTP1Transport(1 << 20)
	tr.other = roundTripFunc(func(r *http.Request) (*http.Response, error) {
		elsewhere = append(elsewhere, r.URL.String())
		return nil, errors.New("not here")
	})
	for _, tc := range []struct{ url, want string }{{a.URL, "a"}, {b.URL, "b"}, {a.URL, "a"}, {b.URL, "b"}} {
		if _, body, err := post(context.Background(), tr, tc.url, "{}"); err != nil || body != tc.want {
			t.Errorf("%s answered %q, %v; want %q", tc.url, body, err, tc.want)
		}
	}
	if _, _, err := post(context.Background(), tr, "https://example.invalid/mcp", "{}"); err == nil || len(elsewhere) != 1 {
		t.Errorf("https went %v (%v), want to the other transport", elsewhere, err)
	}
}

// failingSecondWrite is a connection whose writes fail once it carried a request: the
// server reset it between two requests, after the idle check could see it.
type failingSecondWrite struct {
	net.Conn
	writes atomic.Int64
}

func (c *failingSecondWrite) Write(p []byte) (int, error) {
	if c.writes.Add(1) > 1 {
		return 0, errors.New("connection reset by peer")
	}
	return c.Conn.Write(p)
}

func TestHTTP1SendsARequestAgainWhenAReusedConnectionCannotTakeIt(t *testing.T) {
	var bodies []string
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, string(b))
		mu.Unlock()
		io.WriteString(w, "ok")
	}))
	t.Cleanup(srv.Close)
	tr := newHTTP1Transport(1 << 20)
	dialled := 0
	d := &net.Dialer{}
	tr.dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
		dialled++
		c, err := d.DialContext(ctx, network, addr)
		return &failingSecondWrite{Conn: c}, err
	}
	defer tr.CloseIdleConnections()
	for _, body := range []string{`{"n":1}`, `{"n":2}`} {
		if _, got, err := post(context.Background(), tr, srv.URL, body); err != nil || got != "ok" {
			t.Fatalf("%s: %q, %v", body, got, err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if dialled != 2 || len(bodies) != 2 || bodies[1] != `{"n":2}` {
		t.Errorf("%d dials, the server read %q", dialled, bodies)
	}
}

func TestHTTP1CancellingARequestHangsUpWithoutTheBodyBeingClosed(t *testing.T) {
	hungUp := make(chan struct{})
	srv := newScriptedServer(t, func(c net.Conn) {
		br := bufio.NewReader(c)
		if _, err := http.ReadRequest(br); err != nil {
			return
		}
		io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n3\r\n:\n\n\r\n")
		io.Copy(io.Discard, br) // until the client hangs up
		close(hungUp)
	})
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.url, strings.NewReader("{}"))
	resp, err := newHTTP1Transport(1 << 20).RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	cancel()
	within(t, hungUp, "the connection stayed open after the request was cancelled")
}

// A request that asked for Connection: close does not leave its connection for the next one,
// even when the server answers as if it would stay open.
func TestHTTP1KeepsNoConnectionARequestAskedToClose(t *testing.T) {
	srv := newScriptedServer(t, func(c net.Conn) {
		br := bufio.NewReader(c)
		for {
			req, err := http.ReadRequest(br)
			if err != nil {
				return
			}
			io.Copy(io.Discard, req.Body)
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
		}
	})
	tr := newHTTP1Transport(1 << 20)
	defer tr.CloseIdleConnections()
	for range 3 {
		req, _ := http.NewRequest(http.MethodPost, srv.url, strings.NewReader("{}"))
		req.Close = true
		resp, err := tr.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	if n := srv.accepted.Load(); n != 3 {
		t.Errorf("%d connections for 3 requests that each asked for its own", n)
	}
}
