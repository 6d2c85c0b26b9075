package probe

import (
	"context"
	"encoding/json"
	"regexp"

	"github.com/mcpwatch/mcpwatch/protocol"
)

// Step names of the prompt, completion and logging reads that end the main session (see
// session.probeFeatureReads).
const (
	// StepPromptGet: prompts/get of a listed prompt that needs no argument (prompts.get).
	StepPromptGet = "prompts-get"
	// StepPromptGetUnknown: prompts/get of a name the server does not list (prompts.get-invalid).
	StepPromptGetUnknown = "prompts-get-unknown"
	// StepPromptGetMissingArgument: prompts/get of a listed prompt without its required
	// argument (prompts.get-invalid).
	StepPromptGetMissingArgument = "prompts-get-missing-argument"
	// StepComplete: completion/complete of the first argument of a listed prompt or the first
	// variable of a listed template (completion.complete).
	StepComplete = "completion-complete"
	// StepSetLevel, StepSetLevelInvalid and StepSetLevelRestore: logging/setLevel with
	// ProbeLogLevel, with InvalidLogLevel, and ProbeLogLevel again when the server took the
	// invalid one (logging.set-level).
	StepSetLevel        = "logging-set-level"
	StepSetLevelInvalid = "logging-set-level-invalid"
	StepSetLevelRestore = "logging-set-level-restore"
)

const (
	// UnknownPromptPrefix starts the prompt name the probe invents, followed by random hex.
	UnknownPromptPrefix = "mcpwatch-no-such-prompt-"
	// ProbeLogLevel is the level the probe sets, and leaves: the specification has no way to
	// read the level back, and info is the usual default of logging libraries, so a server
	// that keeps one level for all its clients is most likely left where it was.
	ProbeLogLevel = "info"
	// InvalidLogLevel is a level outside the LoggingLevel enumeration.
	InvalidLogLevel = "loud"
	// maxPromptGets bounds the prompts/get of prompts that need no argument.
	maxPromptGets = 2
)

// probeFeatureReads ends the main session, after the tool probes, with reads of what the
// server declares: prompts/get, completion/complete and logging/setLevel. None calls a tool;
// setLevel is sent only to a server that declares logging, and leaves the level at
// ProbeLogLevel. Like the tool probes it is left out where the rule probes run elsewhere.
func (s *session) probeFeatureReads(ctx context.Context, handshake json.RawMessage, revision string) {
	if !s.o.rulesHere() {
		return
	}
	prompts, complete := s.listedPrompts()
	if declaresCapability(handshake, "prompts") {
		s.probePrompts(ctx, prompts, complete)
	}
	s.probeCompletion(ctx, handshake, revision, prompts)
	if declaresCapability(handshake, "logging") && !protocol.Stateless(revision) {
		s.probeLogging(ctx)
	}
}

// listedPrompt is what the probe needs of a listed prompt.
type listedPrompt struct {
	Name      string `json:"name"`
	Arguments []struct {
		Name     string `json:"name"`
		Required bool   `json:"required"`
	} `json:"arguments"`
}

func (p listedPrompt) needsArgument() bool {
	for _, a := range p.Arguments {
		if a.Required {
			return true
		}
	}
	return false
}

// listedPrompts are the prompts of the session's prompts/list pages; complete is false when a
// page failed, did not decode, or the listing did not end.
func (s *session) listedPrompts() (prompts []listedPrompt, complete bool) {
	pages, complete := s.listPages(StepPromptsList)
	for _, raw := range pages {
		var page struct {
			Prompts []listedPrompt `json:"prompts"`
		}
		if json.Unmarshal(raw, &page) != nil {
			return prompts, false
		}
		prompts = append(prompts, page.Prompts...)
	}
	return prompts, complete
}

