package main

import (
	"archive/tar"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
)

// moduleProxyFromCache lets a build in a fresh module cache fetch the modules this machine
// already has, without the network: the download cache of a module cache is laid out as a
// module proxy.
func moduleProxyFromCache(t *testing.T) []string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Skipf("no go command to build the prober with: %v", err)
	}
	dl := filepath.Join(strings.TrimSpace(string(out)), "cache", "download")
	return []string{"GOPROXY=file://" + filepath.ToSlash(dl), "GOSUMDB=off"}
}

var cacheKey = regexp.MustCompile(`^mcpwatch-(prober|go)-(linux|darwin|windows)-(amd64|arm64)-[0-9a-f]{20}$`)

// TestActionBuildsOnlyCheckAsideWithCachesOfItsOwn runs the whole action twice on one
// runner: first with the caches missing, so that it builds the prober, then with the
// prober's cache restored, so that it builds nothing.
func TestActionBuildsOnlyCheckAsideWithCachesOfItsOwn(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the prober from scratch")
	}
	srv := newHTTPFixture(t, &httpFixture{mcp: fixtureMCP{name: "x", version: "1"}})
	temp := t.TempDir()
	r := newFakeRunner(t, temp)
	r.extraEnv = moduleProxyFromCache(t)
	job := r.run(map[string]string{"target": srv.URL + "/mcp"})
	if job.code != 0 || job.outputs["probe"]["verdict"] != "pass" {
		t.Fatalf("job exit %d, outputs %v\n%s", job.code, job.outputs, job.log)
	}
	prep := job.outputs["prepare"]
	wantRan := []string{"Find the prober or what builds it", "Restore the prober built for this version",
		"Restore the Go caches of the prober's build", "Build the prober", "Save the prober for the next jobs",
		"Save the Go caches of the prober's build", "Probe the MCP server", "Gate on the verdict"}
	if !slices.Equal(job.ran, wantRan) {
		t.Errorf("steps run\n got %q\nwant %q", job.ran, wantRan)
	}
	bin, goCache := job.with["bin-cache"], job.with["go-cache"]
	// What is saved is what is restored, under the same key.
	for _, s := range r.action.Runs.Steps {
		if strings.HasPrefix(s.Uses, "actions/cache/save@") {
			restored := bin
			if strings.Contains(s.With["path"], "go-dir") {
				restored = goCache
			}
			saved := map[string]string{"path": r.resolve(s.With["path"], nil, job.outputs), "key": r.resolve(s.With["key"], nil, job.outputs)}
			if saved["path"] != restored["path"] || saved["key"] != restored["key"] {
				t.Errorf("step %q saves %v, restored %v", s.Name, saved, restored)
			}
		}
	}
	if !cacheKey.MatchString(bin["key"]) || !cacheKey.MatchString(goCache["key"]) ||
		!strings.HasPrefix(goCache["key"], goCache["restore-keys"]) || bin["key"] == goCache["key"] {
		t.Errorf("cache keys: prober %q, Go %q restoring %q", bin["key"], goCache["key"], goCache["restore-keys"])
	}
	if bin["path"] != filepath.Join(temp, "mcpwatch", "bin") || goCache["path"] != filepath.Join(temp, "mcpwatch", "go") ||
		prep["prober"] != filepath.Join(bin["path"], "prober") {
		t.Errorf("cache paths %q and %q, prober %q: want them in RUNNER_TEMP", bin["path"], goCache["path"], prep["prober"])
	}
	// The build used the action's caches, not the job's.
	for _, d := range []string{"build", "mod"} {
		if entries, err := os.ReadDir(filepath.Join(goCache["path"], d)); err != nil || len(entries) == 0 {
			t.Errorf("the Go %s cache of the action is empty: %v", d, err)
		}
	}
	if !strings.Contains(job.log, "mcpwatch: built prober ") {
		t.Errorf("the build does not say what it built:\n%s", job.log)
	}
	// Only check: the monitor's commands are left out, and say so.
	out, err := exec.Command(prep["prober"], "run", "--config", "x.yaml").CombinedOutput()
	if code := exitCode(t, err); code != exitUsage || !strings.Contains(string(out), "built for check alone") {
		t.Errorf("prober run in the action's build: exit %d\n%s", code, out)
	}
	checkSideEffectFree(t, r)

	// The next job restores the prober from the cache under the same key, and builds nothing.
	r2 := newFakeRunner(t, temp)
	r2.extraEnv = moduleProxyFromCache(t)
	r2.usesOutput["bin-cache"] = map[string]string{"cache-hit": "true"}
	job2 := r2.run(map[string]string{"target": srv.URL + "/mcp"})
	if job2.code != 0 || slices.Contains(job2.ran, "Build the prober") || job2.with["bin-cache"]["key"] != bin["key"] {
		t.Errorf("second job: exit %d, steps %q, key %q (first %q)\n%s", job2.code, job2.ran, job2.with["bin-cache"]["key"], bin["key"], job2.log)
	}
}

