package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func TestActionMetadataIsConsistent(t *testing.T) {
	a := loadAction(t)
	if a.Name == "" || a.Description == "" || a.Runs.Using != "composite" {
		t.Fatalf("name %q, description %q, using %q", a.Name, a.Description, a.Runs.Using)
	}
	var exprs []string
	add := func(s string) {
		for _, m := range expression.FindAllStringSubmatch(s, -1) {
			exprs = append(exprs, m[1])
		}
	}
	for _, o := range a.Outputs {
		add(o.Value)
	}
	ids := map[string]actionStep{}
	for _, s := range a.Runs.Steps {
		add(s.If)
		for _, v := range s.With {
			add(v)
		}
		for _, v := range s.Env {
			add(v)
		}
		if s.ID != "" {
			ids[s.ID] = s
		}
	}
	used := map[string]bool{}
	for _, e := range exprs {
		for _, m := range inputRef.FindAllStringSubmatch(e, -1) {
			used[m[1]] = true
			if _, ok := a.Inputs[m[1]]; !ok {
				t.Errorf("expression %q uses the undeclared input %q", e, m[1])
			}
		}
		// Every step output read is one that step writes (its script, for a run step).
		for _, m := range stepOutRef.FindAllStringSubmatch(e, -1) {
			s, ok := ids[m[1]]
			switch {
			case !ok:
				t.Errorf("expression %q reads step %q, which does not exist", e, m[1])
			case s.Uses != "":
				if !strings.HasPrefix(s.Uses, "actions/cache/restore@") || m[2] != "cache-hit" {
					t.Errorf("expression %q reads output %q of %s", e, m[2], s.Uses)
				}
			case !slices.ContainsFunc(outputWrite.FindAllStringSubmatch(s.script(t), -1), func(w []string) bool { return w[1] == m[2] }):
				t.Errorf("expression %q reads output %q, which step %q never writes", e, m[2], m[1])
			}
		}
	}
	for name, in := range a.Inputs {
		if !used[name] {
			t.Errorf("input %q is declared but never used", name)
		}
		if in.Description == "" || strings.Contains(in.Description, "${{") {
			t.Errorf("input %q: description %q", name, in.Description)
		}
		if !in.Required && in.Default == nil {
			t.Errorf("optional input %q has no default", name)
		}
	}
	if a.Inputs["target"].Required || a.Inputs["command"].Required {
		t.Error("target and command are alternatives; neither can be required")
	}
	for name, o := range a.Outputs {
		if o.Description == "" || !stepOutRef.MatchString(o.Value) {
			t.Errorf("output %q: %+v", name, o)
		}
	}
	var uses []string
	for _, s := range a.Runs.Steps {
		if s.Uses != "" {
			uses = append(uses, s.Uses[:strings.LastIndexByte(s.Uses, '@')])
		}
	}
	for _, want := range []string{"actions/cache/restore", "actions/cache/save", "actions/setup-go", "github/codeql-action/upload-sarif"} {
		if !slices.Contains(uses, want) {
			t.Errorf("no step uses %s (uses: %v)", want, uses)
		}
	}
	// setup-go puts its Go on the job's PATH: only where there is no Go to build with.
	for _, s := range a.Runs.Steps {
		if strings.HasPrefix(s.Uses, "actions/setup-go@") &&
			(!strings.Contains(s.If, "steps.prepare.outputs.has-go != 'true'") || s.With["cache"] != "false") {
			t.Errorf("setup-go runs whatever Go the job has, or with its own cache: if %q, with %v", s.If, s.With)
		}
	}
}

func TestActionBuildScriptBuildsOnlyCheckStaticFromTheActionsCheckout(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(actionRoot(t), "action", "build.sh"))
	if err != nil {
		t.Fatal(err)
	}
	build := string(data)
	for _, want := range []string{`cd "$ACTION_PATH"`, "CGO_ENABLED=0", "-trimpath -tags checkonly", "./cmd/prober",
		`GOMODCACHE="$GO_DIR/mod"`, `GOCACHE="$GO_DIR/build"`, "-u GOOS -u GOARCH -u GOFLAGS"} {
		if !strings.Contains(build, want) {
			t.Errorf("action/build.sh lacks %q", want)
		}
	}
}

func TestActionScriptsAreValidBashAndStepsPasteNoExpressions(t *testing.T) {
	a := loadAction(t)
	n := 0
	for _, s := range a.Runs.Steps {
		if s.Run == "" {
			continue
		}
		n++
		if s.Shell != "bash" {
			t.Errorf("step %q: shell %q, want bash (composite run steps must name one)", s.Name, s.Shell)
		}
		// An expression pasted into a script turns an input into code; inputs go through env.
		if strings.Contains(s.Run, "${{") {
			t.Errorf("step %q interpolates an expression into its script", s.Name)
		}
		if !strings.Contains(s.Env["ACTION_PATH"], "github.action_path") {
			t.Errorf("step %q has no ACTION_PATH to find its script by", s.Name)
		}
		cmd := exec.Command("bash", "-n")
		cmd.Stdin = strings.NewReader(s.script(t))
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("the script of step %q is not valid bash: %v\n%s", s.Name, err, out)
		}
	}
	if n < 4 {
		t.Errorf("%d run steps, want the preparation, the build, the probe and the gate", n)
	}
}