// probePrompts gets up to maxPromptGets prompts that need no argument, a prompt the server
// does not list (only when the listing was complete, so that the name is surely not
// listed), and the first prompt with a required argument without its arguments.
func (s *session) probePrompts(ctx context.Context, prompts []listedPrompt, complete bool) {
	gets := 0
	var needy *listedPrompt
	listed := map[string]bool{}
	for i, p := range prompts {
		listed[p.Name] = true
		switch {
		case p.Name == "":
		case p.needsArgument():
			if needy == nil {
				needy = &prompts[i]
			}
		case gets < maxPromptGets:
			gets++
			params, _ := json.Marshal(map[string]any{"name": p.Name})
			s.call(ctx, StepPromptGet, "prompts/get", params, s.o.RequestTimeout, 0)
		}
	}
	if complete {
		name := UnknownPromptPrefix + randomSuffix()
		for listed[name] {
			name = UnknownPromptPrefix + randomSuffix()
		}
		params, _ := json.Marshal(map[string]any{"name": name})
		s.call(ctx, StepPromptGetUnknown, "prompts/get", params, s.o.RequestTimeout, 0)
	}
	if needy != nil {
		params, _ := json.Marshal(map[string]any{"name": needy.Name, "arguments": map[string]string{}})
		s.call(ctx, StepPromptGetMissingArgument, "prompts/get", params, s.o.RequestTimeout, 0)
	}
}

// templateVariable finds the first variable of an RFC 6570 URI template ({id}, {+path},
// {?q,lang}): its name, without operator or modifiers.
var templateVariable = regexp.MustCompile(`\{[+#./;?&]?([A-Za-z0-9_%.]+)`)

// probeCompletion asks completion/complete for an empty value of the first argument of a
// listed prompt, or else of the first variable of a listed template: from a server that
// declares completions (2025-03-26 and later, where the capability exists), and once from a
// server that lists either without declaring it, to see whether it serves it anyway.
func (s *session) probeCompletion(ctx context.Context, handshake json.RawMessage, revision string, prompts []listedPrompt) {
	if revision == protocol.Revision20241105 {
		return
	}
	var ref map[string]any
	var argument string
	for _, p := range prompts {
		if len(p.Arguments) > 0 && p.Name != "" && p.Arguments[0].Name != "" {
			ref, argument = map[string]any{"type": "ref/prompt", "name": p.Name}, p.Arguments[0].Name
			break
		}
	}
	if ref == nil {
		ref, argument = s.templateReference()
	}
	if ref == nil {
		return
	}
	params, _ := json.Marshal(map[string]any{"ref": ref, "argument": map[string]string{"name": argument, "value": ""}})
	s.call(ctx, StepComplete, "completion/complete", params, s.o.RequestTimeout, 0)
}

// templateReference is the completion reference of the first listed template with a
// variable, and that variable's name.
func (s *session) templateReference() (map[string]any, string) {
	pages, _ := s.listPages(StepTemplatesList)
	for _, raw := range pages {
		var page struct {
			ResourceTemplates []struct {
				URITemplate string `json:"uriTemplate"`
			} `json:"resourceTemplates"`
		}
		if json.Unmarshal(raw, &page) != nil {
			continue
		}
		for _, t := range page.ResourceTemplates {
			if m := templateVariable.FindStringSubmatch(t.URITemplate); m != nil {
				return map[string]any{"type": "ref/resource", "uri": t.URITemplate}, m[1]
			}
		}
	}
	return nil, ""
}

// probeLogging sets ProbeLogLevel, then InvalidLogLevel, and ProbeLogLevel again when the
// server took the invalid level, so that the level is left a valid one.
func (s *session) probeLogging(ctx context.Context) {
	level := func(name, l string) Step {
		params, _ := json.Marshal(map[string]string{"level": l})
		return s.call(ctx, name, "logging/setLevel", params, s.o.RequestTimeout, 0)
	}
	level(StepSetLevel, ProbeLogLevel)
	if st := level(StepSetLevelInvalid, InvalidLogLevel); st.Outcome == OutcomeOK {
		level(StepSetLevelRestore, ProbeLogLevel)
	}
}
