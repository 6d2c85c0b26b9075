package report

import (
	"fmt"

	"github.com/mcpwatch/mcpwatch/checks"
)

// Bounds of the plain evidence text that CI formats carry (JUnit bodies, annotations, SARIF
// messages, PR comments): each line is clipped, the frames shown per evidence are few.
const (
	plainMessageWidth = 600
	plainFrameWidth   = 160
)

// evidenceLines renders the evidence of a check as plain lines, without colour, showing the
// bytes of each frame it cites once: the readers of a CI log or a test report cannot ask for
// the transcript. Every line is printable (control bytes escaped).
func evidenceLines(r *Report, c Check) []string {
	frames := &textWriter{r: r} // palette off: frameLine needs only the report
	var out []string
	if len(c.Evidence) == 0 && c.Message != "" {
		out = append(out, clip(c.Message, plainMessageWidth))
	}
	shown := map[int]bool{}
	for _, e := range c.Evidence {
		msg := clip(e.Message, plainMessageWidth)
		if e.Tool != "" {
			msg = "tool " + clip(e.Tool, 80) + ": " + msg
		}
		if len(e.Frames) > 0 {
			msg += "  " + frameRefs(e.Frames)
		}
		out = append(out, severityWord(e.Severity)+msg)
		n := 0
		for _, seq := range e.Frames {
			if shown[seq] {
				continue
			}
			f, ok := r.Frame(seq)
			if !ok {
				continue
			}
			if n == citedPerItem {
				out = append(out, "    …")
				break
			}
			out = append(out, "    "+frames.frameLine(f, plainFrameWidth))
			if h := headerEvidence(c.ID, f); h != "" {
				out = append(out, "    "+frameHeaderIndent+clip(h, plainMessageWidth))
			}
			shown[seq] = true
			n++
		}
	}
	if c.MoreEvidence > 0 {
		out = append(out, fmt.Sprintf("… and %s not shown", plural(c.MoreEvidence, "more occurrence", "more occurrences")))
	}
	if c.Spec != "" {
		out = append(out, "spec: "+specText(c.Spec))
	}
	if c.Hint != "" {
		out = append(out, "hint: "+clip(c.Hint, plainMessageWidth))
	}
	return out
}

// specText is a check's link, with the document's name when the rule comes from JSON-RPC 2.0
// or an RFC rather than the MCP specification.
func specText(link string) string {
	if doc := checks.ExternalSpec(link); doc != "" {
		return doc + " " + clip(link, 200)
	}
	return clip(link, 200)
}

func severityWord(s string) string {
	switch checks.Severity(s) {
	case checks.SeverityError:
		return "error: "
	case checks.SeverityWarning:
		return "warning: "
	case checks.SeverityAdvice:
		return "advice: "
	}
	return "note: "
}

// failsVerdict reports whether a check counts against the verdict (failing at the threshold
// and not accepted by the baseline).
func (r *Report) failsVerdict(c Check) bool {
	return failsAt(c, checks.Severity(r.FailOn)) && !c.Baselined
}
