package report

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/mcpwatch/mcpwatch/checks"
	"github.com/mcpwatch/mcpwatch/internal/textclip"
)

// SARIF 2.1.0 for GitHub code scanning (docs.github.com "SARIF support for code scanning"):
// every rule has shortDescription, fullDescription and help text; every result a message, one
// physical location with a region, and partialFingerprints.
//
// A probe finds faults in a server's behaviour, not at a line of code, so results point at an
// artifact the user chooses (--sarif-artifact: the server's mcp.json or main source file),
// at line 1. Without one they point at a relative reference made from the target: an http
// URI would make code scanning reject the upload (its source root is a file:// URI).
//
// Fingerprints identify a result by its check and artifact only: messages quote latencies
// and server bytes that change from run to run, and one alert per check and server is what
// a team wants to track.
//
// The log sets no automationDetails: the uploader's category (upload-sarif's category
// input) then names the analysis, which is how a workflow that probes two servers keeps
// their alerts apart; an id in the log would silently override it.

const (
	sarifSchemaURI = "https://json.schemastore.org/sarif-2.1.0.json"
	sarifVersion   = "2.1.0"
	sarifToolName  = "mcpwatch"
	sarifToolURI   = "https://github.com/mcpwatch/mcpwatch"
	// sarifSourceRoot is the base id relative artifact references are resolved against.
	sarifSourceRoot = "%SRCROOT%"
	// sarifFingerprintKey is this tool's own stable identity of a result; code scanning
	// itself reads primaryLocationLineHash, which is filled from the same hash.
	sarifFingerprintKey = "mcpwatch/v1"
	// sarifMessageWidth bounds a result message (code scanning shows its first sentence as
	// the title and the rest on the alert page).
	sarifMessageWidth = 16 << 10
)

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool               sarifTool                        `json:"tool"`
	OriginalURIBaseIDs map[string]sarifArtifactLocation `json:"originalUriBaseIds,omitempty"`
	Invocations        []sarifInvocation                `json:"invocations"`
	Results            []sarifResult                    `json:"results"`
	Properties         map[string]any                   `json:"properties,omitempty"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name            string      `json:"name"`
	Version         string      `json:"version,omitempty"`
	SemanticVersion string      `json:"semanticVersion,omitempty"`
	InformationURI  string      `json:"informationUri"`
	Rules           []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID                   string          `json:"id"`
	Name                 string          `json:"name"`
	ShortDescription     sarifText       `json:"shortDescription"`
	FullDescription      sarifText       `json:"fullDescription"`
	Help                 sarifText       `json:"help"`
	HelpURI              string          `json:"helpUri,omitempty"`
	DefaultConfiguration sarifRuleConfig `json:"defaultConfiguration"`
	Properties           sarifRuleProps  `json:"properties"`
}

type sarifText struct {
	Text     string `json:"text"`
	Markdown string `json:"markdown,omitempty"`
}

type sarifRuleConfig struct {
	Level string `json:"level"`
}

type sarifRuleProps struct {
	Tags      []string `json:"tags"`
	Precision string   `json:"precision"`
}

type sarifArtifactLocation struct {
	URI         string     `json:"uri,omitempty"`
	URIBaseID   string     `json:"uriBaseId,omitempty"`
	Description *sarifText `json:"description,omitempty"`
}

type sarifInvocation struct {
	ExecutionSuccessful bool                `json:"executionSuccessful"`
	Notifications       []sarifNotification `json:"toolExecutionNotifications,omitempty"`
}

type sarifNotification struct {
	Level   string    `json:"level"`
	Message sarifText `json:"message"`
}

type sarifResult struct {
	RuleID              string             `json:"ruleId"`
	RuleIndex           int                `json:"ruleIndex"`
	Level               string             `json:"level"`
	Kind                string             `json:"kind"`
	Message             sarifText          `json:"message"`
	Locations           []sarifLocation    `json:"locations"`
	PartialFingerprints map[string]string  `json:"partialFingerprints"`
	BaselineState       string             `json:"baselineState,omitempty"`
	Suppressions        []sarifSuppression `json:"suppressions,omitempty"`
	Properties          map[string]any     `json:"properties,omitempty"`
}

type sarifLocation struct {
	PhysicalLocation sarifPhysical `json:"physicalLocation"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifactLocation `json:"artifactLocation"`
	Region           sarifRegion           `json:"region"`
}

type sarifRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn"`
	EndLine     int `json:"endLine"`
	EndColumn   int `json:"endColumn"`
}

type sarifSuppression struct {
	Kind          string `json:"kind"`
	Status        string `json:"status"`
	Justification string `json:"justification,omitempty"`
}

// WriteSARIF writes the report as a SARIF 2.1.0 log. artifact is the file results point at
// ("" for one made from the target).
func WriteSARIF(w io.Writer, r *Report, artifact string) error {
	loc := sarifArtifact(artifact, r.Target)
	run := sarifRun{
		Tool:        sarifTool{Driver: sarifDriverOf(r.Generator)},
		Invocations: []sarifInvocation{{ExecutionSuccessful: r.Error == ""}},
		Results:     []sarifResult{},
		Properties:  sarifRunProperties(r),
	}
	if loc.URIBaseID != "" {
		run.OriginalURIBaseIDs = map[string]sarifArtifactLocation{sarifSourceRoot: {
			Description: &sarifText{Text: "The root of the checked-out repository."},
		}}
	}
	if r.Error != "" {
		run.Invocations[0].Notifications = []sarifNotification{{
			Level: "error", Message: sarifText{Text: "The probe did not finish: " + clip(r.Error, plainMessageWidth)},
		}}
	}
	for i, c := range r.Checks {
		run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, sarifRuleOf(c))
		switch c.Status {
		case string(checks.StatusFail), string(checks.StatusWarn):
			run.Results = append(run.Results, sarifResultOf(r, c, i, loc))
		case string(checks.StatusUntested):
			run.Results = append(run.Results, sarifUntestedOf(c, i, loc))
		}
	}
	// What fails or warns only under other accepted revisions is a result of its check too,
	// told apart by the revisions in its message and fingerprint.
	index := make(map[string]int, len(r.Checks))
	for i, c := range r.Checks {
		index[c.ID] = i
	}
	for _, p := range r.revisionProblems() {
		c := p.check
		if c.Status != string(checks.StatusFail) && c.Status != string(checks.StatusWarn) {
			continue
		}
		res := sarifResultOf(&Report{CitedFrames: p.frames, Baseline: r.Baseline}, c, index[c.ID], loc)
		under := strings.Join(p.revisions, ", ")
		res.Message.Text = textclip.Bytes("Under "+under+" (also accepted by the server): "+res.Message.Text, sarifMessageWidth)
		hash := sarifFingerprint(c.ID+"\x00"+under, loc.URI)
		res.PartialFingerprints = map[string]string{"primaryLocationLineHash": hash[:16] + ":1", sarifFingerprintKey: hash}
		if res.Properties == nil {
			res.Properties = map[string]any{}
		}
		res.Properties["revisions"] = p.revisions
		run.Results = append(run.Results, res)
	}
	doc := sarifLog{Schema: sarifSchemaURI, Version: sarifVersion, Runs: []sarifRun{run}}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("report: writing sarif: %w", err)
	}
	return nil
}

func sarifFormat() Format {
	return Format{
		Name:        "sarif",
		Description: "SARIF 2.1.0 for GitHub code scanning",
		Write: func(w io.Writer, r *Report, o WriteOptions) error {
			return WriteSARIF(w, r, o.SARIFArtifact)
		},
	}
}