// TestActionPassesOnlyFlagsTheProberHas keeps the action and the CLI in step: every flag the
// probe script gives prober check must exist.
func TestActionPassesOnlyFlagsTheProberHas(t *testing.T) {
	script := loadAction(t).step(t, "probe").script(t)
	var v checkFlags
	fs := newCheckFlagSet(&v)
	flags := regexp.MustCompile(`(?:^|[\s(])--([a-z][a-z-]*)`).FindAllStringSubmatch(script, -1)
	if len(flags) < 5 {
		t.Fatalf("found %d flags in the probe script", len(flags))
	}
	for _, m := range flags {
		if fs.Lookup(m[1]) == nil {
			t.Errorf("the probe script passes --%s, which prober check does not have", m[1])
		}
	}
}

// runnerWithTestProber is a job whose cache holds a prober already: this test binary, which
// is prober when asMainEnv is set. The job runs the action's steps but the build.
func runnerWithTestProber(t *testing.T) *fakeRunner {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	r := newFakeRunner(t, t.TempDir())
	bin := filepath.Join(r.temp, "mcpwatch", "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(exe, filepath.Join(bin, "prober")); err != nil {
		t.Fatal(err)
	}
	r.usesOutput["bin-cache"] = map[string]string{"cache-hit": "true"}
	r.extraEnv = append(r.extraEnv, asMainEnv+"=1")
	return r
}

// checkSideEffectFree fails the test when the job's steps changed what later steps of the
// user's job see: their environment, PATH (and with them Go), or the workspace.
func checkSideEffectFree(t *testing.T, r *fakeRunner) {
	t.Helper()
	for _, f := range []string{r.envFile, r.pathFile} {
		if data, err := os.ReadFile(f); err != nil || len(data) != 0 {
			t.Errorf("the action wrote %s for the job's later steps: %q %v", filepath.Base(f), data, err)
		}
	}
	if entries, err := os.ReadDir(r.workspace); err != nil || len(entries) != 0 {
		t.Errorf("the action left files in the workspace: %v %v", entries, err)
	}
}

func TestActionReportsAFailingHTTPServerAndFailsTheJob(t *testing.T) {
	t.Parallel()
	const secret, token = "s3cr3t-api-key-0123456789", "tok-5d41402abc4b2a76b9719d911017c592"
	f := &httpFixture{mcp: fixtureMCP{name: "x", version: "1", pingResult: `[]`}, echoHeader: "Authorization"}
	srv := newHTTPFixture(t, f)
	r := runnerWithTestProber(t)
	job := r.run(map[string]string{
		"target":         srv.URL + "/mcp",
		"upload-sarif":   "true",
		"sarif-artifact": "server/mcp.json",
		"headers":        "X-Api-Key: " + secret + "\n\nX-Trace: on",
		"bearer-token":   token,
	})
	out := job.outputs["probe"]
	if out["verdict"] != "fail" || out["exit-code"] != "1" || job.code != 1 {
		t.Fatalf("job exit %d, outputs %v\n%s", job.code, out, job.log)
	}
	if !slices.Contains(job.ran, "Upload the results to code scanning") || slices.Contains(job.ran, "Build the prober") {
		t.Errorf("steps run: %q", job.ran)
	}
	for _, want := range []string{"::add-mask::" + secret, "::add-mask::" + token, "::error title=mcpwatch lifecycle.ping",
		"mcpwatch: the server fails the conformance check"} {
		if !strings.Contains(job.log, want) {
			t.Errorf("log lacks %q:\n%s", want, job.log)
		}
	}
	if strings.Count(job.log, token) != 1 {
		t.Errorf("the token appears in the log beyond its mask command")
	}
	f.mu.Lock()
	got := slices.Clone(f.received)
	f.mu.Unlock()
	if !slices.Contains(got, "Bearer "+token) {
		t.Errorf("the bearer token never reached the server (got %q)", got)
	}
	var rep struct {
		Verdict string `json:"verdict"`
	}
	data, err := os.ReadFile(out["report"])
	if err != nil || json.Unmarshal(data, &rep) != nil || rep.Verdict != "fail" {
		t.Fatalf("report %q: %v %+v", out["report"], err, rep)
	}
	sarif, err := os.ReadFile(out["sarif"])
	if err != nil || !strings.Contains(string(sarif), `"uri": "server/mcp.json"`) {
		t.Errorf("sarif %q: %v", out["sarif"], err)
	}
	if summary, _ := os.ReadFile(r.summary); !strings.HasPrefix(string(summary), "### ❌ FAIL: ") {
		t.Errorf("job summary:\n%s", summary)
	}
	for _, p := range []string{out["report"], out["sarif"], out["markdown"]} {
		if data, _ := os.ReadFile(p); strings.Contains(string(data), secret) || strings.Contains(string(data), token) {
			t.Errorf("%s holds a secret", p)
		}
	}
	checkSideEffectFree(t, r)
}

