// Package runreport gives the report of a run the monitor stored: one policy, so that the web
// run page and the API show one run with one verdict.
//
// The verdict is the stored one: the findings the monitor judged the run by when it probed,
// which its outcome and alerts came from. Judging the recording again could say otherwise (the
// catalogue changes between releases; a monitor may run a selection of the checks), and a run
// does not change after it happened. The recording, when it is kept, gives the report its
// steps, transcript and processes, and a finding its evidence where the checks judge the
// recording the same way today; without it the stored steps stand in.
//
// A report of a stored run never shows the server's secrets: the credentials of its URL, a
// stdio server's arguments and literal environment values, the values of its configured
// headers; a stdio server's target is its program's name only.
package runreport

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/mcpwatch/mcpwatch/checks"
	"github.com/mcpwatch/mcpwatch/internal/redact"
	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/protocol"
	"github.com/mcpwatch/mcpwatch/report"
	"github.com/mcpwatch/mcpwatch/store"
)

// Options tune Build.
type Options struct {
	// Catalog describes the stored findings and judges the recording again for their
	// evidence (required).
	Catalog *checks.Registry
	// Generator names the program showing the report.
	Generator report.Generator
	// Verbose includes every frame of the recording.
	Verbose bool
}

// Build gives the report of run, a run of srv (the zero Server when srv was removed), from
// its recording (nil when none is kept).
func Build(run store.RunRecord, srv store.Server, recording *probe.Result, o Options) *report.Report {
	res := recording
	if res == nil {
		res = resultFromRun(run, srv)
	}
	findings := storedFindings(run, res, o.Catalog)
	shown := *res // the caller's recording keeps its own target
	shown.Target = publicTarget(res, srv)
	return report.Build(&shown, findings, report.BuildOptions{
		Verbose:       o.Verbose,
		Catalog:       o.Catalog,
		Generator:     o.Generator,
		Redactor:      redact.New(secretsOf(srv)...),
		SecretHeaders: headerNames(srv),
	})
}

// secretsOf lists what a report about srv must not show: the credentials of its URL, and a
// stdio server's arguments (as redact.ArgumentSecrets tells them) and literal environment
// values (any of which may be a token).
func secretsOf(srv store.Server) []string {
	out := srv.URLSecrets()
	out = append(out, redact.ArgumentSecrets(srv.Args)...)
	for _, e := range srv.Env {
		out = append(out, e.Value)
	}
	return out
}

// headerNames lists a server's configured header names: their values are secrets.
func headerNames(srv store.Server) []string {
	var out []string
	for _, h := range srv.Headers {
		out = append(out, h.Name)
	}
	return out
}

// publicTarget is the target a report may show: a stdio server's command line can hold
// secrets (a token in an argument), so only the program's name is shown; a URL loses its
// credentials.
func publicTarget(res *probe.Result, srv store.Server) string {
	if srv.Transport == protocol.TransportStdio || res.Transport == protocol.TransportStdio {
		name := srv.Command
		if name == "" {
			name, _, _ = strings.Cut(res.Target, " ")
		}
		return "stdio: " + path.Base(name)
	}
	if srv.URL != "" {
		return srv.PublicURL()
	}
	return (store.Server{URL: res.Target}).PublicURL()
}

// resultFromRun stands in for the recording of a run whose transcript is gone: what the
// stored run and steps say.
func resultFromRun(run store.RunRecord, srv store.Server) *probe.Result {
	res := &probe.Result{Transport: srv.Transport, Negotiated: run.ProtocolVersion,
		ProtocolVersion: run.ProtocolVersion, Start: run.Start, Duration: run.Duration, Err: run.Error}
	for _, st := range run.Steps {
		ps := probe.Step{Name: st.Name, Method: st.Method, Outcome: probe.Outcome(st.Outcome),
			Latency: st.Latency, ErrorCode: st.ErrorCode, Request: -1, Response: -1}
		if st.HTTPStatus != nil {
			ps.HTTPStatus = *st.HTTPStatus
		}
		res.Steps = append(res.Steps, ps)
	}
	return res
}

// storedFindings returns the stored findings of a run, described from the catalogue and,
// where the checks judge the recording the same way today, with their evidence.
func storedFindings(run store.RunRecord, res *probe.Result, catalog *checks.Registry) []checks.Finding {
	evidence := map[string]checks.Finding{}
	if len(res.Frames) > 0 {
		for _, f := range catalog.Evaluate(res) {
			evidence[f.ID] = f
		}
	}
	out := make([]checks.Finding, 0, len(run.Findings))
	for _, fr := range run.Findings {
		f := checks.Finding{ID: fr.CheckID, Status: checks.Status(fr.Status), Severity: checks.Severity(fr.Severity), Message: fr.Message}
		if c, ok := catalog.Lookup(fr.CheckID); ok {
			f.Area, f.Rule, f.Spec = c.Area, c.Rule, c.SpecURL(run.ProtocolVersion)
			if f.Severity != checks.SeverityNone {
				f.Hint = c.Hint
			}
		}
		if again, ok := evidence[fr.CheckID]; ok && again.Status == f.Status {
			f.Evidence, f.Data = again.Evidence, again.Data
		}
		out = append(out, f)
	}
	return out
}

// Transcripts is where the recordings of runs are kept (a *store.Store).
type Transcripts interface {
	Transcript(ctx context.Context, id store.RunID) ([]byte, error)
}

// ErrUnreadable says a run's stored recording cannot be read back (written by another
// version, or damaged): its report stands on the stored run, as if none were kept.
var ErrUnreadable = errors.New("the run's recording cannot be read")

// Recording reads the recording of run id: nil when none is kept (not recorded, too large,
// aged out), nil and an error wrapping ErrUnreadable when it cannot be read. Either way
// Build(run, srv, nil, o) is the run's report.
func Recording(ctx context.Context, src Transcripts, id store.RunID) (*probe.Result, error) {
	raw, err := src.Transcript(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	res, err := probe.ReadRecording(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("%w: run %s: %w", ErrUnreadable, id, err)
	}
	return res, nil
}