func sarifRuleOf(c Check) sarifRule {
	title := c.Title
	if title == "" {
		title = "MCP conformance check " + c.ID
	}
	full := title
	if c.Rule != "" {
		full += " (rule " + c.Rule + ")"
	}
	full += "."
	help := full + "\nmcpwatch check " + c.ID + " probes the server the way a client would and judges the frames it exchanged."
	md := "**" + markdownText(title) + "**\n\nmcpwatch check `" + c.ID + "`"
	if c.Rule != "" {
		md += ", rule " + markdownText(c.Rule)
	}
	md += "."
	if c.Spec != "" {
		help += "\nSpecification: " + c.Spec
		md += " See [the specification](" + c.Spec + ")."
	}
	if c.Hint != "" {
		help += "\nUsual fix: " + c.Hint
		md += "\n\n**Usual fix:** " + markdownText(c.Hint)
	}
	area := c.Area
	if area == "" {
		area = "other"
	}
	rule := sarifRule{
		ID: c.ID, Name: ruleName(c.ID),
		ShortDescription:     sarifText{Text: textclip.Bytes(title, 1000)},
		FullDescription:      sarifText{Text: textclip.Bytes(full, 1000)},
		Help:                 sarifText{Text: help, Markdown: md},
		DefaultConfiguration: sarifRuleConfig{Level: "error"},
		Properties:           sarifRuleProps{Tags: []string{"mcp", "conformance", area}, Precision: "very-high"},
	}
	if u, err := url.Parse(c.Spec); err == nil && u.IsAbs() {
		rule.HelpURI = c.Spec
	}
	return rule
}

// ruleName is the id in the PascalCase SARIF suggests for names (lifecycle.ping → LifecyclePing).
func ruleName(id string) string {
	var b strings.Builder
	for _, part := range strings.FieldsFunc(id, func(r rune) bool { return r == '.' || r == '-' || r == '_' }) {
		b.WriteString(strings.ToUpper(part[:1]) + part[1:])
	}
	return b.String()
}

func sarifResultOf(r *Report, c Check, ruleIndex int, loc sarifArtifactLocation) sarifResult {
	level := "warning"
	switch {
	case c.Status == string(checks.StatusFail):
		level = "error"
	case c.advice():
		level = "note"
	}
	lines := append([]string{c.ID + ": " + clip(c.Message, plainMessageWidth) + "."}, evidenceLines(r, c)...)
	res := sarifResultAt(c.ID, ruleIndex, loc)
	res.Level, res.Kind = level, "fail"
	res.Message = sarifText{Text: textclip.Bytes(strings.Join(lines, "\n"), sarifMessageWidth)}
	if r.Baseline != nil {
		res.BaselineState = "new"
		if c.Baselined {
			res.BaselineState = "unchanged"
		}
	}
	if c.Baselined {
		why := "accepted in the baseline " + r.Baseline.File
		if c.BaselineReason != "" {
			why += ": " + c.BaselineReason
		}
		res.Suppressions = []sarifSuppression{{Kind: "external", Status: "accepted", Justification: why}}
	}
	if c.Rule != "" {
		res.Properties = map[string]any{"mcpRule": c.Rule}
	}
	return res
}

// sarifUntestedOf is the result of a check the probe could not judge: SARIF's kind "open"
// ("the tool could not determine whether the problem exists"), whose level must be "none".
// It takes no baseline state: it is neither a new failure nor an unchanged one.
func sarifUntestedOf(c Check, ruleIndex int, loc sarifArtifactLocation) sarifResult {
	res := sarifResultAt(c.ID, ruleIndex, loc)
	res.Level, res.Kind = "none", "open"
	res.Message = sarifText{Text: textclip.Bytes(c.ID+" untested: "+clip(c.Message, plainMessageWidth)+".", sarifMessageWidth)}
	if c.Rule != "" {
		res.Properties = map[string]any{"mcpRule": c.Rule}
	}
	return res
}

// sarifResultAt is a result of a check at the artifact, with its fingerprints.
func sarifResultAt(id string, ruleIndex int, loc sarifArtifactLocation) sarifResult {
	hash := sarifFingerprint(id, loc.URI)
	return sarifResult{
		RuleID: id, RuleIndex: ruleIndex,
		Locations: []sarifLocation{{PhysicalLocation: sarifPhysical{
			ArtifactLocation: loc,
			Region:           sarifRegion{StartLine: 1, StartColumn: 1, EndLine: 1, EndColumn: 2},
		}}},
		PartialFingerprints: map[string]string{
			"primaryLocationLineHash": hash[:16] + ":1",
			sarifFingerprintKey:       hash,
		},
	}
}

func sarifFingerprint(id, artifact string) string {
	sum := sha256.Sum256([]byte(id + "\x00" + artifact))
	return hex.EncodeToString(sum[:])
}

