package checks

import (
	"errors"
	"fmt"

	"github.com/mcpwatch/mcpwatch/checks/mcpschema"
	"github.com/mcpwatch/mcpwatch/probe"
)

// With --official-schemas the messages the checks validate with this project's schemas are
// validated with the specification's own files too, and what they say lands on the check
// that judges the message:
//   - the official schema rejects a message ours accepts: error evidence ("official schema
//     …: …"), so the check fails; the user asked to be judged by the official files;
//   - ours rejects a message the official schema accepts: evidence without severity (a
//     note) saying so, which leaves the status alone: our schema may be stricter than the
//     file where the specification's text is, or wrong, and the note lets a user see which;
//   - both reject: nothing more (the check already failed, and says why);
//   - the directory has no file or definition for the revision: a note on the check.

// officialTarget is a message a check validates by schema: the result of a main-connection
// step (by name, or by method when Step is "") against a definition.
type officialTarget struct {
	Check, Step, Method, Definition string
}

func officialTargets() []officialTarget {
	return []officialTarget{
		{Check: "lifecycle.initialize-result", Step: probe.StepInitialize, Definition: "InitializeResult"},
		{Check: "discover.result", Method: "server/discover", Definition: "DiscoverResult"},
		{Check: "tools.list", Step: probe.StepToolsList, Definition: "ListToolsResult"},
		{Check: "resources.list", Step: probe.StepResourcesList, Definition: "ListResourcesResult"},
		{Check: "resources.templates-list", Step: probe.StepTemplatesList, Definition: "ListResourceTemplatesResult"},
		{Check: "prompts.list", Step: probe.StepPromptsList, Definition: "ListPromptsResult"},
	}
}

// CrossCheckOfficial validates the results the checks judge by schema with both ours and the
// official schemas, and records what the official ones add on the findings of those checks
// (see above). Findings of checks that were not run are left alone. It returns findings.
func CrossCheckOfficial(res *probe.Result, findings []Finding, ours *mcpschema.Validator, official *mcpschema.Official) []Finding {
	rev := res.ProtocolVersion
	if rev == "" {
		rev = res.Requested
	}
	index := map[string]int{}
	for i, f := range findings {
		index[f.ID] = i
	}
	for _, t := range officialTargets() {
		i, ok := index[t.Check]
		if !ok || findings[i].Status == StatusSkip {
			continue
		}
		f := &findings[i]
		var steps []probe.Step
		for _, st := range res.Steps {
			if st.Conn == probe.ConnMain && st.Outcome == probe.OutcomeOK && st.Result != nil &&
				(t.Step != "" && st.Name == t.Step || t.Step == "" && st.Method == t.Method) {
				steps = append(steps, st)
			}
		}
		if len(steps) == 0 {
			continue
		}
		changed := false
		if err := official.Has(rev, t.Definition); err != nil {
			f.add(Evidence{Message: fmt.Sprintf("not checked with the official schemas: %v", err)})
			changed = true
		} else {
			for _, st := range steps {
				changed = crossCheckOne(f, rev, t.Definition, st, ours, official) || changed
			}
		}
		if changed {
			f.settle()
		}
	}
	return findings
}

// crossCheckOne validates one result both ways and records the difference; it reports
// whether it added evidence.
func crossCheckOne(f *Finding, rev, def string, st probe.Step, ours *mcpschema.Validator, official *mcpschema.Official) bool {
	doc, err := mcpschema.Decode(st.Result)
	if err != nil {
		return false // not JSON: the check itself says so
	}
	frames := Seqs(st.Response)
	what := def
	if st.Page > 1 {
		what = fmt.Sprintf("%s (page %d)", def, st.Page)
	}
	theirs := official.Validate(rev, def, doc)
	mine := ours.ValidateValue(rev, def, doc)
	var theirViolation, myViolation *mcpschema.Violation
	theyReject := errors.As(theirs, &theirViolation)
	iReject := errors.As(mine, &myViolation)
	switch {
	case theirs != nil && !theyReject:
		f.add(Evidence{Message: fmt.Sprintf("the official schema %s could not judge the %s: %v", official.File(rev), what, theirs), Frames: frames})
	case theyReject && !iReject:
		f.add(Evidence{Severity: SeverityError, Frames: frames,
			Message: fmt.Sprintf("official schema %s: the %s does not match: %s", official.File(rev), what, Clip([]byte(theirViolation.Error())))})
	case iReject && theirs == nil:
		f.add(Evidence{Frames: frames,
			Message: fmt.Sprintf("the official schema %s accepts this %s, which mcpwatch's own schema rejects (%s): the two disagree",
				official.File(rev), what, Clip([]byte(myViolation.Error())))})
	default:
		return false
	}
	return true
}
