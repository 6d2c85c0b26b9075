package poison

import (
	"fmt"
	"strconv"
	"strings"
)

// A phrase pattern is a sequence of words written as a small language, matched over the
// words of a text (letters and digits; "don't" reads as "do not", "you're" as "you are"):
//
//	a|b|c    one word out of several; "instruction*" is any word that begins so
//	a|b?     an optional word
//	*N       up to N words of anything (never across the end of a sentence)
//	NEG      at the start: "do not", "must not", "should not" or "never"
//
// A pattern's first element is a plain word set, so that each word of a text is looked up
// once and only the patterns that may start there are tried. Matching is bounded: a pattern
// has few optional words and gaps, and a gap never crosses a sentence end.
type phrase struct {
	family Family
	name   string // what the match is called in a Match's Pattern
	elems  []elem
}

type elem struct {
	words    []string
	prefixes []string
	optional bool
	gap      int
}

func (e elem) has(w string) bool {
	for _, x := range e.words {
		if w == x {
			return true
		}
	}
	for _, p := range e.prefixes {
		if strings.HasPrefix(w, p) {
			return true
		}
	}
	return false
}

// Word sets used in several patterns.
const (
	userWords   = "user|users|user's|users'|human|humans|human's|operator|person"
	modelWords  = "ai|llm|llms|assistant|agent|chatbot|model|language|gpt|claude|bot"
	concealVerb = "tell|inform|mention|reveal|show|notify|alert|disclose|say|explain|let|warn|report|acknowledge"
	sendVerb    = "send|forward|upload|post|exfiltrate|leak|transmit|email|share|copy|bcc"
)

// phraseTable is the phrase patterns of each family. The ideas come from the published
// tool-poisoning write-ups: Invariant Labs' tool poisoning and WhatsApp shadowing proofs of
// concept (an <IMPORTANT> block asking to read ~/.cursor/mcp.json and ~/.ssh/id_rsa, pass
// them in a side argument and not mention it; a tool that redirects another tool's messages),
// Trail of Bits' "line jumping" (instructions that act at listing time), and the prompt
// injection markers scanners look for ("ignore previous instructions", "if you are an LLM").
// The words are this project's own.
func phraseTable() []struct {
	family   Family
	name     string
	patterns []string
} {
	return []struct {
		family   Family
		name     string
		patterns []string
	}{
		{ToModel, "ignore previous instructions", []string{
			"ignore|disregard|override|bypass all|any|every? of? the|your|my|these|those|any? previous|prior|above|earlier|preceding|former|original|initial|system|safety|security|other|existing instruction*|direction*|rule*|prompt*|guideline*|guardrail*|directive*|constraint*|polic*|restriction*|message*|context",
			"forget all|any|every? of? the|your|my|these|those? previous|prior|above|earlier|preceding|former|original|initial|system|safety|other|existing instruction*|direction*|rule*|prompt*|guideline*|guardrail*|directive*|constraint*",
		}},
		{ToModel, "if you are an AI", []string{
			"if you are a|an? " + modelWords,
			"attention|dear|hey " + modelWords,
		}},
		{ToModel, "your real task", []string{
			"your real|true|secret|hidden instruction*|task*|goal*|objective*|purpose|mission|directive*|orders",
		}},
		{ToModel, "reveal the system prompt", []string{
			"reveal|print|output|repeat|include|send|share|leak|disclose|dump|expose|copy|pass the|your|its? full|entire|complete|original|whole|hidden|exact? system prompt*|instruction*",
		}},
		{ToModel, "regardless of what the user asks", []string{
			"regardless|irrespective of what|whatever the? " + userWords + " ask*|request*|want*|say*|said|specif*|intend*|tell*|told|type*|wrote|write*|choose*|chose",
			"no matter what the? " + userWords + " ask*|request*|want*|say*|said|specif*|intend*|tell*|told|type*|wrote|write*",
			"instead of what the? " + userWords + " ask*|request*|want*|said|specif*|intend*|told",
			"NEG follow|obey the|any|their|your? " + userWords,
		}},

		{Concealment, "do not tell the user", []string{
			"NEG " + concealVerb + " *5 " + userWords,
			"NEG " + concealVerb + " that you",
			"NEG mention|reveal|disclose|acknowledge|explain|show the|these|this|that|any|those? instruction*|sidenote|step|steps",
			"NEG ask the|your? " + userWords + "? for? permission|confirmation|approval|consent",
		}},
		{Concealment, "without telling the user", []string{
			"without telling|informing|notifying|alerting|asking|letting|showing|warning the|any|your? " + userWords,
			"without the|your? " + userWords + " knowing|knowledge|noticing|awareness|realizing|realising|seeing",
		}},
		{Concealment, "keep it from the user", []string{
			"keep|hide this|these|it|that|them|everything *3 from the|your|any? " + userWords,
			"keep this|these|it|that|them|the|your instruction*|step|steps|note? secret|hidden|confidential",
			userWords + " must|should|shall|need|needs|may not know|notice|suspect|learn|realize|realise|discover",
		}},
		{Concealment, "this could upset the user", []string{
			"could|would|might|will|may upset|scare|alarm|worry|frighten|concern|bother|annoy|confuse the|your? " + userWords,
		}},
		{Concealment, "secretly", []string{
			"secretly|covertly|surreptitiously|stealthily",
			"silently|quietly|invisibly|discreetly|discretely send|forward|upload|post|copy|include|pass|read|exfiltrate|transmit|bcc|cc|add|attach|append|call|invoke|collect|record|store|save|fetch|run",
		}},

		{Exfiltration, "pass its content as an argument", []string{
			"pass|put|include|insert|append|add|send|concatenate|place|provide|embed its|their|the|that|this|those? file's|files'? entire|full|whole|complete? content|contents as|in|into|inside|within|via",
		}},
		{Exfiltration, "send the conversation history", []string{
			sendVerb + " *4 conversation|chat|message|messages|whatsapp|browsing|search|call|email histor*|logs|transcript*",
			sendVerb + " *4 previous|prior|all|earlier|past messages|conversations|chats|emails",
		}},

		{Shadowing, "when this tool is available", []string{
			"when|whenever|while|if|once this|the tool|server|function|plugin is|gets|becomes available|present|installed|loaded|enabled|connected|active|registered|added|in",
		}},
		{Shadowing, "redirect another tool's messages", []string{
			"all|every|any|each email*|e-mail*|mail|mails|message*|payment*|transfer*|transaction*|fund*|money|invoice* *4 must|should|shall|has|have|need|needs|are|is to? be? sent|send|forwarded|forward|redirected|redirect|routed|route|copied|transferred|rerouted|go|goes to",
			"tool|function must|should|shall|has|needs|will to? send|forward|redirect|route|bcc|cc|copy|transfer all|every|each|any",
			"change|replace|override|switch|swap the|any|every|all? recipient*|destination*|receiver*|iban|wallet|payee* *2 to|with",
			"always|also|secretly|silently bcc|cc",
		}},
		{Shadowing, "instead of another tool's request", []string{
			"tool|function|tools|functions *10 instead send|forward|email|transfer|pay|bcc|cc|route|redirect|upload|post",
		}},
	}
}

