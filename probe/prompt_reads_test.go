package probe

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/mcpwatch/mcpwatch/internal/testkit/fixture"
)

// featureRead is one request of the prompt, completion and logging reads as the server got it.
type featureRead struct {
	method, name, level string
	arguments           map[string]string
	hasArguments        bool
}

func featureReads(t *testing.T, rh *recordingHandler) []featureRead {
	t.Helper()
	var out []featureRead
	for _, req := range rh.all() {
		var m struct {
			Method string `json:"method"`
			Params struct {
				Name      string             `json:"name"`
				Level     string             `json:"level"`
				Arguments *map[string]string `json:"arguments"`
			} `json:"params"`
		}
		if json.Unmarshal(req.body, &m) != nil {
			continue
		}
		switch m.Method {
		case "prompts/get", "completion/complete", "logging/setLevel":
			r := featureRead{method: m.Method, name: m.Params.Name, level: m.Params.Level, hasArguments: m.Params.Arguments != nil}
			if m.Params.Arguments != nil {
				r.arguments = *m.Params.Arguments
			}
			out = append(out, r)
		}
	}
	return out
}

// The main session gets the prompts that need no argument (at most two), one unknown name and
// one prompt without its required argument, asks one completion, and sets the log level and
// an invalid one; never a prompt with arguments filled in, never a tool.
func TestFeatureReadsAreBoundedAndReadOnly(t *testing.T) {
	_, rh, url := fixtureServer(t, fixture.ConformantFull)
	res, _ := runProbe(t, Target{URL: url}, ruleTestOptions())
	reads := featureReads(t, rh)
	var got []string
	for _, r := range reads {
		switch {
		case r.method == "prompts/get" && strings.HasPrefix(r.name, UnknownPromptPrefix):
			got = append(got, "get unknown")
		case r.method == "prompts/get" && r.hasArguments:
			if len(r.arguments) != 0 {
				t.Errorf("prompts/get of %q with arguments %v", r.name, r.arguments)
			}
			got = append(got, "get "+r.name+" without arguments")
		case r.method == "prompts/get":
			got = append(got, "get "+r.name)
		case r.method == "logging/setLevel":
			got = append(got, "setLevel "+r.level)
		default:
			got = append(got, r.method)
		}
	}
	want := []string{"get status", "get logo", "get unknown", "get greeting without arguments", "completion/complete", "setLevel info", "setLevel loud"}
	if !slices.Equal(got, want) {
		t.Errorf("reads %q, want %q", got, want)
	}
	for _, name := range []string{StepPromptGet, StepPromptGetUnknown, StepPromptGetMissingArgument, StepComplete, StepSetLevel, StepSetLevelInvalid} {
		if _, ok := findStep(res, ConnMain, name); !ok {
			t.Errorf("no step %s on the main connection", name)
		}
	}
}

// A server that takes the invalid level gets the probe's level again.
func TestSetLevelIsRestoredAfterAnInvalidLevelWasTaken(t *testing.T) {
	_, rh, url := fixtureServer(t, fixture.SetLevelInvalidOK)
	runProbe(t, Target{URL: url}, ruleTestOptions())
	var levels []string
	for _, r := range featureReads(t, rh) {
		if r.method == "logging/setLevel" {
			levels = append(levels, r.level)
		}
	}
	if want := []string{ProbeLogLevel, InvalidLogLevel, ProbeLogLevel}; !slices.Equal(levels, want) {
		t.Errorf("levels %q, want %q", levels, want)
	}
}

// Where the rule probes run elsewhere, so do the reads; a server that declares nothing gets
// none of them.
func TestFeatureReadsFollowTheRuleProbes(t *testing.T) {
	for _, c := range []struct {
		name  string
		fault fixture.Fault
		o     func(o *Options)
	}{
		{"rules elsewhere", fixture.ConformantFull, func(o *Options) { o.RulesElsewhere = "in another probe" }},
		{"rules skipped", fixture.ConformantFull, func(o *Options) { o.skipRules = true }},
		{"nothing declared", fixture.Conformant, func(*Options) {}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, rh, url := fixtureServer(t, c.fault)
			o := ruleTestOptions()
			c.o(&o)
			runProbe(t, Target{URL: url}, o)
			if reads := featureReads(t, rh); len(reads) > 0 {
				t.Errorf("sent %+v", reads)
			}
		})
	}
}

func findStep(res *Result, conn int, name string) (Step, bool) {
	for _, st := range res.Steps {
		if st.Conn == conn && st.Name == name {
			return st, true
		}
	}
	return Step{}, false
}
