package apiserver

import (
	"errors"
	"net/http"

	"github.com/mcpwatch/mcpwatch/store"
)

// serverOf finds the server a request's {server} names.
func (s *API) serverOf(r *http.Request) (store.Server, error) {
	name := r.PathValue("server")
	v, err := s.cfg.Store.ServerByName(r.Context(), name)
	if errors.Is(err, store.ErrNotFound) {
		return store.Server{}, errorf(http.StatusNotFound, codeNotFound, "no server is named "+quote(name))
	}
	return v, err
}

func quote(s string) string {
	if len(s) > 80 {
		s = s[:80] + "…"
	}
	return `"` + s + `"`
}

// getServer is GET /api/v1/servers/{server}.
func (s *API) getServer(w http.ResponseWriter, r *http.Request) error {
	v, err := s.serverOf(r)
	if err != nil {
		return err
	}
	now := s.cfg.Now()
	d, err := s.cfg.Store.ServerDetail(r.Context(), v.ID, now)
	if errors.Is(err, store.ErrNotFound) {
		return errorf(http.StatusNotFound, codeNotFound, "no server is named "+quote(v.Name))
	}
	if err != nil {
		return err
	}
	sv := s.toStatusView(d.ServerStatus)
	sv.Links = s.links(v.Name)
	out := detailView{statusView: sv, Days: toDayViews(d.Days()),
		ByRegion: []regionDetailView{}, Hours: []hourView{}, AsOf: now.UTC()}
	for _, rw := range d.ByRegion {
		rv := regionDetailView{Region: rw.Region, Uptime: toWindowViews(rw.Windows), Days: toDayViews(rw.Days)}
		if len(rw.Windows) > 0 {
			rv.Latency = toLatencyView(rw.Windows[0])
		}
		out.ByRegion = append(out.ByRegion, rv)
	}
	for _, h := range d.Hours {
		hv := hourView{Hour: h.Hour, Region: h.Region, Runs: h.Runs, Up: h.Up, Degraded: h.Degraded, Down: h.Down}
		if h.Up+h.Degraded > 0 && h.Latency != nil {
			hv.P50Ms, hv.P95Ms, hv.P99Ms = msPtr(h.LatencyQuantile(.5)), msPtr(h.LatencyQuantile(.95)), msPtr(h.LatencyQuantile(.99))
		}
		out.Hours = append(out.Hours, hv)
	}
	s.writeJSON(w, http.StatusOK, out)
	return nil
}
