package checks

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/protocol"
)

// promptChecks judge prompts/get: of listed prompts that need no argument (the result), and
// of a name the server does not list and a prompt without its required argument (the error).
func promptChecks() []Check {
	return []Check{
		{ID: "prompts.get", Area: "prompts", Rule: "-", Spec: specPrompts + "#getting-a-prompt",
			Title:    "prompts/get of a listed prompt that needs no argument returns a GetPromptResult with valid content",
			Evaluate: checkPromptGet},
		{ID: "prompts.get-invalid", Area: "prompts", Rule: "B", Spec: specPrompts + "#error-handling",
			Title:    "prompts/get of an unknown prompt, or without a required argument, gets error -32602",
			Evaluate: checkPromptGetInvalid},
	}
}

// promptsDeclared skips a check when the server declares no prompts.
func promptsDeclared(r *Capture, f *Finding) bool {
	switch _, handshake := r.Handshake(); {
	case handshake == probe.HandshakeNone:
		f.Untested("no initialize or discover result, so no declared capabilities to judge prompts by")
	case !r.Declares("prompts"):
		f.Skip("server declares no prompts capability")
	default:
		return true
	}
	return false
}

// promptListing is what the checks need of the main connection's prompts/list pages.
type promptListing struct {
	failed   *probe.Step // the first page that got no result, if any
	free     int         // prompts with no required argument
	needy    int         // prompts with one
	complete bool        // every page answered and the last had no nextCursor
}

func listPrompts(r *Capture) promptListing {
	var l promptListing
	pages := stepsOn(r, probe.ConnMain, probe.StepPromptsList)
	for i, st := range pages {
		var page struct {
			Prompts []struct {
				Arguments []struct {
					Required bool `json:"required"`
				} `json:"arguments"`
			} `json:"prompts"`
			NextCursor json.RawMessage `json:"nextCursor"`
		}
		if st.Outcome != probe.OutcomeOK || json.Unmarshal(st.Result, &page) != nil {
			l.failed = &pages[i]
			return l
		}
		for _, p := range page.Prompts {
			needy := false
			for _, a := range p.Arguments {
				needy = needy || a.Required
			}
			if needy {
				l.needy++
			} else {
				l.free++
			}
		}
		l.complete = i == len(pages)-1 && (len(page.NextCursor) == 0 || string(page.NextCursor) == "null")
	}
	return l
}

func checkPromptGet(r *Capture, f *Finding) {
	if !promptsDeclared(r, f) {
		return
	}
	gets := stepsOn(r, probe.ConnMain, probe.StepPromptGet)
	if len(gets) == 0 {
		switch l := listPrompts(r); {
		case l.failed != nil:
			f.Untested("no prompt was got: prompts/list failed (%s)", describeStep(*l.failed))
		case stoppedHere(r) && l.free == 0 && len(stepsOn(r, probe.ConnMain, probe.StepPromptsList)) > 0:
			f.Skip("every listed prompt has a required argument, and the probe gets none without it but to provoke an error")
		default:
			f.notJudged(stoppedHere(r), "prompts/get was not sent: %s", probeStopped(r))
		}
		return
	}
	rev := r.Revision()
	var judged []string
	for _, st := range gets {
		name := calledTool(r, st)
		frames := Seqs(st.Request, st.Response)
		m := exchangeAnswer(r, st)
		switch {
		case m != nil && m.Kind == ErrorResponse:
			f.Fail(frames, "prompts/get of %s, which is listed and needs no argument: expected a GetPromptResult, got %s", name, describeError(m))
		case m != nil && m.Kind == ResultResponse:
			if protocol.Stateless(rev) && resultTypeOf(m.Result) == "input_required" {
				// 2026-07-28 server/prompts: servers "MAY also respond to prompts/get with an
				// InputRequiredResult"; results.input-required judges where that is wrong.
				judged = append(judged, name+" (input required)")
				continue
			}
			if problem := promptResultProblem(rev, m.Result); problem != "" {
				f.Fail(frames, "prompts/get of %s: %s", name, problem)
				continue
			}
			judged = append(judged, name)
		default:
			f.Untested("prompts/get of %s got %s", name, describeAnswer(r, st))
		}
	}
	f.Pass("prompts/get of %s returned GetPromptResults of %s with valid content", strings.Join(judged, ", "), rev)
}