func exitCode(t *testing.T, err error) int {
	t.Helper()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return 0
}

// The prober's cache key changes with what the build reads, and only with it.
func TestActionCacheKeyFollowsWhatTheBuildReads(t *testing.T) {
	files := map[string]string{
		"go.mod": "module example.com/m\n", "go.sum": "", "main.go": "package main\n",
		"main_test.go": "package main\n", "testdata/x.json": "{}", "README.md": "# m\n",
		"action/build.sh": "go build\n", "action/probe.sh": "prober check\n",
	}
	keyOf := func(t *testing.T, edit string) string {
		dir := t.TempDir()
		for name, content := range files {
			if name == edit {
				content += "// changed\n"
			}
			p := filepath.Join(dir, name)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		out := filepath.Join(t.TempDir(), "output")
		cmd := exec.Command("bash", filepath.Join(actionRoot(t), "action", "prepare.sh"))
		cmd.Env = append(os.Environ(), "ACTION_PATH="+dir, "RUNNER_TEMP="+t.TempDir(), "RUNNER_OS="+runnerOS(),
			"RUNNER_ARCH="+runnerArch(), "GITHUB_OUTPUT="+out, "ACTION_REF=", "ACTION_REPOSITORY=")
		if msg, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("prepare.sh: %v\n%s", err, msg)
		}
		return readStepOutputs(t, out)["bin-key"]
	}
	base := keyOf(t, "")
	if !cacheKey.MatchString(base) {
		t.Fatalf("key %q", base)
	}
	tests := []struct {
		edit    string
		changes bool
	}{
		{"main.go", true}, {"go.mod", true}, {"go.sum", true}, {"action/build.sh", true},
		{"main_test.go", false}, {"testdata/x.json", false}, {"README.md", false}, {"action/probe.sh", false},
	}
	for _, tt := range tests {
		if got := keyOf(t, tt.edit); (got != base) != tt.changes {
			t.Errorf("editing %s: key %q, unedited %q; want changed %v", tt.edit, got, base, tt.changes)
		}
	}
}

// releaseServer serves the release assets of mcpwatch/mcpwatch v1.2.3 as GitHub does, with
// the prober of the archive being this test binary.
type releaseServer struct {
	archive, checksums []byte
	mu                 sync.Mutex
	asked              []string
}

func (s *releaseServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.asked = append(s.asked, r.URL.Path)
	s.mu.Unlock()
	name := fmt.Sprintf("mcpwatch_1.2.3_%s_%s.tar.gz", runtime.GOOS, runtime.GOARCH)
	switch r.URL.Path {
	case "/mcpwatch/mcpwatch/releases/download/v1.2.3/" + name:
		_, _ = w.Write(s.archive)
	case "/mcpwatch/mcpwatch/releases/download/v1.2.3/checksums.txt":
		_, _ = w.Write(s.checksums)
	default:
		http.NotFound(w, r)
	}
}

