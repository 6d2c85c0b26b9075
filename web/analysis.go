package web

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"html/template"

	"github.com/mcpwatch/mcpwatch/internal/runreport"
	"github.com/mcpwatch/mcpwatch/internal/toolsurface"
	"github.com/mcpwatch/mcpwatch/internal/toolsurface/probed"
	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/report"
	"github.com/mcpwatch/mcpwatch/store"
)

// analysis is a stored run made readable again: the report `prober check` would have printed
// for it, from its recording.
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

// analysisCacheSize bounds the analysed runs kept in memory: a server page analyses its
// latest run and the runs around its recent tool changes, and readers of one page ask for the
// same ones.
const analysisCacheSize = 128

// errNoRecording means the run has no stored transcript (not recorded, too large, aged out)
// or one that cannot be read.
var errNoRecording = errors.New("the run has no stored recording")

// analyse loads the recording of a run of srv (the zero Server when it was removed) and
// gives its report by the policy every reader of stored runs shares (runreport): the stored
// verdicts, with the recording's evidence and transcript. Analyses are cached by run id: a
// run never changes.
func (d *dashboard) analyse(ctx context.Context, id store.RunID, srv store.Server) (*analysis, error) {
	if a, ok := d.analyses.Get(id); ok {
		return a, nil
	}
	res, err := runreport.Recording(ctx, d.store, id)
	if errors.Is(err, runreport.ErrUnreadable) {
		d.log.WarnContext(ctx, "unreadable transcript", "run", id.String(), "err", err)
		return nil, errNoRecording
	}
	if err != nil {
		return nil, err
	}
	if res == nil {
		return nil, errNoRecording
	}
	run, err := d.store.Run(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("run %s: %w", id, err)
	}
	rep := runreport.Build(run, srv, res, runreport.Options{Catalog: d.checks, Verbose: true,
		Generator: report.Generator{Name: "mcpwatch prober", Version: d.version}})
	var text bytes.Buffer
	if err := report.WriteText(&text, rep, report.TextOptions{Color: true}); err != nil {
		return nil, fmt.Errorf("run %s: %w", id, err)
	}
	a := &analysis{result: res, report: rep, text: ansiToHTML(text.String())}
	a.tools, a.toolsOK = probed.Tools(res)
	d.analyses.Put(id, a)
	return a, nil
}