// GitHub stars out a masked value wherever it occurs in the log: the action masks the
// values of credential headers only.
func TestActionMasksCredentialHeadersOnly(t *testing.T) {
	t.Parallel()
	tests := []struct {
		header string
		masks  []string // want exactly these mask commands for it
	}{
		{"Authorization: Bearer tok-abc123", []string{"Bearer tok-abc123", "tok-abc123"}},
		{"proxy-authorization: Basic dXNlcjpwdw==", []string{"Basic dXNlcjpwdw==", "dXNlcjpwdw=="}},
		{"Cookie: sid=c00k1e", []string{"sid=c00k1e"}},
		{"X-Api-Key:   k3y-v4lue  ", []string{"k3y-v4lue"}},
		{"X-Auth-Token: t0k3n", []string{"t0k3n"}},
		{"X-Client-Secret: s3cr3t", []string{"s3cr3t"}},
		{"X-Org: acme-corp", []string{"acme-corp"}}, // named in mask-headers
		{"X-Signature: sig-9", []string{"sig-9"}},   // named too, in another case
		{"X-Tenant: ci", nil},
		{"X-Trace: on", nil},
		{"Accept-Language: en", nil},
	}
	var headers []string
	var want []string
	for _, tt := range tests {
		headers = append(headers, tt.header)
		for _, m := range tt.masks {
			want = append(want, "::add-mask::"+m)
		}
	}
	srv := newHTTPFixture(t, &httpFixture{mcp: fixtureMCP{name: "x", version: "1"}})
	job := runnerWithTestProber(t).run(map[string]string{
		"target":       srv.URL + "/mcp",
		"headers":      strings.Join(headers, "\n"),
		"mask-headers": "x-org,\nX-SIGNATURE",
	})
	var got []string
	for _, line := range strings.Split(job.log, "\n") {
		if strings.HasPrefix(line, "::add-mask::") {
			got = append(got, line)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("mask commands\n got %q\nwant %q", got, want)
	}
	if job.outputs["probe"]["exit-code"] == "2" {
		t.Errorf("the headers did not reach prober check as flags:\n%s", job.log)
	}
}

func TestActionPassesAConformantStdioServerWithExtraArgs(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	r := runnerWithTestProber(t)
	job := r.run(map[string]string{
		"command":           fixtureModeEnv + "=" + modeNoDesc + " '" + exe + "'",
		"working-directory": dir,
		"fail-on":           "warning",
		"protocol-version":  "2025-11-25",
		"args":              "--skip tools.description  --timeout 40s",
		"job-summary":       "false",
	})
	out := job.outputs["probe"]
	if out["verdict"] != "pass" || out["exit-code"] != "0" || out["sarif"] != "" || job.code != 0 {
		t.Fatalf("job exit %d, outputs %v\n%s", job.code, out, job.log)
	}
	if summary, _ := os.ReadFile(r.summary); len(summary) != 0 {
		t.Errorf("job-summary false still wrote the summary")
	}
	data, err := os.ReadFile(out["report"])
	if err != nil || !strings.Contains(string(data), `"transport": "stdio"`) || !strings.Contains(string(data), `"requestedVersion": "2025-11-25"`) ||
		strings.Contains(string(data), `"id": "tools.description"`) {
		t.Errorf("report: %v\n%s", err, data)
	}
	checkSideEffectFree(t, r)
}

func TestActionRefusesAmbiguousInputs(t *testing.T) {
	for name, inputs := range map[string]map[string]string{
		"neither": {},
		"both":    {"target": "http://127.0.0.1:1/mcp", "command": "true"},
	} {
		t.Run(name, func(t *testing.T) {
			job := runnerWithTestProber(t).run(inputs)
			out := job.outputs["probe"]
			if out["verdict"] != "error" || out["exit-code"] != "2" || job.code != 1 || !strings.Contains(job.log, "::error title=mcpwatch::give") {
				t.Errorf("job exit %d, outputs %v\n%s", job.code, out, job.log)
			}
		})
	}
}

func TestActionGateFollowsTheVerdict(t *testing.T) {
	gate := filepath.Join(actionRoot(t), "action", "gate.sh")
	tests := []struct {
		verdict, code, failJob string
		want                   int
	}{
		{"pass", "0", "true", 0},
		{"fail", "1", "true", 1},
		{"fail", "1", "false", 0},
		{"error", "2", "true", 1},
		{"error", "2", "false", 1},
		{"", "", "true", 1}, // the probe step never ran
	}
	for _, tt := range tests {
		cmd := exec.Command("bash", gate)
		cmd.Env = append(os.Environ(), "VERDICT="+tt.verdict, "EXIT_CODE="+tt.code, "INPUT_FAIL_JOB="+tt.failJob)
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if code != tt.want {
			t.Errorf("verdict %q, fail-job %s: exit %d, want %d", tt.verdict, tt.failJob, code, tt.want)
		}
	}
}
