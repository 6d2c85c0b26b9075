package monitor

import (
	"context"
	"io"
	"net"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/internal/testkit/pgtest"
	"github.com/mcpwatch/mcpwatch/store"
)

// pgProxy is a TCP proxy in front of Postgres that a test can cut and restore: the database
// goes away for the processes behind the proxy only, not for other tests on the machine.
type pgProxy struct {
	ln     net.Listener
	target string

	mu    sync.Mutex
	cut   bool
	conns map[net.Conn]bool
	wg    sync.WaitGroup
}

func startProxy(t testing.TB, target string) *pgProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &pgProxy{ln: ln, target: target, conns: map[net.Conn]bool{}}
	p.wg.Add(1)
	go p.accept()
	t.Cleanup(func() {
		ln.Close()
		p.Cut()
		p.wg.Wait()
	})
	return p
}

func (p *pgProxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		cut := p.cut
		p.mu.Unlock()
		if cut {
			c.Close() // the database is "down": the client sees the connection end at once
			continue
		}
		p.wg.Add(1)
		go p.pipe(c)
	}
}

func (p *pgProxy) pipe(client net.Conn) {
	defer p.wg.Done()
	server, err := net.DialTimeout("tcp", p.target, 5*time.Second)
	if err != nil {
		client.Close()
		return
	}
	if !p.track(client, server) {
		return
	}
	done := make(chan struct{}, 2)
	copyHalf := func(dst, src net.Conn) {
		_, _ = io.Copy(dst, src)
		dst.Close()
		src.Close()
		done <- struct{}{}
	}
	go copyHalf(server, client)
	go copyHalf(client, server)
	<-done
	<-done
	p.mu.Lock()
	delete(p.conns, client)
	delete(p.conns, server)
	p.mu.Unlock()
}

func (p *pgProxy) track(conns ...net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cut {
		for _, c := range conns {
			c.Close()
		}
		return false
	}
	for _, c := range conns {
		p.conns[c] = true
	}
	return true
}

// Cut drops every connection and refuses new ones until Restore.
func (p *pgProxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = true
	for c := range p.conns {
		c.Close()
	}
}

// Restore lets connections through again.
func (p *pgProxy) Restore() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = false
}

// viaProxy rewrites a database URL to go through the proxy.
func (p *pgProxy) viaProxy(t testing.TB, raw string) string {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		t.Skipf("the test database URL is not a postgres:// URL with a host; the proxy cannot stand in front of it")
	}
	u.Host = p.ln.Addr().String()
	return u.String()
}

// testDB is a migrated schema of its own, reached directly and (when proxied) through a
// proxy the test can cut.
type testDB struct {
	pgtest.DB
	direct *store.Store
	proxy  *pgProxy
}

func newTestDB(t testing.TB) testDB {
	t.Helper()
	db, pool := pgtest.Migrated(t)
	return testDB{DB: db, direct: store.New(pool)}
}

// withProxy puts a proxy in front of the database and returns a store that goes through it
// (its pool closed when the test ends).
func (d *testDB) withProxy(t testing.TB) *store.Store {
	t.Helper()
	u, err := url.Parse(d.URL)
	if err != nil || u.Host == "" {
		t.Skipf("the test database URL is not a postgres:// URL with a host; the proxy cannot stand in front of it")
	}
	d.proxy = startProxy(t, u.Host)
	return openStore(t, d.proxy.viaProxy(t, d.URL))
}

func openStore(t testing.TB, url string) *store.Store {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	st, err := store.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	return st
}

// countRuns counts the stored runs by id: exactly once each is the point of most tests here.
func countRuns(t testing.TB, st *store.Store) (total, distinct int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := st.Pool().QueryRow(ctx, `SELECT count(*), count(DISTINCT id) FROM runs`).Scan(&total, &distinct); err != nil {
		t.Fatal(err)
	}
	return total, distinct
}

func storedIDs(t testing.TB, st *store.Store) map[store.RunID]int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rows, err := st.Pool().Query(ctx, `SELECT id FROM runs`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[store.RunID]int{}
	for rows.Next() {
		var id store.RunID
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		out[id]++
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// eventually polls cond until it holds or the deadline passes (time passing is the event
// here: the database catching up, a lease expiring).
func eventually(t testing.TB, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not within %v: %s", within, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
