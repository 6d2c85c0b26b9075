package web

import (
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/mcpwatch/mcpwatch/internal/textclip"
	"github.com/mcpwatch/mcpwatch/internal/toolsurface"
	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/store"
)

// toolsView is the tool surface of a server and how it changed.
type toolsView struct {
	Tools   []toolRow
	More    int // tools not shown
	Count   int
	FromRun string
	Note    string // why no list is shown
	Changes []changeView
	Since   string
}

type toolRow struct {
	Name        string
	Title       string
	Description string
	Params      []toolParam
}

// changeView is one change of the tool fingerprint.
type changeView struct {
	At, Ago   string
	Href      string
	Region    string
	Count     string // "12 → 13 tools"
	First     bool   // first surface seen in the period
	Diffed    bool   // the lists below are known (both runs' recordings were there)
	Added     []string
	Removed   []string
	Changed   []string // "name (description, input schema)"
	Print     string
	PrevPrint string
}

// Bounds of the drift history: the raw runs of this many days are searched for changes, this
// many changes shown, and the newest few of them compared tool by tool (two recordings each).
const (
	driftDays     = 30
	driftShown    = 20
	driftCompared = 5
)

func (d *dashboard) toolsOf(r *http.Request, srv store.Server, latest *store.RunRecord, a *analysis, now time.Time) (toolsView, error) {
	var v toolsView
	switch {
	case latest == nil:
		v.Note = "No run yet."
	case a == nil:
		v.Note = "The latest run's recording is not stored, so its tools cannot be listed."
	case !a.toolsOK:
		v.Note = "The latest run could not list tools" + listFailure(a.result) + "."
	default:
		v.FromRun = runHref(latest.ID)
		v.Count = len(a.tools)
		for i, t := range a.tools {
			if i == maxToolsShown {
				v.More = len(a.tools) - i
				break
			}
			v.Tools = append(v.Tools, toolRow{Name: textclip.Runes(t.Name, 120), Title: textclip.Runes(t.Title, 120),
				Description: textclip.Runes(t.Description, 300), Params: paramsOf(t.InputSchema)})
		}
		if v.Count == 0 {
			v.Note = "The server lists no tools."
		}
	}
	v.Since = formatTime(now.Add(-driftDays * 24 * time.Hour))
	changes, err := d.store.ToolChanges(r.Context(), srv.ID, now.Add(-driftDays*24*time.Hour), driftShown)
	if err != nil {
		return v, err
	}
	for i, c := range changes {
		cv := changeView{At: formatTime(c.Start), Ago: formatAgo(c.Start, now), Href: runHref(c.RunID), Region: c.Region,
			Print: shortPrint(c.Fingerprint), First: c.Previous == nil}
		cv.Count = countText(c.ToolCount)
		if c.Previous != nil {
			cv.PrevPrint = shortPrint(c.Previous.Fingerprint)
			if c.Previous.ToolCount != nil && c.ToolCount != nil && *c.Previous.ToolCount != *c.ToolCount {
				cv.Count = countText(c.Previous.ToolCount) + " → " + cv.Count
			}
			if i < driftCompared {
				diff, ok, err := d.compareTools(r, srv, c)
				if err != nil {
					return v, err
				}
				cv.Diffed, cv.Added, cv.Removed = ok, diff.Added, diff.Removed
				for _, ch := range diff.Changed {
					cv.Changed = append(cv.Changed, ch.Name+" ("+changedParts(ch)+")")
				}
			}
		}
		v.Changes = append(v.Changes, cv)
	}
	return v, nil
}

// compareTools lists what changed between the run before a change and the change itself; ok
// is false when either recording is gone.
func (d *dashboard) compareTools(r *http.Request, srv store.Server, c store.ToolChange) (toolsurface.Diff, bool, error) {
	load := func(id store.RunID) (*analysis, error) { return d.analyse(r.Context(), id, srv) }
	before, err := load(c.Previous.RunID)
	if errors.Is(err, errNoRecording) {
		return toolsurface.Diff{}, false, nil
	}
	if err != nil {
		return toolsurface.Diff{}, false, err
	}
	after, err := load(c.RunID)
	if errors.Is(err, errNoRecording) {
		return toolsurface.Diff{}, false, nil
	}
	if err != nil {
		return toolsurface.Diff{}, false, err
	}
	if !before.toolsOK || !after.toolsOK {
		return toolsurface.Diff{}, false, nil
	}
	return toolsurface.Compare(before.tools, after.tools), true, nil
}

func countText(n *int) string {
	if n == nil {
		return "? tools"
	}
	return plural(*n, "tool", "tools")
}

// shortPrint shortens "sha256:4f2a9c…" to its first 12 hex digits.
func shortPrint(fp string) string {
	fp = strings.TrimPrefix(fp, "sha256:")
	return textclip.Runes(fp, 13)
}

// listFailure says how the first failed tools/list page failed.
func listFailure(res *probe.Result) string {
	for _, st := range res.Steps {
		if st.Name != probe.StepToolsList || st.Conn != probe.ConnMain || st.Outcome == probe.OutcomeOK {
			continue
		}
		var parts []string
		if st.ErrorCode != nil {
			parts = append(parts, "JSON-RPC error "+itoa64(*st.ErrorCode))
		}
		if st.HTTPStatus != 0 {
			parts = append(parts, "HTTP "+itoa64(int64(st.HTTPStatus)))
		}
		if len(parts) == 0 {
			parts = append(parts, string(st.Outcome))
		}
		return ": " + strings.Join(parts, ", ")
	}
	return ""
}
