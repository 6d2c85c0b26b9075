package apiserver

import (
	"sync"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/store"
)

// listedServers reads GET /api/v1/servers by name.
func listedServers(t *testing.T, w *world) map[string]statusView {
	t.Helper()
	resp := w.get(t, "/api/v1/servers")
	if resp.status != 200 {
		t.Fatalf("list: %d %s", resp.status, resp.body)
	}
	var out struct {
		Servers []statusView `json:"servers"`
	}
	resp.json(t, &out)
	byName := map[string]statusView{}
	for _, v := range out.Servers {
		byName[v.Name] = v
	}
	return byName
}

func lastRunID(v statusView) string {
	if v.LastRun == nil {
		return ""
	}
	return v.LastRun.ID
}

func TestServerListShowsANewRunAfterTheTTL(t *testing.T) {
	t.Parallel()
	const ttl = 300 * time.Millisecond
	w := newWorld(t, func(c *Config) { c.StatusTTL = ttl })
	read := time.Now()
	before := lastRunID(listedServers(t, w)["alpha"])

	code := int64(-32001)
	run := store.RunRecord{ID: store.NewRunID(time.Now()), ServerID: w.alpha.ID, Region: "eu", Worker: "w1", Start: time.Now().UTC(),
		Duration: 40 * time.Millisecond, Outcome: store.OutcomeDown, ErrorCode: &code, Error: "request timed out"}
	if _, err := w.st.WriteRuns(t.Context(), []store.RunRecord{run}); err != nil {
		t.Fatal(err)
	}
	// Within the TTL the list is the reading made before the run (when this machine is quick
	// enough to ask again within it).
	got := lastRunID(listedServers(t, w)["alpha"])
	if time.Since(read) < ttl && got != before {
		t.Errorf("within the TTL the list shows run %s, want the earlier reading's %s", got, before)
	}
	time.Sleep(ttl)
	// Past the TTL the first request may still get the old reading while a new one is made;
	// the new run shows as soon as that reading is done.
	deadline := time.Now().Add(10 * time.Second)
	for {
		alpha := listedServers(t, w)["alpha"]
		if lastRunID(alpha) == run.ID.String() {
			if alpha.LastError == nil || alpha.LastError.ErrorCode == nil || *alpha.LastError.ErrorCode != code {
				t.Errorf("the new run is listed without its error: %+v", alpha.LastError)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the list never showed the new run %s (still %s)", run.ID, lastRunID(alpha))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestServerListShowsWritesThroughTheAPIAtOnce(t *testing.T) {
	t.Parallel()
	w := newWorld(t, func(c *Config) { c.StatusTTL = time.Hour })
	if _, ok := listedServers(t, w)["delta"]; ok {
		t.Fatal("delta listed before it was registered")
	}
	for _, tc := range []struct {
		name  string
		write req
		check func(listed map[string]statusView) bool
	}{
		{"create", req{method: "POST", path: "/api/v1/servers", body: `{"name":"delta","url":"https://public.test/mcp"}`},
			func(l map[string]statusView) bool { return l["delta"].State == store.StateUnknown }},
		{"pause", req{method: "POST", path: "/api/v1/servers/delta/pause"},
			func(l map[string]statusView) bool { return l["delta"].State == store.StatePaused }},
		{"resume", req{method: "POST", path: "/api/v1/servers/delta/resume"},
			func(l map[string]statusView) bool { return l["delta"].State == store.StateUnknown }},
		{"update", req{method: "PATCH", path: "/api/v1/servers/delta", body: `{"labels":{"team":"x"}}`},
			func(l map[string]statusView) bool { return l["delta"].Labels["team"] == "x" }},
		{"delete", req{method: "DELETE", path: "/api/v1/servers/delta"},
			func(l map[string]statusView) bool { _, ok := l["delta"]; return !ok }},
	} {
		tc.write.token = testToken
		if r := w.do(t, tc.write); r.status >= 300 {
			t.Fatalf("%s: %d %s", tc.name, r.status, r.body)
		}
		if !tc.check(listedServers(t, w)) {
			t.Errorf("%s: the list does not show the write", tc.name)
		}
	}
}

func TestServerListUnderConcurrentReaders(t *testing.T) {
	t.Parallel()
	w := newWorld(t, func(c *Config) { c.StatusTTL = 20 * time.Millisecond })
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 10 {
				if n := len(listedServers(t, w)); n != 3 {
					t.Errorf("%d servers listed, want 3", n)
				}
				time.Sleep(5 * time.Millisecond)
			}
		})
	}
	wg.Wait()
}
