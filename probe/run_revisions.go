package probe

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/mcpwatch/mcpwatch/protocol"
)

// Accepted reports whether the server accepted the revision the probe offered: initialize
// answered with that very revision, or (stateless) server/discover answered with a result
// that lists it.
func (r *Result) Accepted() bool {
	return r.Requested != "" && r.Negotiated == r.Requested && (r.Initialize != nil || r.Discover != nil)
}

// stdioRevisionsAtOnce bounds the revisions RunRevisions probes at once over stdio. The
// carrier of the rule probes starts three server processes, a stateless revision's probe two
// (three when the era probe must tell whether the server also speaks a session revision), any
// other probe one.
const stdioRevisionsAtOnce = 3

// RunRevisions probes the target once per revision, all at once (over stdio at most
// stdioRevisionsAtOnce at a time), each probe offering its revision as given (no era
// detection, no fallback), and returns the results in the order of revs. Each probe has its own connections (and, for stdio, its own server processes), so
// that what one revision does to a server never shows in another's evidence.
func RunRevisions(ctx context.Context, t Target, o Options, revs []string) ([]*Result, error) {
	if err := t.Validate(); err != nil {
		return nil, err
	}
	for _, rev := range revs {
		if !protocol.KnownRevision(rev) {
			return nil, fmt.Errorf("probe: unknown revision %q", rev)
		}
	}
	out := make([]*Result, len(revs))
	errs := make([]error, len(revs))
	// The rule probes judge transport and robustness rules that do not change with the
	// revision offered: one probe runs them (the newest session revision's, whose handshake
	// a server of any revision can answer), so that probing five revisions does not cost five
	// times their connections and server processes. A stateless revision's probe runs its own:
	// they speak its era (robustness and tool probes in _meta), and when the report is about
	// that revision it must rest on the probes a default run makes, the session-era ones of a
	// server that speaks both eras included.
	carrier := rulesCarrier(revs)
	// Every probe of a stdio server starts several server processes; all revisions at once
	// would start dozens of them, which can starve a slow-starting server past its init
	// timeout. An HTTP server costs nothing to start.
	slots := make(chan struct{}, len(revs))
	if t.Kind() == protocol.TransportStdio {
		slots = make(chan struct{}, stdioRevisionsAtOnce)
	}
	var wg sync.WaitGroup
	for i, rev := range revs {
		ro := o
		ro.ProtocolVersion = rev
		if protocol.Stateless(rev) {
			ro.sessionRulesToo = true
		} else if i != carrier && ro.RulesElsewhere == "" {
			ro.revisionRules = true
			ro.RulesElsewhere = fmt.Sprintf("the probes that do not depend on the revision offered (the rule probes, and initialize with a bogus revision) ran once, in the probe of revision %s", revs[carrier])
		}
		wg.Go(func() {
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
				out[i], errs[i] = Run(ctx, t, ro) // ends at once, recording why
				return
			}
			defer func() { <-slots }()
			out[i], errs[i] = Run(ctx, t, ro)
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}

// NewestAccepted picks, of results of RunRevisions, the probe of the newest revision the
// server accepted; when it accepted none, the probe of the newest session revision (whose
// failure to initialize says most about a server that speaks neither era).
func NewestAccepted(results []*Result) int {
	best := -1
	for i, r := range results {
		if r.Accepted() && (best < 0 || r.Requested > results[best].Requested) {
			best = i
		}
	}
	if best >= 0 {
		return best
	}
	for i, r := range results {
		if !protocol.Stateless(r.Requested) && (best < 0 || r.Requested > results[best].Requested) {
			best = i
		}
	}
	if best < 0 && len(results) > 0 {
		best = len(results) - 1
	}
	return best
}

// rulesCarrier is the index of the revision whose probe runs the rule probes: the newest
// session revision of revs, or the newest of all when none has sessions.
func rulesCarrier(revs []string) int {
	best := -1
	for i, r := range revs {
		if best < 0 || (protocol.Stateless(revs[best]) && !protocol.Stateless(r)) || (protocol.Stateless(revs[best]) == protocol.Stateless(r) && r > revs[best]) {
			best = i
		}
	}
	return best
}
