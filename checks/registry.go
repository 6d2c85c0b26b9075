package checks

import (
	"fmt"
	"strings"
	"sync"

	"github.com/mcpwatch/mcpwatch/checks/mcpschema"
	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/protocol"
)

// Check is one rule of the catalogue (docs/checks.md).
type Check struct {
	ID   string
	Area string // jsonrpc, lifecycle, tools, stdio, http, ...
	Rule string // letters naming the spec rule, e.g. "A2, A4"
	// Spec is the link to the rule for the catalogue's reference revision; findings carry
	// SpecURL of the revision the probe spoke.
	Spec  string
	Title string // one line: what the rule requires (help text, SARIF rule descriptions)
	// Hint is the usual fix, in one line, carried by every finding that is not a pass.
	Hint string
	// Doc is the check's entry in the rules catalogue (nil for a check outside Default).
	Doc *CheckDoc
	// Transport limits the check to one transport ("" for all); on another it is skipped.
	Transport string
	// Evaluate records violations on f (Fail/Warn/Advise), or Skip/Untested/Info; recording
	// nothing passes.
	Evaluate func(r *Capture, f *Finding)

	// spec says where the rule is stated, per revision (see SpecURL).
	spec specSteps
}

// Registry is the set of checks a probe is judged by.
type Registry struct {
	checks []Check
	byID   map[string]int
	// transportSkips[i] is the skip reason of checks[i] on a transport it does not apply to.
	transportSkips []string
	// specURLs holds, per revision, every check's SpecURL ([]string in catalogue order),
	// resolved on first use: each finding of every evaluation carries its link, and building
	// it was a string concatenation per finding. Evaluations may run at once.
	specURLs sync.Map
}

// NewRegistry builds a registry of the given checks; IDs must be unique.
func NewRegistry(cs ...Check) (*Registry, error) {
	r := &Registry{byID: map[string]int{}}
	for _, c := range cs {
		if _, dup := r.byID[c.ID]; dup {
			return nil, fmt.Errorf("checks: duplicate check id %q", c.ID)
		}
		if c.Evaluate == nil {
			return nil, fmt.Errorf("checks: check %q has no Evaluate", c.ID)
		}
		r.byID[c.ID] = len(r.checks)
		r.checks = append(r.checks, c)
		r.transportSkips = append(r.transportSkips, transportSkip(c))
	}
	return r, nil
}

// Default is every check the project implements, grouped by area as the catalogue lists them.
// Building it is cheap (schemas compile on first use), but a registry keeps what it has
// compiled and cached, so reuse it across evaluations.
func Default() (*Registry, error) {
	schemas, err := mcpschema.New()
	if err != nil {
		return nil, fmt.Errorf("checks: loading message schemas: %w", err)
	}
	var all []Check
	all = append(all, envelopeChecks()...)
	all = append(all, lifecycleChecks(schemas)...)
	all = append(all, lifecycleRobustnessChecks()...)
	all = append(all, statelessChecks(schemas)...)
	all = append(all, statelessRuleChecks()...)
	all = append(all, toolChecks(schemas)...)
	all = append(all, toolProbeChecks()...)
	all = append(all, toolCallChecks(schemas)...)
	all = append(all, listChecks(schemas)...)
	all = append(all, resourceChecks()...)
	all = append(all, promptChecks()...)
	all = append(all, utilityChecks()...)
	all = append(all, stdioChecks()...)
	all = append(all, httpChecks()...)
	all = append(all, httpRuleChecks()...)
	all = append(all, sseChecks()...)
	all = append(all, authChecks()...)
	all = append(all, tlsChecks()...)
	all = append(all, versionSupportCheck())
	all = append(all, surfaceChecks()...)
	all = append(all, securityChecks()...)
	all = append(all, resultsChecks()...)
	all = append(all, transportChecks()...)
	return NewRegistry(withCatalogue(all)...)
}

// Checks lists the checks in catalogue order.
func (r *Registry) Checks() []Check { return append([]Check(nil), r.checks...) }

// Lookup finds a check by ID.
func (r *Registry) Lookup(id string) (Check, bool) {
	i, ok := r.byID[id]
	if !ok {
		return Check{}, false
	}
	return r.checks[i], true
}

// Select keeps the checks matching any of include (all when empty) and none of exclude.
// Patterns are exact IDs or prefixes ending in ".*" ("http.*"). An unknown pattern is an error,
// so that a typo does not silently turn a gate off.
func (r *Registry) Select(include, exclude []string) (*Registry, error) {
	for _, p := range append(append([]string(nil), include...), exclude...) {
		if !r.matchesAny(p) {
			return nil, fmt.Errorf("no check matches %q", p)
		}
	}
	var keep []Check
	for _, c := range r.checks {
		if (len(include) == 0 || matchAny(c.ID, include)) && !matchAny(c.ID, exclude) {
			keep = append(keep, c)
		}
	}
	return NewRegistry(keep...)
}

func (r *Registry) matchesAny(p string) bool {
	for _, c := range r.checks {
		if match(c.ID, p) {
			return true
		}
	}
	return false
}

func matchAny(id string, ps []string) bool {
	for _, p := range ps {
		if match(id, p) {
			return true
		}
	}
	return false
}

func match(id, p string) bool {
	if prefix, ok := strings.CutSuffix(p, "*"); ok {
		return strings.HasPrefix(id, prefix)
	}
	return id == p
}

// Evaluate runs every check on a probe result.
func (r *Registry) Evaluate(res *probe.Result) []Finding {
	run := NewCapture(res)
	specs := r.specsFor(run.Revision())
	out := make([]Finding, 0, len(r.checks))
	for i := range r.checks {
		out = append(out, judge(&r.checks[i], run, specs[i], r.transportSkips[i]))
	}
	return out
}

// specsFor is every check's SpecURL for a revision, in catalogue order. A revision the
// catalogue does not know links as the newest session revision does (see specSteps.at), so
// it shares that one's list rather than growing the map with every bogus revision a server
// sends.
func (r *Registry) specsFor(revision string) []string {
	if !protocol.KnownRevision(revision) {
		revision = protocol.LatestSessionRevision
	}
	if v, ok := r.specURLs.Load(revision); ok {
		return v.([]string)
	}
	urls := make([]string, len(r.checks))
	for i, c := range r.checks {
		urls[i] = c.SpecURL(revision)
	}
	v, _ := r.specURLs.LoadOrStore(revision, urls)
	return v.([]string)
}

// evaluateOne runs one check on its own.
func evaluateOne(c Check, run *Capture) Finding {
	return judge(&c, run, c.SpecURL(run.Revision()), transportSkip(c))
}

// transportSkip is the skip reason of c on a transport it does not apply to.
func transportSkip(c Check) string {
	if c.Transport == "" {
		return ""
	}
	return fmt.Sprintf("applies to the %s transport only", c.Transport)
}

// judge runs c on run; spec is c's SpecURL for the run's revision and skip its transportSkip,
// which a registry works out once rather than for every finding.
func judge(c *Check, run *Capture, spec, skip string) Finding {
	f := Finding{ID: c.ID, Rule: c.Rule, Spec: spec, Area: c.Area}
	if c.Transport != "" && c.Transport != run.Transport {
		f.skipReason = skip
	} else {
		c.Evaluate(run, &f)
		cutShort(run.Result, &f)
	}
	f.settle()
	if f.Severity != SeverityNone {
		f.Hint = c.Hint
	}
	return f
}
