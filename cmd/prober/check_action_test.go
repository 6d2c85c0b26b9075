package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// The GitHub Action at the repository root (action.yml) is tested the way the runner uses
// it: its metadata is parsed, its expressions resolved, and its bash steps run for real
// against loopback fixtures, with this test binary as the prober.

type actionFile struct {
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
	Inputs      map[string]struct {
		Description string  `yaml:"description"`
		Required    bool    `yaml:"required"`
		Default     *string `yaml:"default"`
	} `yaml:"inputs"`
	Outputs map[string]struct {
		Description string `yaml:"description"`
		Value       string `yaml:"value"`
	} `yaml:"outputs"`
	Runs struct {
		Using string       `yaml:"using"`
		Steps []actionStep `yaml:"steps"`
	} `yaml:"runs"`
}

type actionStep struct {
	Name  string            `yaml:"name"`
	ID    string            `yaml:"id"`
	If    string            `yaml:"if"`
	Uses  string            `yaml:"uses"`
	Shell string            `yaml:"shell"`
	Run   string            `yaml:"run"`
	With  map[string]string `yaml:"with"`
	Env   map[string]string `yaml:"env"`
}

func loadAction(t *testing.T) actionFile {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var a actionFile
	if err := yaml.Unmarshal(raw, &a); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	return a
}

func (a actionFile) step(t *testing.T, id string) actionStep {
	t.Helper()
	for _, s := range a.Runs.Steps {
		if s.ID == id {
			return s
		}
	}
	t.Fatalf("action.yml has no step with id %q", id)
	return actionStep{}
}

var (
	expression = regexp.MustCompile(`\$\{\{\s*(.*?)\s*\}\}`)
	inputRef   = regexp.MustCompile(`\binputs\.([a-z0-9-]+)`)
	stepOutRef = regexp.MustCompile(`\bsteps\.([a-z0-9-]+)\.outputs\.([a-z0-9-]+)`)
)

// expressions lists every ${{ }} of the action outside run scripts, and the if conditions.
func (a actionFile) expressions() []string {
	var out []string
	add := func(s string) {
		for _, m := range expression.FindAllStringSubmatch(s, -1) {
			out = append(out, m[1])
		}
	}
	for _, o := range a.Outputs {
		add(o.Value)
	}
	for _, s := range a.Runs.Steps {
		add(s.If)
		for _, v := range s.With {
			add(v)
		}
		for _, v := range s.Env {
			add(v)
		}
	}
	return out
}

