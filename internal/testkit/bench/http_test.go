package bench

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"

	"github.com/mcpwatch/mcpwatch/checks"
	"github.com/mcpwatch/mcpwatch/internal/testkit/fixture"
	"github.com/mcpwatch/mcpwatch/probe"
)

// exchange is one HTTP request of a recorded probe, replayed by the bare loop.
type exchange struct {
	method string
	body   []byte
	header http.Header
}

// recordedExchanges probes the server once and returns, per connection, the HTTP requests
// the probe made, in order: the bare loop replays exactly these.
func recordedExchanges(b *testing.B, url string) [][]exchange {
	b.Helper()
	res, err := probe.Run(context.Background(), probe.Target{URL: url}, probe.Options{})
	if err != nil || res.Err != "" {
		b.Fatalf("recording probe: %v %s", err, res.Err)
	}
	byConn := map[int][]exchange{}
	for _, f := range res.Frames {
		if f.Dir != probe.Out || f.HTTP == nil {
			continue
		}
		h := f.HTTP.Header.Clone()
		h.Del("Mcp-Session-Id") // the loop carries the session id of its own run
		byConn[f.Conn] = append(byConn[f.Conn], exchange{method: f.HTTP.Method, body: f.Raw, header: h})
	}
	// Every connection the probe opened (the main session, the negotiation connection and
	// the rule probes' connections), in the order of their numbers.
	conns := make([]int, 0, len(byConn))
	for conn := range byConn {
		conns = append(conns, conn)
	}
	slices.Sort(conns)
	out := make([][]exchange, 0, len(conns))
	for _, conn := range conns {
		out = append(out, byConn[conn])
	}
	return out
}

// bareConnection makes the requests of one connection with nothing but net/http: no
// transcript, no routing, no checks.
func bareConnection(client *http.Client, url string, xs []exchange) error {
	session := ""
	for _, x := range xs {
		var body io.Reader
		if x.body != nil {
			body = bytes.NewReader(x.body)
		}
		req, err := http.NewRequest(x.method, url, body)
		if err != nil {
			return err
		}
		req.Header = x.header.Clone()
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
		}
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		if _, err := io.Copy(io.Discard, resp.Body); err != nil {
			return err
		}
		resp.Body.Close()
		if id := resp.Header.Get("Mcp-Session-Id"); id != "" && session == "" {
			session = id
		}
	}
	return nil
}

func newFixtureServer(b *testing.B) *httptest.Server {
	b.Helper()
	srv, err := fixture.New(fixture.Config{})
	if err != nil {
		b.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	b.Cleanup(ts.Close)
	return ts
}

// BenchmarkHTTPProbe compares a full probe (both connections, every frame recorded, all
// checks evaluated) with the same HTTP round trips made by a bare loop. The target: probe
// within 1.2x of bare. probe-only leaves the checks out, to show which side a change moved.
func BenchmarkHTTPProbe(b *testing.B) {
	ts := newFixtureServer(b)
	reg, err := checks.Default()
	if err != nil {
		b.Fatal(err)
	}
	conns := recordedExchanges(b, ts.URL)
	probeOnce := func(b *testing.B) *probe.Result {
		res, err := probe.Run(context.Background(), probe.Target{URL: ts.URL}, probe.Options{})
		if err != nil || res.Err != "" {
			b.Fatalf("probe: %v %s", err, res.Err)
		}
		return res
	}

	// Both report their CPU time (client and in-process server together) beside the wall
	// time: on a machine busy with other work the wall times swing, the CPU times much less.
	b.Run("probe+checks", func(b *testing.B) {
		before := processCPU()
		defer func() { reportCPU(b, before) }()
		for b.Loop() {
			if fs := reg.Evaluate(probeOnce(b)); slices.ContainsFunc(fs, func(f checks.Finding) bool { return f.Status == checks.StatusFail }) {
				b.Fatal("the conformant fixture failed a check")
			}
		}
	})
	// The probe alone, its findings not judged: what is left of the gap when checks cost
	// nothing, so that a change shows whether it moved the probing or the judging.
	b.Run("probe-only", func(b *testing.B) {
		before := processCPU()
		defer func() { reportCPU(b, before) }()
		for b.Loop() {
			probeOnce(b)
		}
	})
	b.Run("bare-net-http", func(b *testing.B) {
		// One client per connection, as the probe has: no connection shares a keep-alive
		// connection with another.
		clients := make([]*http.Client, len(conns))
		for i := range clients {
			clients[i] = &http.Client{Transport: &http.Transport{}}
		}
		before := processCPU()
		defer func() { reportCPU(b, before) }()
		for b.Loop() {
			var wg sync.WaitGroup
			errs := make([]error, len(conns))
			for i, xs := range conns {
				wg.Add(1)
				go func() {
					defer wg.Done()
					errs[i] = bareConnection(clients[i], ts.URL, xs)
				}()
			}
			wg.Wait()
			for _, err := range errs {
				if err != nil {
					b.Fatal(err)
				}
			}
			// The probe opens fresh connections for every probe: so does the loop.
			for _, c := range clients {
				c.CloseIdleConnections()
			}
		}
	})
}
