//go:build linux

package interop

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/mcpwatch/mcpwatch/internal/testkit/modroot"
)

// TestLoopbackPreloadPinsEveryListenForm runs testdata/listen-forms.cjs, which listens once in
// every form Node accepts for a TCP port (none, a number, a string of digits, an options
// object; with a wildcard host or none), once bare and once with the preload: bare, the forms
// listen on every interface; preloaded, each listens on 127.0.0.1, except the one that names
// another loopback address itself.
func TestLoopbackPreloadPinsEveryListenForm(t *testing.T) {
	node := requireCommand(t, "node", "install Node.js (the CI script installs nodejs and npm)")
	root, err := modroot.Find(".")
	if err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(root, "internal", "testkit", "interop", "testdata", "listen-forms.cjs")
	run := func(env ...string) map[string]string {
		t.Helper()
		cmd := exec.CommandContext(t.Context(), node, script)
		cmd.Env = append(os.Environ(), env...)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("node %s: %v", script, err)
		}
		var addrs map[string]string
		if err := json.Unmarshal(out, &addrs); err != nil {
			t.Fatalf("node %s printed %q: %v", script, out, err)
		}
		return addrs
	}

	bare := run("NODE_OPTIONS=")
	wildcard := 0
	for form, addr := range bare {
		if addr == "::" || addr == "0.0.0.0" {
			wildcard++
		} else {
			t.Logf("without the preload %s listens on %s", form, addr)
		}
	}
	if wildcard == 0 {
		t.Fatalf("without the preload no form listens on every interface (%v): the test shows nothing", bare)
	}

	pinned := run("NODE_OPTIONS=--require " + LoopbackPreload(root))
	if len(pinned) != len(bare) || len(pinned) < 10 {
		t.Fatalf("%d forms with the preload, %d without: %v", len(pinned), len(bare), pinned)
	}
	const explicit = `listen({port: 0, host: "127.0.0.2"})`
	for form, addr := range pinned {
		want := "127.0.0.1"
		if form == explicit {
			want = "127.0.0.2" // a loopback host of the server's own is kept
		}
		if addr != want {
			t.Errorf("with the preload %s listens on %s, want %s", form, addr, want)
		}
	}
	if _, ok := pinned[explicit]; !ok {
		t.Errorf("no form %s in %v", explicit, pinned)
	}
}