func TestActionMetadataIsConsistent(t *testing.T) {
	a := loadAction(t)
	if a.Name == "" || a.Description == "" || a.Runs.Using != "composite" {
		t.Fatalf("name %q, description %q, using %q", a.Name, a.Description, a.Runs.Using)
	}
	exprs := a.expressions()
	used := map[string]bool{}
	for _, e := range exprs {
		for _, m := range inputRef.FindAllStringSubmatch(e, -1) {
			used[m[1]] = true
			if _, ok := a.Inputs[m[1]]; !ok {
				t.Errorf("expression %q uses the undeclared input %q", e, m[1])
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
	// Every step output read is one a step with that id writes.
	ids := map[string]actionStep{}
	for _, s := range a.Runs.Steps {
		if s.ID != "" {
			ids[s.ID] = s
		}
	}
	for _, e := range exprs {
		for _, m := range stepOutRef.FindAllStringSubmatch(e, -1) {
			s, ok := ids[m[1]]
			if !ok {
				t.Errorf("expression %q reads step %q, which does not exist", e, m[1])
				continue
			}
			if !strings.Contains(s.Run, `echo "`+m[2]+`=`) {
				t.Errorf("expression %q reads output %q, which step %q never writes", e, m[2], m[1])
			}
		}
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
	for _, want := range []string{"actions/setup-go", "github/codeql-action/upload-sarif"} {
		if !slices.Contains(uses, want) {
			t.Errorf("no step uses %s (uses: %v)", want, uses)
		}
	}
	if build := a.step(t, "build"); !strings.Contains(build.Run, "go build") || !strings.Contains(build.Run, "./cmd/prober") ||
		!strings.Contains(build.Env["ACTION_PATH"], "github.action_path") {
		t.Errorf("the build step does not build ./cmd/prober from the action's checkout:\n%s", build.Run)
	} else if !strings.Contains(build.Run, "CGO_ENABLED=0 go build") {
		t.Errorf("the build step does not build the static binary the README and the benchmarks build:\n%s", build.Run)
	}
}

func TestActionRunStepsAreValidBashWithoutExpressions(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash on this machine")
	}
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
		cmd := exec.Command(bash, "-n")
		cmd.Stdin = strings.NewReader(s.Run)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("step %q is not valid bash: %v\n%s", s.Name, err, out)
		}
	}
	if n < 3 {
		t.Errorf("%d run steps, want the build, the probe and the gate", n)
	}
}

// TestActionPassesOnlyFlagsTheProberHas keeps the action and the CLI in step: every flag the
// probe step gives prober check must exist.
func TestActionPassesOnlyFlagsTheProberHas(t *testing.T) {
	script := loadAction(t).step(t, "probe").Run
	var v checkFlags
	fs := newCheckFlagSet(&v)
	flags := regexp.MustCompile(`(?:^|[\s(])--([a-z][a-z-]*)`).FindAllStringSubmatch(script, -1)
	if len(flags) < 5 {
		t.Fatalf("found %d flags in the probe step", len(flags))
	}
	for _, m := range flags {
		if fs.Lookup(m[1]) == nil {
			t.Errorf("the probe step passes --%s, which prober check does not have", m[1])
		}
	}
	var _ *flag.FlagSet = fs
}

// actionRun is one run of the probe step with given inputs.
type actionRun struct {
	code    int
	stdout  string
	outputs map[string]string
	summary string
}

// runProbeStep runs the probe step's script as the runner would: its env resolved from the
// inputs (or their defaults), GITHUB_OUTPUT and GITHUB_STEP_SUMMARY files, and this test
// binary as the prober it built.
func runProbeStep(t *testing.T, inputs map[string]string) actionRun {
	t.Helper()
	a := loadAction(t)
	step := a.step(t, "probe")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	outFile, summaryFile := filepath.Join(tmp, "output"), filepath.Join(tmp, "summary")
	env := append(os.Environ(), "RUNNER_TEMP="+tmp, "GITHUB_OUTPUT="+outFile, "GITHUB_STEP_SUMMARY="+summaryFile, asMainEnv+"=1")
	for k, v := range step.Env {
		env = append(env, k+"="+resolve(t, a, v, inputs, map[string]string{"steps.build.outputs.prober": exe}))
	}
	for k := range inputs {
		if _, ok := a.Inputs[k]; !ok {
			t.Fatalf("the test sets input %q, which action.yml does not declare", k)
		}
	}
	cmd := exec.Command("bash", "-c", step.Run)
	cmd.Env = env
	cmd.Dir = tmp
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	run := actionRun{stdout: stdout.String(), outputs: map[string]string{}}
	if ee, ok := err.(*exec.ExitError); ok {
		run.code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(outFile); err == nil {
		sc := bufio.NewScanner(bytes.NewReader(data))
		for sc.Scan() {
			k, v, _ := strings.Cut(sc.Text(), "=")
			run.outputs[k] = v
		}
	}
	if data, err := os.ReadFile(summaryFile); err == nil {
		run.summary = string(data)
	}
	if run.code != 0 {
		t.Fatalf("the probe step exited %d (it reports through its outputs and always succeeds)\n%s\n%s", run.code, run.stdout, stderr.String())
	}
	return run
}

// resolve evaluates the expressions of an env value: inputs (their defaults when the test
// sets none) and the values given; any other expression fails the test, which keeps the
// action's expressions as simple as this.
func resolve(t *testing.T, a actionFile, v string, inputs, known map[string]string) string {
	return expression.ReplaceAllStringFunc(v, func(e string) string {
		inner := expression.FindStringSubmatch(e)[1]
		if m := regexp.MustCompile(`^inputs\.([a-z0-9-]+)$`).FindStringSubmatch(inner); m != nil {
			if val, ok := inputs[m[1]]; ok {
				return val
			}
			if d := a.Inputs[m[1]].Default; d != nil {
				return *d
			}
			return ""
		}
		if val, ok := known[inner]; ok {
			return val
		}
		t.Fatalf("cannot resolve %q", e)
		return ""
	})
}

func TestActionProbeStepReportsAFailingHTTPServer(t *testing.T) {
	t.Parallel()
	const secret, token = "s3cr3t-api-key-0123456789", "tok-5d41402abc4b2a76b9719d911017c592"
	f := &httpFixture{mcp: fixtureMCP{name: "x", version: "1", pingResult: `[]`}, echoHeader: "Authorization"}
	srv := newHTTPFixture(t, f)
	run := runProbeStep(t, map[string]string{
		"target":         srv.URL + "/mcp",
		"upload-sarif":   "true",
		"sarif-artifact": "server/mcp.json",
		"headers":        "X-Api-Key: " + secret + "\n\nX-Trace: on",
		"bearer-token":   token,
	})
	if run.outputs["verdict"] != "fail" || run.outputs["exit-code"] != "1" {
		t.Fatalf("outputs %v\n%s", run.outputs, run.stdout)
	}
	for _, want := range []string{"::add-mask::" + secret, "::add-mask::" + token, "::error title=mcpwatch lifecycle.ping"} {
		if !strings.Contains(run.stdout, want) {
			t.Errorf("log lacks %q:\n%s", want, run.stdout)
		}
	}
	if strings.Count(run.stdout, token) != 1 {
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
	data, err := os.ReadFile(run.outputs["report"])
	if err != nil || json.Unmarshal(data, &rep) != nil || rep.Verdict != "fail" {
		t.Fatalf("report %q: %v %+v", run.outputs["report"], err, rep)
	}
	sarif, err := os.ReadFile(run.outputs["sarif"])
	if err != nil || !strings.Contains(string(sarif), `"uri": "server/mcp.json"`) {
		t.Errorf("sarif %q: %v", run.outputs["sarif"], err)
	}
	if !strings.HasPrefix(run.summary, "### ❌ FAIL: ") {
		t.Errorf("job summary:\n%s", run.summary)
	}
	for _, p := range []string{run.outputs["report"], run.outputs["sarif"], run.outputs["markdown"]} {
		if data, _ := os.ReadFile(p); strings.Contains(string(data), secret) || strings.Contains(string(data), token) {
			t.Errorf("%s holds a secret", p)
		}
	}
}

func TestActionProbeStepPassesAConformantStdioServerWithExtraArgs(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	run := runProbeStep(t, map[string]string{
		"command":           fixtureModeEnv + "=" + modeNoDesc + " '" + exe + "'",
		"working-directory": dir,
		"fail-on":           "warning",
		"protocol-version":  "2025-11-25",
		"args":              "--skip tools.description  --timeout 40s",
		"job-summary":       "false",
	})
	if run.outputs["verdict"] != "pass" || run.outputs["exit-code"] != "0" || run.outputs["sarif"] != "" {
		t.Fatalf("outputs %v\n%s", run.outputs, run.stdout)
	}
	if run.summary != "" {
		t.Errorf("job-summary false still wrote the summary")
	}
	data, err := os.ReadFile(run.outputs["report"])
	if err != nil || !strings.Contains(string(data), `"transport": "stdio"`) || !strings.Contains(string(data), `"requestedVersion": "2025-11-25"`) ||
		strings.Contains(string(data), `"id": "tools.description"`) {
		t.Errorf("report: %v\n%s", err, data)
	}
}

func TestActionProbeStepRefusesAmbiguousInputs(t *testing.T) {
	for name, inputs := range map[string]map[string]string{
		"neither": {},
		"both":    {"target": "http://127.0.0.1:1/mcp", "command": "true"},
	} {
		t.Run(name, func(t *testing.T) {
			run := runProbeStep(t, inputs)
			if run.outputs["verdict"] != "error" || run.outputs["exit-code"] != "2" || !strings.Contains(run.stdout, "::error title=mcpwatch::") {
				t.Errorf("outputs %v\n%s", run.outputs, run.stdout)
			}
		})
	}
}

func TestActionGateFollowsTheVerdict(t *testing.T) {
	a := loadAction(t)
	var gate actionStep
	for _, s := range a.Runs.Steps {
		if strings.Contains(s.Run, "$VERDICT") {
			gate = s
		}
	}
	if gate.Run == "" {
		t.Fatal("no step gates on the verdict")
	}
	tests := []struct {
		verdict, code, failJob string
		want                   int
	}{
		{"pass", "0", "true", 0},
		{"fail", "1", "true", 1},
		{"fail", "1", "false", 0},
		{"error", "2", "true", 1},
		{"error", "2", "false", 1},
	}
	for _, tt := range tests {
		cmd := exec.Command("bash", "-c", gate.Run)
		cmd.Env = append(os.Environ(), "VERDICT="+tt.verdict, "EXIT_CODE="+tt.code, "INPUT_FAIL_JOB="+tt.failJob)
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if code != tt.want {
			t.Errorf("verdict %s, fail-job %s: exit %d, want %d", tt.verdict, tt.failJob, code, tt.want)
		}
	}
}