func proberArchive(t *testing.T) (archive []byte, sum string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.CreateTemp(t.TempDir(), "archive")
	if err != nil {
		t.Fatal(err)
	}
	gz := gzip.NewWriter(f)
	tw := tar.NewWriter(gz)
	for _, e := range []struct {
		name string
		data []byte
	}{{"README.md", []byte("# mcpwatch\n")}, {"prober", data}} {
		if err := tw.WriteHeader(&tar.Header{Name: e.name, Mode: 0o755, Size: int64(len(e.data))}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(e.data); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	archive, err = io.ReadAll(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.Sum256(archive)
	return archive, hex.EncodeToString(h[:])
}

func TestActionUsesTheReleasedProberOfItsVersion(t *testing.T) {
	if runnerOS() != "Linux" && runnerOS() != "macOS" {
		t.Skip("releases are fetched on Linux and macOS runners")
	}
	archive, sum := proberArchive(t)
	name := fmt.Sprintf("mcpwatch_1.2.3_%s_%s.tar.gz", runtime.GOOS, runtime.GOARCH)
	good := fmt.Sprintf("%s  checksums.txt.sig\n%s  %s\n", strings.Repeat("0", 64), sum, name)
	tests := []struct {
		name      string
		ref       string // github.action_ref; empty: read from the action's path
		checksums string
		ready     bool
		asks      bool   // whether the release is asked for
		log       string // what the log says
	}{
		{"a version tag", "v1.2.3", good, true, true, "using the released prober v1.2.3"},
		{"the tag in the action's path", "", good, true, true, "using the released prober v1.2.3"},
		{"a checksum that does not match", "v1.2.3", strings.Replace(good, sum, strings.Repeat("ab", 32), 1), false, true,
			"::warning title=mcpwatch::the released " + name + " does not match checksums.txt"},
		{"no entry in the checksums", "v1.2.3", "", false, true, "want no entry"},
		{"no such release", "v9.9.9", good, false, true, "no released prober for v9.9.9"},
		{"a moving major tag", "v1", good, false, false, ""},
		{"a branch", "main", good, false, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rel := &releaseServer{archive: archive, checksums: []byte(tt.checksums)}
			srv := httptest.NewServer(rel)
			t.Cleanup(srv.Close)
			fixture := newHTTPFixture(t, &httpFixture{mcp: fixtureMCP{name: "x", version: "1"}})
			r := newFakeRunner(t, t.TempDir())
			r.serverURL = srv.URL
			r.extraEnv = []string{asMainEnv + "=1"}
			if tt.ref != "" {
				r.ref, r.repo = tt.ref, "mcpwatch/mcpwatch"
			} else {
				// The runner keeps a downloaded action in _actions/OWNER/REPO/REF.
				dir := filepath.Join(t.TempDir(), "_actions", "mcpwatch", "mcpwatch")
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				r.root = filepath.Join(dir, "v1.2.3")
				if err := os.Symlink(actionRoot(t), r.root); err != nil {
					t.Fatal(err)
				}
			}
			if !tt.ready {
				// Where there is no release the prober comes from the cache (the build is
				// tested above): this test binary.
				r.usesOutput["bin-cache"] = map[string]string{"cache-hit": "true"}
				exe, _ := os.Executable()
				bin := filepath.Join(r.temp, "mcpwatch", "bin")
				if err := os.MkdirAll(bin, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(exe, filepath.Join(bin, "prober")); err != nil {
					t.Fatal(err)
				}
			}
			job := r.run(map[string]string{"target": fixture.URL + "/mcp"})
			if job.code != 0 || job.outputs["probe"]["verdict"] != "pass" {
				t.Fatalf("job exit %d, outputs %v\n%s", job.code, job.outputs, job.log)
			}
			ready := job.outputs["prepare"]["ready"] == "true"
			cached := slices.Contains(job.ran, "Restore the prober built for this version")
			if ready != tt.ready || cached == tt.ready || slices.Contains(job.ran, "Build the prober") {
				t.Errorf("ready %v (want %v), steps %q\n%s", ready, tt.ready, job.ran, job.log)
			}
			rel.mu.Lock()
			asked := len(rel.asked) > 0
			rel.mu.Unlock()
			if asked != tt.asks {
				t.Errorf("release asked for: %v, want %v", asked, tt.asks)
			}
			if !strings.Contains(job.log, tt.log) {
				t.Errorf("log lacks %q:\n%s", tt.log, job.log)
			}
			prober := job.outputs["prepare"]["prober"]
			if fi, err := os.Lstat(prober); tt.ready && (err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o100 == 0) {
				t.Errorf("the released prober %s: %v %v", prober, fi, err)
			}
			if entries, _ := os.ReadDir(r.temp); len(entries) != 2 { // mcpwatch/ and the probe's report folder
				var names []string
				for _, e := range entries {
					names = append(names, e.Name())
				}
				t.Errorf("RUNNER_TEMP holds %q: the download was not cleaned up", names)
			}
			checkSideEffectFree(t, r)
		})
	}
}