// compiled is the phrase table compiled, and indexed by the words a pattern may start with.
type compiled struct {
	byFirst  map[string][]int // word → patterns whose first element has it
	prefixed []int            // patterns whose first element has a prefix
	phrases  []phrase
}

// phrases is the compiled table; it is built once and only read afterwards.
var phrases = compile()

func compile() *compiled {
	c := &compiled{byFirst: map[string][]int{}}
	for _, group := range phraseTable() {
		for _, src := range group.patterns {
			for _, variant := range expandNeg(src) {
				p := phrase{family: group.family, name: group.name, elems: parsePattern(variant)}
				first := p.elems[0]
				if first.optional || first.gap > 0 {
					panic(fmt.Sprintf("poison: pattern %q must start with a word", src))
				}
				i := len(c.phrases)
				c.phrases = append(c.phrases, p)
				for _, w := range first.words {
					c.byFirst[w] = append(c.byFirst[w], i)
				}
				if len(first.prefixes) > 0 {
					c.prefixed = append(c.prefixed, i)
				}
			}
		}
	}
	return c
}

// expandNeg spells out NEG: an imperative negation, never a description ("does not").
func expandNeg(src string) []string {
	rest, ok := strings.CutPrefix(src, "NEG ")
	if !ok {
		return []string{src}
	}
	return []string{"do|must|should|shall not " + rest, "never " + rest}
}

func parsePattern(src string) []elem {
	var out []elem
	for _, f := range strings.Fields(src) {
		if n, ok := strings.CutPrefix(f, "*"); ok {
			gap, err := strconv.Atoi(n)
			if err != nil || gap <= 0 {
				panic(fmt.Sprintf("poison: bad gap %q in %q", f, src))
			}
			out = append(out, elem{gap: gap})
			continue
		}
		var e elem
		if w, ok := strings.CutSuffix(f, "?"); ok {
			e.optional, f = true, w
		}
		for _, alt := range strings.Split(f, "|") {
			if p, ok := strings.CutSuffix(alt, "*"); ok {
				e.prefixes = append(e.prefixes, p)
			} else {
				e.words = append(e.words, alt)
			}
		}
		out = append(out, e)
	}
	if len(out) == 0 {
		panic("poison: empty pattern")
	}
	return out
}

// token is one word of a text (w in lower case, its bytes in the text) or, with w empty, the
// end of a sentence.
type token struct {
	w          string
	start, end int
}

// words splits shown text (lower case, as reveal makes it) into words and sentence ends. A
// sentence ends at ".", "!" or "?" before a space or the end, and at a blank line; a single
// line break does not end one (descriptions wrap mid-sentence).
func words(s string) []token {
	var out []token
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case wordByte(c):
			j := i
			for j < len(s) && (wordByte(s[j]) || s[j] == '\'' && j+1 < len(s) && wordByte(s[j+1])) {
				j++
			}
			out = appendWord(out, s[i:j], i, j)
			i = j
		case c == '.' || c == '!' || c == '?':
			if i+1 == len(s) || s[i+1] == ' ' || s[i+1] == '\n' || s[i+1] == '\t' || s[i+1] == '\r' {
				out = append(out, token{start: i, end: i + 1})
			}
			i++
		case c == '\n':
			j := i + 1
			for j < len(s) && (s[j] == ' ' || s[j] == '\t' || s[j] == '\r') {
				j++
			}
			if j < len(s) && s[j] == '\n' {
				out = append(out, token{start: i, end: j})
			}
			i = j
		default:
			i++
		}
	}
	return out
}

