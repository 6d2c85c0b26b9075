package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// The GitHub Action at the repository root (action.yml, its scripts in action/) is tested
// the way the runner uses it: a fake runner below reads its metadata, resolves its
// expressions and runs its bash steps for real, with the GITHUB_* and RUNNER_* files and
// variables of a job in a temporary directory. Steps that use other actions (the caches,
// setup-go, the SARIF upload) cannot run here: their inputs are resolved and recorded, and
// they answer with the outputs a test gives them (none: a cache miss).

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

// actionRoot is the action's checkout: the repository root.
func actionRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

func loadAction(t *testing.T) actionFile {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(actionRoot(t), "action.yml"))
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

// script is the file of action/ a run step runs; every run step runs one.
var scriptRun = regexp.MustCompile(`^bash "\$ACTION_PATH/(action/[a-z-]+\.sh)"$`)

func (s actionStep) script(t *testing.T) string {
	t.Helper()
	m := scriptRun.FindStringSubmatch(strings.TrimSpace(s.Run))
	if m == nil {
		t.Fatalf("step %q runs %q, not one of the action's scripts", s.Name, s.Run)
	}
	data, err := os.ReadFile(filepath.Join(actionRoot(t), m[1]))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

var (
	expression  = regexp.MustCompile(`\$\{\{\s*(.*?)\s*\}\}`)
	reference   = regexp.MustCompile(`^(inputs\.[a-z0-9-]+|steps\.[a-z0-9-]+\.outputs\.[a-z0-9-]+|github\.action_(?:path|ref|repository))$`)
	comparison  = regexp.MustCompile(`^(\S+)\s*(==|!=)\s*'([^']*)'$`)
	inputRef    = regexp.MustCompile(`\binputs\.([a-z0-9-]+)`)
	stepOutRef  = regexp.MustCompile(`\bsteps\.([a-z0-9-]+)\.outputs\.([a-z0-9-]+)`)
	outputWrite = regexp.MustCompile(`echo "([a-z-]+)=`)
)

// fakeRunner is one job's runner: its files and the values of the github context.
type fakeRunner struct {
	t          *testing.T
	action     actionFile
	root       string                       // github.action_path
	temp       string                       // RUNNER_TEMP
	workspace  string                       // GITHUB_WORKSPACE, where the steps run
	envFile    string                       // GITHUB_ENV
	pathFile   string                       // GITHUB_PATH
	summary    string                       // GITHUB_STEP_SUMMARY
	ref, repo  string                       // github.action_ref and github.action_repository: empty, as in composite actions
	serverURL  string                       // GITHUB_SERVER_URL
	extraEnv   []string                     // more variables of the job, such as where Go fetches modules
	usesOutput map[string]map[string]string // outputs of uses steps, by step id
}

func newFakeRunner(t *testing.T, temp string) *fakeRunner {
	t.Helper()
	dir := t.TempDir()
	r := &fakeRunner{
		t: t, action: loadAction(t), root: actionRoot(t), temp: temp,
		workspace: filepath.Join(dir, "workspace"),
		envFile:   filepath.Join(dir, "env"), pathFile: filepath.Join(dir, "path"), summary: filepath.Join(dir, "summary"),
		serverURL:  "http://127.0.0.1:1",
		usesOutput: map[string]map[string]string{},
	}
	for _, p := range []string{r.workspace, r.temp} {
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{r.envFile, r.pathFile, r.summary} {
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

// runnerOS and runnerArch are RUNNER_OS and RUNNER_ARCH of a runner like this machine.
func runnerOS() string {
	return map[string]string{"linux": "Linux", "darwin": "macOS", "windows": "Windows"}[runtime.GOOS]
}

func runnerArch() string {
	return map[string]string{"amd64": "X64", "arm64": "ARM64"}[runtime.GOARCH]
}

// jobRun is what a job that used the action left: each step's outputs by id, which steps
// ran, the log, the job's exit code (that of its first failing step).
type jobRun struct {
	ran     []string
	with    map[string]map[string]string // resolved inputs of the uses steps that ran, by id
	outputs map[string]map[string]string
	log     string
	code    int
}

func (r *fakeRunner) baseEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "GITHUB_") || strings.HasPrefix(k, "RUNNER_") || strings.HasPrefix(k, "INPUT_") {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "CI=true", "GITHUB_ACTIONS=true",
		"RUNNER_TEMP="+r.temp, "RUNNER_OS="+runnerOS(), "RUNNER_ARCH="+runnerArch(),
		"GITHUB_WORKSPACE="+r.workspace, "GITHUB_ENV="+r.envFile, "GITHUB_PATH="+r.pathFile,
		"GITHUB_STEP_SUMMARY="+r.summary, "GITHUB_SERVER_URL="+r.serverURL, "GITHUB_ACTION_PATH="+r.root)
}

// run runs the action's steps with the given inputs.
func (r *fakeRunner) run(inputs map[string]string) jobRun {
	t := r.t
	t.Helper()
	for k := range inputs {
		if _, ok := r.action.Inputs[k]; !ok {
			t.Fatalf("the test sets input %q, which action.yml does not declare", k)
		}
	}
	job := jobRun{with: map[string]map[string]string{}, outputs: map[string]map[string]string{}}
	var log strings.Builder
	for i, s := range r.action.Runs.Steps {
		if job.code != 0 || (s.If != "" && !r.condition(s.If, inputs, job.outputs)) {
			continue
		}
		job.ran = append(job.ran, s.Name)
		if s.Uses != "" {
			with := map[string]string{}
			for k, v := range s.With {
				with[k] = r.resolve(v, inputs, job.outputs)
			}
			job.with[s.ID] = with
			job.outputs[s.ID] = r.usesOutput[s.ID]
			continue
		}
		out := filepath.Join(t.TempDir(), "output")
		if err := os.WriteFile(out, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		env := append(r.baseEnv(), "GITHUB_OUTPUT="+out)
		for k, v := range s.Env {
			env = append(env, k+"="+r.resolve(v, inputs, job.outputs))
		}
		// As the runner runs a bash step: bash --noprofile --norc -eo pipefail {0}.
		file := filepath.Join(t.TempDir(), "step.sh")
		if err := os.WriteFile(file, []byte(s.Run), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", file)
		cmd.Env, cmd.Dir = append(env, r.extraEnv...), r.workspace
		var stdout bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stdout
		err := cmd.Run()
		log.WriteString(stdout.String())
		if ee, ok := err.(*exec.ExitError); ok {
			job.code = ee.ExitCode()
		} else if err != nil {
			t.Fatalf("step %d %q: %v", i, s.Name, err)
		}
		job.outputs[s.ID] = readStepOutputs(t, out)
	}
	job.log = log.String()
	return job
}

func readStepOutputs(t *testing.T, file string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), "=")
		if !ok {
			t.Fatalf("GITHUB_OUTPUT line %q is not name=value", sc.Text())
		}
		out[k] = v
	}
	return out
}

// value is one reference of an expression: an input (or its default), a step's output, or
// the github context of a composite action.
func (r *fakeRunner) value(ref string, inputs map[string]string, outputs map[string]map[string]string) string {
	r.t.Helper()
	if !reference.MatchString(ref) {
		r.t.Fatalf("the fake runner does not know the expression %q: keep the action's expressions this simple", ref)
	}
	switch {
	case strings.HasPrefix(ref, "inputs."):
		name := strings.TrimPrefix(ref, "inputs.")
		if v, ok := inputs[name]; ok {
			return v
		}
		in, ok := r.action.Inputs[name]
		if !ok {
			r.t.Fatalf("%q: no such input", ref)
		}
		if in.Default != nil {
			return *in.Default
		}
		return ""
	case strings.HasPrefix(ref, "steps."):
		m := stepOutRef.FindStringSubmatch(ref)
		return outputs[m[1]][m[2]]
	case ref == "github.action_path":
		return r.root
	case ref == "github.action_ref":
		return r.ref
	default:
		return r.repo
	}
}

func (r *fakeRunner) resolve(v string, inputs map[string]string, outputs map[string]map[string]string) string {
	return expression.ReplaceAllStringFunc(v, func(e string) string {
		return r.value(expression.FindStringSubmatch(e)[1], inputs, outputs)
	})
}

// condition evaluates an if: comparisons of a reference with a string, joined by &&.
func (r *fakeRunner) condition(cond string, inputs map[string]string, outputs map[string]map[string]string) bool {
	r.t.Helper()
	m := expression.FindStringSubmatch(strings.TrimSpace(cond))
	if m == nil {
		r.t.Fatalf("if %q is not one ${{ }} expression", cond)
	}
	for _, term := range strings.Split(m[1], "&&") {
		c := comparison.FindStringSubmatch(strings.TrimSpace(term))
		if c == nil {
			r.t.Fatalf("the fake runner does not know the condition %q", term)
		}
		if (r.value(c[1], inputs, outputs) == c[3]) != (c[2] == "==") {
			return false
		}
	}
	return true
}