// promptResultProblem says what makes a result no GetPromptResult of the revision ("" when
// it is one): messages of a role and content the schema allows, image and audio data in
// base64 with a MIME type ("The image data MUST be base64-encoded and include a valid MIME
// type"), an embedded resource with a uri and text or base64 blob.
func promptResultProblem(rev string, result json.RawMessage) string {
	var res map[string]json.RawMessage
	if json.Unmarshal(result, &res) != nil {
		return "expected a GetPromptResult object, got " + clipJSON(result)
	}
	if d, ok := res["description"]; ok && jsonType(d) != "string" {
		return "description is " + article(jsonType(d)) + ", not a string"
	}
	var messages []json.RawMessage
	if raw, ok := res["messages"]; !ok || json.Unmarshal(raw, &messages) != nil {
		return "expected a messages array, got " + clipJSON(result)
	}
	for i, raw := range messages {
		var msg struct {
			Role    *string         `json:"role"`
			Content json.RawMessage `json:"content"`
		}
		if json.Unmarshal(raw, &msg) != nil {
			return fmt.Sprintf("messages[%d] is no PromptMessage object: %s", i, clipJSON(raw))
		}
		if msg.Role == nil || (*msg.Role != "user" && *msg.Role != "assistant") {
			return fmt.Sprintf("messages[%d] has no role \"user\" or \"assistant\": %s", i, clipJSON(raw))
		}
		if p := contentProblem(rev, msg.Content); p != "" {
			return fmt.Sprintf("messages[%d].content %s", i, p)
		}
	}
	return ""
}

// contentProblem judges one content block of a prompt message.
func contentProblem(rev string, raw json.RawMessage) string {
	var c map[string]json.RawMessage
	if json.Unmarshal(raw, &c) != nil || c == nil {
		return "is no content object: " + clipJSON(raw)
	}
	str := func(name string) (string, bool) {
		var s string
		v, ok := c[name]
		return s, ok && json.Unmarshal(v, &s) == nil
	}
	typ, _ := str("type")
	switch {
	case typ == "text":
		if _, ok := str("text"); !ok {
			return "of type text has no string text"
		}
	case typ == "image" || typ == "audio" && rev >= protocol.Revision20250326:
		data, ok := str("data")
		if !ok {
			return fmt.Sprintf("of type %s has no string data", typ)
		}
		if !isBase64(data) {
			return fmt.Sprintf("of type %s: data is not valid base64 (%s)", typ, clipQuote(data))
		}
		mt, _ := str("mimeType")
		if !validMediaType(mt) {
			return fmt.Sprintf("of type %s: mimeType %s is not a valid MIME type", typ, clipQuote(mt))
		}
	case typ == "resource":
		if _, ok := objectMembers(c["resource"]); !ok {
			return "of type resource has no resource object"
		}
		// An embedded resource is one item of a ReadResourceResult's contents, judged alike.
		if problem := resourceContentsProblem(c["resource"]); problem != "" {
			return "of type resource: the embedded resource " + problem
		}
	case typ == "resource_link" && rev >= protocol.Revision20250618:
		if _, ok := str("uri"); !ok {
			return "of type resource_link has no string uri"
		}
		if _, ok := str("name"); !ok {
			return "of type resource_link has no string name"
		}
	default:
		return fmt.Sprintf("has type %s, which no content block of %s has", clipQuote(typ), rev)
	}
	return ""
}

// isBase64 reports whether s is base64 (RFC 4648 §4, padded; line breaks allowed).
func isBase64(s string) bool {
	_, err := base64.StdEncoding.DecodeString(s)
	return err == nil
}

func checkPromptGetInvalid(r *Capture, f *Finding) {
	if !promptsDeclared(r, f) {
		return
	}
	type probeOf struct {
		step, what string
	}
	var judged []string
	sent := false
	for _, p := range []probeOf{
		{probe.StepPromptGetUnknown, "prompts/get of a prompt the server does not list"},
		{probe.StepPromptGetMissingArgument, "prompts/get without a required argument"},
	} {
		st, ok := stepOn(r, probe.ConnMain, p.step)
		if !ok {
			continue
		}
		sent = true
		name := calledTool(r, st)
		frames := Seqs(st.Request, st.Response)
		m := exchangeAnswer(r, st)
		switch {
		case m != nil && m.Kind == ErrorResponse:
			if code, ok := errorCode(m); ok && code == protocol.CodeInvalidParams {
				judged = append(judged, fmt.Sprintf("%s (%s)", p.what, name))
				continue
			}
			f.Warn(frames, "%s (%s): expected error -32602, got %s", p.what, name, describeError(m))
		case m != nil && m.Kind == ResultResponse:
			f.Warn(frames, "%s (%s): expected error -32602, got a result %s", p.what, name, clipJSON(m.Result))
		default:
			f.Warn(frames, "%s (%s): expected error -32602, got %s", p.what, name, describeAnswer(r, st))
		}
	}
	if !sent {
		if l := listPrompts(r); l.failed != nil {
			f.Untested("no invalid prompts/get was sent: prompts/list failed (%s)", describeStep(*l.failed))
			return
		} else if stoppedHere(r) && !l.complete && len(stepsOn(r, probe.ConnMain, probe.StepPromptsList)) > 0 {
			f.Untested("no invalid prompts/get was sent: the prompt listing did not end, so no name can be shown to be unlisted")
			return
		}
		f.notJudged(stoppedHere(r), "no invalid prompts/get was sent: %s", probeStopped(r))
		return
	}
	if len(judged) > 0 {
		f.Pass("%s got -32602", strings.Join(judged, " and "))
	}
}