func wordByte(c byte) bool { return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' }

// appendWord appends a word, a negated contraction as its two words.
func appendWord(out []token, w string, start, end int) []token {
	if base, ok := strings.CutSuffix(w, "n't"); ok {
		switch base {
		case "ca":
			base = "can"
		case "wo":
			base = "will"
		case "sha":
			base = "shall"
		}
		return append(out, token{base, start, end}, token{"not", start, end})
	}
	if base, ok := strings.CutSuffix(w, "'re"); ok {
		return append(out, token{base, start, end}, token{"are", start, end})
	}
	switch w {
	case "dont":
		return append(out, token{"do", start, end}, token{"not", start, end})
	case "cannot":
		return append(out, token{"can", start, end}, token{"not", start, end})
	}
	return append(out, token{w, start, end})
}

// scanPhrases reports the first match of each phrase family in shown text, whose words are
// ts; excerpts are cut from src, which has the offsets of shown.
func scanPhrases(shown, src string, ts []token) []Match {
	var out []Match
	var done [Blob + 1]bool
	try := func(i, pi int) {
		p := &phrases.phrases[pi]
		if done[p.family] {
			return
		}
		if end, ok := p.match(ts, i, 0); ok && end > i {
			done[p.family] = true
			out = append(out, Match{Family: p.family, Pattern: p.name,
				Excerpt: excerpt(src, ts[i].start, ts[end-1].end)})
		}
	}
	for i, t := range ts {
		if t.w == "" {
			continue
		}
		for _, pi := range phrases.byFirst[t.w] {
			try(i, pi)
		}
		for _, pi := range phrases.prefixed {
			try(i, pi)
		}
	}
	if m, ok := scanMarkup(shown, src); ok && !done[ToModel] {
		out = append(out, m)
	}
	return out
}

// match tries the elements from e on at token i; it returns the index past the match.
func (p *phrase) match(ts []token, i, e int) (int, bool) {
	if e == len(p.elems) {
		return i, true
	}
	el := p.elems[e]
	if el.gap > 0 {
		for k := 0; k <= el.gap; k++ {
			if end, ok := p.match(ts, i+k, e+1); ok {
				return end, true
			}
			if i+k >= len(ts) || ts[i+k].w == "" {
				break
			}
		}
		return 0, false
	}
	if i < len(ts) && ts[i].w != "" && el.has(ts[i].w) {
		if end, ok := p.match(ts, i+1, e+1); ok {
			return end, true
		}
	}
	if el.optional {
		return p.match(ts, i, e+1)
	}
	return 0, false
}

// markupNames are the tags that mark text as addressed to the model: <IMPORTANT> is the one
// the published proofs of concept use; the others are the same device. Placeholders such as
// <user> or <name> are left alone.
var markupNames = map[string]bool{
	"important": true, "system": true, "instructions": true, "instruction": true, "secret": true,
	"hidden": true, "critical": true, "admin": true, "sys": true, "system-prompt": true,
	"system_prompt": true, "override": true,
}

// chatTokens are the control tokens of chat templates: in a description they can only be an
// attempt to open a turn of the model's conversation.
var chatTokens = []string{"<|im_start|>", "<|im_end|>", "<|system|>", "<|endoftext|>", "[inst]", "<<sys>>", "<|start_header_id|>"}

// scanMarkup finds a model-addressed tag (<IMPORTANT>, </system>) or a chat-template token.
func scanMarkup(shown, src string) (Match, bool) {
	for i := 0; i < len(shown); i++ {
		if shown[i] != '<' && shown[i] != '[' {
			continue
		}
		for _, t := range chatTokens {
			if strings.HasPrefix(shown[i:], t) {
				return Match{Family: ToModel, Pattern: "chat template token " + t, Excerpt: excerpt(src, i, i+len(t))}, true
			}
		}
		if shown[i] != '<' {
			continue
		}
		j := i + 1
		if j < len(shown) && shown[j] == '/' {
			j++
		}
		for j < len(shown) && shown[j] == ' ' {
			j++
		}
		k := j
		for k < len(shown) && k-j <= 16 && (wordByte(shown[k]) || shown[k] == '-' || shown[k] == '_') {
			k++
		}
		name := shown[j:k]
		for k < len(shown) && shown[k] == ' ' {
			k++
		}
		if k < len(shown) && shown[k] == '>' && markupNames[name] {
			return Match{Family: ToModel, Pattern: "<" + strings.ToUpper(name) + "> block", Excerpt: excerpt(src, i, k+1)}, true
		}
	}
	return Match{}, false
}