// semanticVersion is Semantic Versioning 2.0.0's grammar, loosely: three numbers, then an
// optional pre-release and build.
var semanticVersion = regexp.MustCompile(`^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$`)

// sarifDriverOf describes the tool. SARIF compares tool versions that start with a number
// (the SARIF validator's SARIF2005 asks for one), so a release's version is written without
// the "v" of its Go module tag, and as the semanticVersion too when it is one. A build of a
// checkout ("dev", "dev+<revision>") is written as the pre-release 0.0.0-dev…, which sorts
// below every release and still says what it is.
func sarifDriverOf(g Generator) sarifDriver {
	d := sarifDriver{Name: sarifToolName, InformationURI: sarifToolURI, Rules: []sarifRule{}}
	v := strings.TrimPrefix(strings.TrimSpace(g.Version), "v")
	if v == "" {
		return d
	}
	if v[0] < '0' || v[0] > '9' {
		v = "0.0.0-" + v
	}
	d.Version = v
	if semanticVersion.MatchString(v) {
		d.SemanticVersion = v
	}
	return d
}

// sarifArtifact is the artifact location of every result: the user's file, relative to the
// repository root when it is relative, or a reference made from the target.
func sarifArtifact(artifact, target string) sarifArtifactLocation {
	if artifact == "" {
		return sarifArtifactLocation{URI: targetReference(target), URIBaseID: sarifSourceRoot}
	}
	if u, err := url.Parse(artifact); err == nil && u.Scheme != "" && len(u.Scheme) > 1 {
		return sarifArtifactLocation{URI: u.String()} // already a URI (file:///...)
	}
	p := filepath.ToSlash(artifact)
	if path.IsAbs(p) {
		return sarifArtifactLocation{URI: (&url.URL{Scheme: "file", Path: path.Clean(p)}).String()}
	}
	p = strings.TrimPrefix(path.Clean(p), "./")
	return sarifArtifactLocation{URI: escapePath(p), URIBaseID: sarifSourceRoot}
}

// targetReference turns the target into a relative reference: host and path of a URL (no
// credentials, query or fragment, which may hold secrets), or the command as one segment.
func targetReference(target string) string {
	lower := strings.ToLower(target)
	if rest, ok := cutAnyPrefix(target, lower, "http://", "https://"); ok {
		// By hand rather than url.Parse: a redacted password ("[redacted]") is not valid in
		// a URL, and the reference must come out all the same.
		if i := strings.IndexAny(rest, "?#"); i >= 0 {
			rest = rest[:i]
		}
		host, p, _ := strings.Cut(rest, "/")
		if i := strings.LastIndexByte(host, '@'); i >= 0 {
			host = host[i+1:]
		}
		if host != "" {
			ref := escapeSegment(host)
			if p = strings.Trim(p, "/"); p != "" {
				ref += "/" + escapePath(p)
			}
			return ref
		}
	}
	if strings.TrimSpace(target) == "" {
		return "mcp-server"
	}
	return escapeSegment(target)
}

// cutAnyPrefix cuts the first of prefixes that lower (s in lower case) starts with from s.
func cutAnyPrefix(s, lower string, prefixes ...string) (string, bool) {
	for _, p := range prefixes {
		if strings.HasPrefix(lower, p) {
			return s[len(p):], true
		}
	}
	return s, false
}

// escapePath escapes each segment of a slash-separated path for a URI reference.
func escapePath(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = escapeSegment(s)
	}
	return strings.Join(segs, "/")
}

// escapeSegment escapes one path segment, colons included: "localhost:3000" unescaped would
// read as a URI of scheme localhost.
func escapeSegment(s string) string {
	return strings.ReplaceAll(url.PathEscape(s), ":", "%3A")
}

func sarifRunProperties(r *Report) map[string]any {
	props := map[string]any{
		"target": r.Target, "transport": r.Transport, "verdict": r.Verdict, "failOn": r.FailOn,
		"requestedVersion": r.RequestedVersion,
	}
	if r.ProtocolVersion != nil {
		props["protocolVersion"] = *r.ProtocolVersion
	}
	if name, version := r.ServerName(); name != "" || version != "" {
		props["server"] = strings.TrimSpace(name + " " + version)
	}
	return props
}
