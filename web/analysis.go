package web

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"html/template"

	"github.com/mcpwatch/mcpwatch/checks/report"
	"github.com/mcpwatch/mcpwatch/internal/toolsurface"
	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/store"
)

// analysis is a stored run made readable again: its recording judged by the checks into the
// report `prober check` would have printed for it.
type analysis struct {
	result *probe.Result
	// report holds every frame (built verbose) for the transcript view.
	report *report.Report
	// text is the text report, coloured as on a terminal, as HTML.
	text template.HTML
	// tools is the tool surface listed by the run (toolsOK: tools/list succeeded).
	tools   []toolsurface.Tool
	toolsOK bool
}

// errNoRecording means the run has no stored transcript (not recorded, too large, aged out).
var errNoRecording = errors.New("the run has no stored recording")

// analyse loads and judges the recording of a run; secretHeaders are the header names of its
// server, whose values are never shown. Analyses are cached by run id: a run never changes.
func (d *dashboard) analyse(ctx context.Context, id store.RunID, secretHeaders []string) (*analysis, error) {
	if a, ok := d.analyses.get(id); ok {
		return a, nil
	}
	raw, err := d.store.Transcript(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, errNoRecording
	}
	if err != nil {
		return nil, err
	}
	res, err := probe.ReadRecording(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("run %s: %w", id, err)
	}
	rep := report.Build(res, d.checks.Evaluate(res), report.BuildOptions{
		Verbose:       true,
		Catalog:       d.checks,
		Generator:     report.Generator{Name: "mcpwatch prober", Version: d.version},
		Redactor:      report.NewRedactor(),
		SecretHeaders: secretHeaders,
	})
	var text bytes.Buffer
	if err := report.WriteText(&text, rep, report.TextOptions{Color: true}); err != nil {
		return nil, fmt.Errorf("run %s: %w", id, err)
	}
	a := &analysis{result: res, report: rep, text: ansiToHTML(text.String())}
	a.tools, a.toolsOK = toolsurface.FromResult(res)
	d.analyses.put(id, a)
	return a, nil
}

// headerNames lists a server's configured header names (their values are secrets).
func headerNames(v store.Server) []string {
	var out []string
	for _, h := range v.Headers {
		out = append(out, h.Name)
	}
	return out
}
