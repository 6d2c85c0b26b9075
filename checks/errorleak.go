package checks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/mcpwatch/mcpwatch/internal/textclip"
	"github.com/mcpwatch/mcpwatch/jsondoc"
	"github.com/mcpwatch/mcpwatch/probe"
)

// security.error-leak reads the error answers the probe provoked (an unknown method, invalid
// params, an unknown tool, a bogus cursor, malformed JSON, ...) for what a server should keep
// to its logs: stack traces, absolute file paths, SQL, and secrets. No keyword of the
// specification forbids them, so the check only advises; but an error message goes to the
// client, and from there to the model and the user.

// leakPattern is one kind of leak.
type leakPattern struct {
	kind   string // "Go stack trace", "file path", ...
	re     *regexp.Regexp
	secret bool // the match is shown masked
	// hints are strings every match contains one of: a text with none of them is not
	// searched, which spares a regular expression run on almost every error message.
	hints []string
}

// leakPatterns are matched in order; the first that matches names the leak. Regular
// expressions of package regexp run in time linear in the text.
var leakPatterns = []leakPattern{
	{kind: "Go stack trace", re: regexp.MustCompile(`goroutine \d+ \[[a-zA-Z ,0-9]+\]:?`), hints: []string{"goroutine "}},
	{kind: "Go stack trace", re: regexp.MustCompile(`[\w./-]+\.go:\d+(?: \+0x[0-9a-f]+)?`), hints: []string{".go:"}},
	{kind: "Python traceback", re: regexp.MustCompile(`Traceback \(most recent call last\)|File "[^"\n]{1,300}", line \d+`), hints: []string{"Traceback", "File \""}},
	{kind: "Node.js stack trace", re: regexp.MustCompile(`\bat (?:[\w$.<>\[\] ]{1,200} \()?(?:file://)?[\w./@:\\-]{1,300}\.(?:js|mjs|cjs|ts|jsx|tsx):\d+:\d+\)?|\bnode:internal/[\w/]+`), hints: []string{".js:", ".mjs:", ".cjs:", ".ts:", ".jsx:", ".tsx:", "node:internal/"}},
	{kind: "Java stack trace", re: regexp.MustCompile(`\bat [\w$.]{1,300}\((?:[\w$]+\.(?:java|kt|scala):\d+|Native Method|Unknown Source)\)|Exception in thread "`), hints: []string{".java:", ".kt:", ".scala:", "Native Method", "Unknown Source", "Exception in thread"}},
	{kind: ".NET stack trace", re: regexp.MustCompile(`\) in [^\n]{1,300}:line \d+|--- End of (?:inner exception )?stack trace`), hints: []string{":line ", "--- End of"}},
	{kind: "Ruby backtrace", re: regexp.MustCompile("[\\w./-]+\\.rb:\\d+:in [`']"), hints: []string{".rb:"}},
	{kind: "PHP stack trace", re: regexp.MustCompile(`Stack trace:\s*#0 |PHP (?:Fatal|Parse) error|\.php(?: on line |:)\d+`), hints: []string{"Stack trace:", "PHP ", ".php"}},
	{kind: "Rust panic", re: regexp.MustCompile(`thread '[^'\n]{0,100}' panicked at`), hints: []string{"panicked at"}},
	{kind: "file path", re: regexp.MustCompile(`(?:^|[\s"'(=\[,])(/(?:home|Users|usr|var|opt|srv|etc|root|tmp|app|workspace|mnt|private|Library|proc|data|code|src)/[\w.@+-]+(?:/[\w.@+-]+)*)`), hints: []string{"/home/", "/Users/", "/usr/", "/var/", "/opt/", "/srv/", "/etc/", "/root/", "/tmp/", "/app/", "/workspace/", "/mnt/", "/private/", "/Library/", "/proc/", "/data/", "/code/", "/src/"}},
	{kind: "file path", re: regexp.MustCompile(`\b[A-Za-z]:\\(?:[\w .-]+\\)+[\w.-]*`), hints: []string{`:\`}},
	{kind: "SQL", re: regexp.MustCompile(`syntax error at or near|You have an error in your SQL syntax|SQLITE_ERROR|sqlite3\.OperationalError|\bORA-\d{5}\b|SQLSTATE\[|\bpq: |relation "[^"\n]{1,100}" does not exist|duplicate key value violates unique constraint`), hints: []string{"syntax error", "SQL syntax", "SQLITE_ERROR", "sqlite3.", "ORA-", "SQLSTATE[", "pq: ", "does not exist", "duplicate key"}},
	{kind: "SQL", re: regexp.MustCompile(`\bSELECT\s+(?:\*|[\w."]+(?:\s*,\s*[\w."]+)*)\s+FROM\s+[\w."]+|\b(?:INSERT INTO|DELETE FROM)\s+[\w."]+|\bUPDATE\s+[\w."]+\s+SET\b`), hints: []string{"SELECT", "INSERT INTO", "DELETE FROM", "UPDATE"}},
	{kind: "API key", secret: true, re: regexp.MustCompile(`\bsk-(?:proj-|ant-)?[A-Za-z0-9_-]{20,}|\bgh[pousr]_[A-Za-z0-9]{36,}|\bgithub_pat_[A-Za-z0-9_]{22,}|\bxox[abposr]-[A-Za-z0-9-]{10,}|\b(?:AKIA|ASIA)[A-Z0-9]{16}\b|\bAIza[0-9A-Za-z_-]{35}\b|\bglpat-[A-Za-z0-9_-]{20,}|\bnpm_[A-Za-z0-9]{36}\b|\b[sr]k_live_[A-Za-z0-9]{20,}`), hints: []string{"sk-", "gho_", "ghp_", "ghu_", "ghs_", "ghr_", "github_pat_", "xox", "AKIA", "ASIA", "AIza", "glpat-", "npm_", "_live_"}},
	{kind: "private key", secret: true, re: regexp.MustCompile(`-----BEGIN (?:[A-Z]+ )?PRIVATE KEY-----`), hints: []string{"PRIVATE KEY"}},
	{kind: "token", secret: true, re: regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}`), hints: []string{"eyJ"}},
	{kind: "credentials in a URL", secret: true, re: regexp.MustCompile(`\b[a-z][a-z0-9+.-]{1,20}://[^\s:/@"']{1,100}:[^\s:/@"']{3,100}@`), hints: []string{"://"}},
}

// Bounds of the reading.
const (
	leakScanBytes   = 64 << 10 // of one error text
	leakExcerpt     = 160
	leakMaxStrings  = 100 // strings read from one error's data
	leakDataDepth   = 16
	leakSecretShown = 4 // leading characters of a secret shown
)

// leakFound is the first leak in a text.
type leakFound struct {
	kind, excerpt string
}

// findLeak finds the first leak in text that the probe did not send itself (a server echoing
// the probe's own bogus URI is no leak).
func findLeak(text string, sent func(string) bool) (leakFound, bool) {
	text = textclip.Prefix(text, leakScanBytes)
	hinted := hintedPatterns(text)
	for i, p := range leakPatterns {
		if hinted&(1<<i) == 0 {
			continue
		}
		for _, loc := range p.re.FindAllStringSubmatchIndex(text, 8) {
			start, end := loc[0], loc[1]
			if len(loc) >= 4 && loc[2] >= 0 {
				start, end = loc[2], loc[3]
			}
			hit := text[start:end]
			if sent(hit) {
				continue
			}
			if p.secret {
				shown := textclip.Prefix(hit, leakSecretShown)
				return leakFound{p.kind, fmt.Sprintf("%s%s (%d characters, masked)", shown, textclip.Ellipsis, len(hit))}, true
			}
			from := max(start-40, 0)
			for from > 0 && from < len(text) && (text[from]&0xC0) == 0x80 {
				from--
			}
			ex := textclip.Bytes(text[from:], leakExcerpt)
			if from > 0 {
				ex = textclip.Ellipsis + ex
			}
			return leakFound{p.kind, strconv.Quote(ex)}, true
		}
	}
	return leakFound{}, false
}

// errorTexts are the texts of one error answer: the error's message and the strings of its
// data (a JSON-RPC error), the text content of an isError tool result, or the body of an HTTP
// error status.
func errorTexts(f probe.Frame, m *Message) []string {
	switch {
	case f.Kind == probe.KindHTTPResponse:
		if f.HTTP != nil && f.HTTP.Status >= 400 && len(f.Raw) > 0 {
			return []string{string(f.Raw)}
		}
	case m == nil:
	case m.Kind == ErrorResponse:
		// The error member as the capture decoded it: only data, seldom there, is parsed.
		e, ok := errorOf(m)
		if !ok {
			return nil
		}
		var out []string
		if msg, ok := jsondoc.Str(e.Message); ok {
			out = append(out, msg)
		}
		if e.Data != nil {
			doc, err := jsondoc.Parse(e.Data)
			if err != nil {
				return out
			}
			budget := leakMaxStrings
			collectStrings(doc.Root(), 0, &budget, &out)
		}
		return out
	case m.Kind == ResultResponse && bytes.Contains(m.Result, []byte(`"isError"`)):
		var res struct {
			IsError bool `json:"isError"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		}
		if json.Unmarshal(m.Result, &res) != nil || !res.IsError {
			return nil
		}
		var out []string
		for _, c := range res.Content {
			if c.Text != "" {
				out = append(out, c.Text)
			}
		}
		return out
	}
	return nil
}

// collectStrings gathers the strings of a JSON value, at most *budget of them.
func collectStrings(v jsondoc.Value, depth int, budget *int, out *[]string) {
	if depth > leakDataDepth || *budget <= 0 {
		return
	}
	switch v.Kind() {
	case jsondoc.String:
		*budget--
		*out = append(*out, v.Str())
	case jsondoc.Object:
		for _, child := range v.Members() {
			collectStrings(child, depth+1, budget, out)
		}
	case jsondoc.Array:
		for _, child := range v.Elements() {
			collectStrings(child, depth+1, budget, out)
		}
	}
}

func checkErrorLeak(r *Capture, f *Finding) {
	answered := map[int]string{} // frame → the step it answered
	for _, st := range r.Steps {
		if st.Response >= 0 {
			answered[st.Response] = st.Name
		}
	}
	sent := func(s string) bool {
		for _, fr := range r.Frames {
			if fr.Dir == probe.Out && bytes.Contains(fr.Raw, []byte(s)) {
				return true
			}
		}
		return false
	}
	errors := 0
	for _, fr := range r.Frames {
		if fr.Dir != probe.In || fr.Kind != probe.KindMessage && fr.Kind != probe.KindHTTPResponse {
			continue
		}
		texts := errorTexts(fr, r.Message(fr.Seq))
		if len(texts) == 0 {
			continue
		}
		errors++
		for _, text := range texts {
			leak, ok := findLeak(text, sent)
			if !ok {
				continue
			}
			what := "an error answer"
			if name := answered[fr.Seq]; name != "" {
				what = "the error answer to " + name
			}
			f.Advise(Seqs(fr.Seq), "%s shows a %s: %s", what, leak.kind, leak.excerpt)
			break
		}
	}
	if errors == 0 {
		f.Untested("the server answered none of the probe's requests with an error, so there was no error message to read")
		return
	}
	f.Pass("%d error %s show no stack trace, file path, SQL or secret", errors, plural("answer", errors))
}

// leakHint is a hint of leakPatterns[pattern].
type leakHint struct {
	pattern int
	s       string
}

// leakHints lists the hints of leakPatterns by their first byte. Read-only once built:
// one pass over a text finds every pattern worth running, where a search per hint read each
// error text some eighty times (a tenth of the checks' CPU).
var leakHints = indexLeakHints(leakPatterns)

// leakHintIndex is the hints by first byte, and the pairs of bytes some hint starts with:
// most bytes of a text start no hint though many letters start one ("e" of "eyJ"), and one
// look at the pair with the next byte passes them by.
type leakHintIndex struct {
	byByte [256][]leakHint
	pairs  [1 << 16 / 64]uint64 // bit a<<8|b: some hint starts with the bytes a, b
}

func indexLeakHints(patterns []leakPattern) *leakHintIndex {
	var idx leakHintIndex
	for i, p := range patterns {
		for _, h := range p.hints {
			idx.byByte[h[0]] = append(idx.byByte[h[0]], leakHint{pattern: i, s: h})
			for b := range 256 {
				if len(h) == 1 || int(h[1]) == b {
					pair := int(h[0])<<8 | b
					idx.pairs[pair/64] |= 1 << (pair % 64)
				}
			}
		}
	}
	return &idx
}

// hintedPatterns is the set of leakPatterns (bit i for pattern i) that text holds a hint of.
func hintedPatterns(text string) uint64 {
	var set uint64
	for i := 0; i < len(text); i++ {
		if i+1 < len(text) {
			if pair := int(text[i])<<8 | int(text[i+1]); leakHints.pairs[pair/64]&(1<<(pair%64)) == 0 {
				continue
			}
		}
		for _, h := range leakHints.byByte[text[i]] {
			if set&(1<<h.pattern) == 0 && strings.HasPrefix(text[i:], h.s) {
				set |= 1 << h.pattern
			}
		}
	}
	return set
}
