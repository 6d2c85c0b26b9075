package apiserver

import (
	"net/http"
	"time"

	"github.com/mcpwatch/mcpwatch/internal/toolsurface"
	"github.com/mcpwatch/mcpwatch/internal/toolsurface/probed"
	"github.com/mcpwatch/mcpwatch/store"
)

// Bounds of GET /api/v1/servers/{server}/tools: changes looked back on, and changes whose
// tool-by-tool diff is read from transcripts (two each).
const (
	toolHistory      = 31 * 24 * time.Hour
	maxToolChanges   = 50
	maxDiffedChanges = 10
)

type toolSurfaceView struct {
	RunID       string             `json:"runId"`
	At          time.Time          `json:"at"`
	Fingerprint string             `json:"fingerprint"`
	Count       *int               `json:"count"`
	Tools       []toolsurface.Tool `json:"tools"`
	// Known is false when the run's transcript is gone: the fingerprint and count remain.
	Known bool `json:"known"`
}

type toolChangeView struct {
	RunID       string            `json:"runId"`
	At          time.Time         `json:"at"`
	Region      string            `json:"region"`
	Fingerprint string            `json:"fingerprint"`
	Count       *int              `json:"count"`
	Previous    *toolPrevView     `json:"previous"`
	Diff        *toolsurface.Diff `json:"diff"`
}

type toolPrevView struct {
	RunID       string    `json:"runId"`
	At          time.Time `json:"at"`
	Fingerprint string    `json:"fingerprint"`
	Count       *int      `json:"count"`
}

// getTools is GET /api/v1/servers/{server}/tools: the current tool surface and its changes
// over the last month, newest first; the latest changes name the tools added, removed and
// changed.
func (s *API) getTools(w http.ResponseWriter, r *http.Request) error {
	v, err := s.serverOf(r)
	if err != nil {
		return err
	}
	changes, err := s.cfg.Store.ToolChanges(r.Context(), v.ID, s.cfg.Now().Add(-toolHistory), maxToolChanges)
	if err != nil {
		return err
	}
	cache := map[store.RunID][]toolsurface.Tool{}
	known := map[store.RunID]bool{}
	toolsOf := func(id store.RunID) ([]toolsurface.Tool, bool, error) {
		if t, ok := cache[id]; ok || known[id] {
			return t, known[id], nil
		}
		res, err := s.recording(r, id)
		if err != nil || res == nil {
			return nil, false, err
		}
		t, ok := probed.Tools(res)
		if t == nil {
			t = []toolsurface.Tool{}
		}
		cache[id], known[id] = t, ok
		return t, ok, nil
	}
	out := struct {
		Current *toolSurfaceView `json:"current"`
		Changes []toolChangeView `json:"changes"`
	}{Changes: []toolChangeView{}}
	if len(changes) > 0 {
		c := changes[0]
		tools, ok, err := toolsOf(c.RunID)
		if err != nil {
			return err
		}
		if tools == nil {
			tools = []toolsurface.Tool{}
		}
		out.Current = &toolSurfaceView{RunID: c.RunID.String(), At: c.Start.UTC(), Fingerprint: c.Fingerprint,
			Count: c.ToolCount, Tools: tools, Known: ok}
	}
	for i, c := range changes {
		cv := toolChangeView{RunID: c.RunID.String(), At: c.Start.UTC(), Region: c.Region, Fingerprint: c.Fingerprint, Count: c.ToolCount}
		if p := c.Previous; p != nil {
			cv.Previous = &toolPrevView{RunID: p.RunID.String(), At: p.Start.UTC(), Fingerprint: p.Fingerprint, Count: p.ToolCount}
			if i < maxDiffedChanges {
				before, okB, err := toolsOf(p.RunID)
				if err != nil {
					return err
				}
				after, okA, err := toolsOf(c.RunID)
				if err != nil {
					return err
				}
				if okB && okA {
					d := toolsurface.Compare(before, after)
					cv.Diff = &d
				}
			}
		}
		out.Changes = append(out.Changes, cv)
	}
	s.writeJSON(w, http.StatusOK, out)
	return nil
}
