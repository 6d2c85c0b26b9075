package report

import (
	"encoding/json"

	"github.com/mcpwatch/mcpwatch/checks"
	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/protocol"
)

// Revision is one protocol revision of a --protocol-version all run: whether the server
// accepted it and how its probe came out. The report's own checks are those of the main
// revision (the newest accepted); every other revision lists only the checks whose status
// differs from the main revision's.
type Revision struct {
	Revision string `json:"revision"`
	// Accepted: initialize answered this revision (server/discover listed it, for a
	// stateless revision). Negotiated is what the server answered instead, or null.
	Accepted   bool    `json:"accepted"`
	Negotiated *string `json:"negotiated"`
	// Main marks the revision whose checks the report's own are.
	Main       bool    `json:"main,omitempty"`
	Transport  string  `json:"transport"`
	DurationMs float64 `json:"durationMs"`
	// Verdict of this revision's checks at the report's threshold (with its baseline); a
	// failing accepted revision fails the report.
	Verdict string  `json:"verdict"`
	Summary Summary `json:"summary"`
	Error   string  `json:"error,omitempty"`
	// Differences are the checks whose status differs from the main revision's where either
	// is a failure, a warning or untested: what breaks under this revision only, or only under the
	// main one (a rule that exists in one revision and not the other, pass against skip, is
	// no difference worth a line). Empty for the main revision itself.
	Differences []Check `json:"differences"`
	// CitedFrames are the frames of this revision's probe that the evidence of Differences
	// cites (their Seqs number this revision's transcript, not the main one's).
	CitedFrames []Frame `json:"citedFrames,omitempty"`
}

// RevisionRun is the probe of one revision and its findings, as AddRevisions takes it. The
// main revision's findings are the report's own and need not be given again.
type RevisionRun struct {
	Result   *probe.Result
	Findings []checks.Finding
}

// AddRevisions completes the report of the main revision (runs[main]) with every revision's
// outcome: the Revisions table, lifecycle.version-support over all of them (replacing the
// main probe's own), and the verdict, which fails when any accepted revision fails.
func AddRevisions(r *Report, runs []RevisionRun, main int, o BuildOptions) {
	if o.FailOn == checks.SeverityNone {
		o.FailOn = checks.SeverityError
	}
	b := builder{o: o, red: o.Redactor}
	outcomes := make([]checks.RevisionOutcome, 0, len(runs))
	for _, run := range runs {
		outcomes = append(outcomes, checks.RevisionOutcome{Revision: run.Result.Requested, Result: run.Result})
	}
	support := b.check(checks.VersionSupport(outcomes))
	for i := range r.Checks {
		if r.Checks[i].ID == support.ID {
			// The summary counted the main probe's own finding: count the one that replaces it.
			r.Summary.remove(r.Checks[i])
			r.Summary.add(support, false)
			support.Title = r.Checks[i].Title
			r.Checks[i] = support
		}
	}
	mainVerdict := r.Verdict // before the other revisions have their say
	mainStatus := make(map[string]string, len(r.Checks))
	mainFailing := map[string]bool{}
	for _, c := range r.Checks {
		mainStatus[c.ID] = c.Status
		mainFailing[c.ID] = r.failsVerdict(c)
	}
	// failingElsewhere are the checks that fail the verdict in another accepted revision
	// but not in the main one: the summary counts them, since the verdict does.
	failingElsewhere := map[string]bool{}
	for i, run := range runs {
		res := run.Result
		rev := Revision{
			Revision: res.Requested, Accepted: res.Accepted(), Main: i == main,
			Transport: res.Transport, DurationMs: millis(res.Duration), Error: b.text(res.Err),
			Differences: []Check{},
		}
		if res.Negotiated != "" {
			v := b.text(res.Negotiated)
			rev.Negotiated = &v
		}
		if i == main {
			rev.Summary, rev.Verdict = r.Summary, mainVerdict
			r.Revisions = append(r.Revisions, rev)
			continue
		}
		for _, f := range run.Findings {
			c := b.check(f)
			if c.ID == support.ID {
				continue // a fact about all revisions, told once above
			}
			failing := failsAt(c, o.FailOn)
			if failing {
				c.Baselined, c.BaselineReason = o.Baseline.accepts(c, o.FailOn)
				failing = !c.Baselined
			}
			rev.Summary.add(c, failing)
			if status, ok := mainStatus[c.ID]; ok && status != c.Status && (problem(status) || problem(c.Status)) {
				rev.Differences = append(rev.Differences, c)
				if failing && rev.Accepted && !mainFailing[c.ID] {
					failingElsewhere[c.ID] = true
				}
			}
		}
		for _, seq := range citedSeqs(rev.Differences) {
			if seq >= 0 && seq < len(res.Frames) {
				rev.CitedFrames = append(rev.CitedFrames, b.frame(res.Frames[seq], maxCitedFrameBytes))
			}
		}
		rev.Verdict = VerdictPass
		if rev.Summary.Failing > 0 || (rev.Accepted && res.Err != "") {
			rev.Verdict = VerdictFail
		}
		if rev.Accepted && rev.Verdict == VerdictFail {
			r.Verdict = VerdictFail
		}
		r.Revisions = append(r.Revisions, rev)
	}
	r.Summary.Failing += len(failingElsewhere)
}

// FailingRevisions lists the accepted revisions other than the main one whose checks fail.
func (r *Report) FailingRevisions() []string {
	var out []string
	for _, rev := range r.Revisions {
		if !rev.Main && rev.Accepted && rev.Verdict == VerdictFail {
			out = append(out, rev.Revision)
		}
	}
	return out
}

// serverInfoSource is what Build reads serverInfo from: the initialize result, or for a
// stateless server the serverInfo its DiscoverResult names in _meta.
func serverInfoSource(res *probe.Result) json.RawMessage {
	handshake, kind := res.Handshake()
	if kind != probe.HandshakeDiscover {
		return handshake
	}
	var dr struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(handshake, &dr) != nil || dr.Meta[protocol.MetaServerInfo] == nil {
		return nil
	}
	wrapped, err := json.Marshal(map[string]json.RawMessage{"serverInfo": dr.Meta[protocol.MetaServerInfo]})
	if err != nil {
		return nil
	}
	return wrapped
}

// problem reports whether a status is worth a line when it differs between revisions: a
// failure, a warning, or a check the probe of one revision could not judge.
func problem(status string) bool {
	return status == string(checks.StatusFail) || status == string(checks.StatusWarn) || status == string(checks.StatusUntested)
}
