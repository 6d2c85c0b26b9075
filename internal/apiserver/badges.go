package apiserver

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/mcpwatch/mcpwatch/internal/badge"
	"github.com/mcpwatch/mcpwatch/store"
)

// How long caches (a README's image proxy, say) may keep a badge.
const (
	badgeMaxAge       = 60 * time.Second
	uptimeBadgeMaxAge = 5 * time.Minute
)

// badgeStatus reads the status a badge shows; a missing server is a grey "not found" badge
// with status 404, so that a README shows something meaningful rather than a broken image.
func (s *API) badgeStatus(w http.ResponseWriter, r *http.Request) (store.ServerStatus, bool, error) {
	v, err := s.serverOf(r)
	var ae *apiError
	if errors.As(err, &ae) && ae.Status == http.StatusNotFound {
		s.writeBadge(w, r, http.StatusNotFound, badgeMaxAge, badge.Badge{Label: "mcp", Message: "not found", Color: badge.ColorGrey})
		return store.ServerStatus{}, false, nil
	}
	if err != nil {
		return store.ServerStatus{}, false, err
	}
	st, err := s.cfg.Store.ServerStatus(r.Context(), v.ID, s.cfg.Now())
	if err != nil {
		return store.ServerStatus{}, false, err
	}
	return st, true, nil
}

// writeBadge answers a badge with caching headers: a max age and an ETag of its bytes, so
// that a cache revalidating an unchanged badge gets 304.
func (s *API) writeBadge(w http.ResponseWriter, r *http.Request, status int, maxAge time.Duration, b badge.Badge) {
	svg := b.SVG()
	sum := sha256.Sum256(svg)
	etag := `"` + hex.EncodeToString(sum[:12]) + `"`
	h := w.Header()
	h.Set("Cache-Control", fmt.Sprintf("public, max-age=%d", int(maxAge.Seconds())))
	h.Set("ETag", etag)
	// An SVG opened on its own is a document: it may run nothing and load nothing.
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'")
	h.Set("X-Content-Type-Options", "nosniff")
	if status == http.StatusOK && etagMatches(r.Header.Get("If-None-Match"), etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Type", "image/svg+xml; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(svg)
}

func etagMatches(header, etag string) bool {
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(t), "W/"))
		if t == etag || t == "*" {
			return true
		}
	}
	return false
}

// stateColor is the colour of a server state.
func stateColor(state string) string {
	switch state {
	case store.StateUp:
		return badge.ColorGreen
	case store.StateDegraded:
		return badge.ColorYellow
	case store.StateDown:
		return badge.ColorRed
	}
	return badge.ColorGrey
}

// statusBadge is GET /badge/{server}/status.svg: the server's state.
func (s *API) statusBadge(w http.ResponseWriter, r *http.Request) error {
	st, ok, err := s.badgeStatus(w, r)
	if !ok || err != nil {
		return err
	}
	s.writeBadge(w, r, http.StatusOK, badgeMaxAge, badge.Badge{Label: "mcp", Message: st.State, Color: stateColor(st.State)})
	return nil
}

// uptimeBadge is GET /badge/{server}/uptime.svg?window=30d.
func (s *API) uptimeBadge(w http.ResponseWriter, r *http.Request) error {
	name := r.URL.Query().Get("window")
	if name == "" {
		name = "30d"
	}
	if _, ok := store.LookupWindow(name); !ok {
		return errorf(http.StatusBadRequest, codeBadRequest, "window: one of 24h, 7d, 30d, 90d")
	}
	st, ok, err := s.badgeStatus(w, r)
	if !ok || err != nil {
		return err
	}
	win, _ := st.Window(name)
	b := badge.Badge{Label: "uptime " + name, Message: "no data", Color: badge.ColorGrey}
	if win.Runs > 0 {
		u := 100 * float64(win.Up+win.Degraded) / float64(win.Runs)
		b.Message = formatPercent(u)
		switch {
		case u >= 99.9:
			b.Color = badge.ColorGreen
		case u >= 99:
			b.Color = badge.ColorYellow
		case u >= 95:
			b.Color = badge.ColorOrange
		default:
			b.Color = badge.ColorRed
		}
	}
	s.writeBadge(w, r, http.StatusOK, uptimeBadgeMaxAge, b)
	return nil
}

// formatPercent shows a percentage to two decimals, rounded down so that 99.999% never shows
// as 100%.
func formatPercent(p float64) string {
	if p >= 100 {
		return "100%"
	}
	return strconv.FormatFloat(math.Floor(p*100)/100, 'f', -1, 64) + "%"
}

// latencyBadge is GET /badge/{server}/latency.svg?quantile=p95: a percentile of the answer
// time over the last 24 hours.
func (s *API) latencyBadge(w http.ResponseWriter, r *http.Request) error {
	qs := r.URL.Query().Get("quantile")
	if qs == "" {
		qs = "p95"
	}
	q := map[string]float64{"p50": .5, "p95": .95, "p99": .99}[qs]
	if q == 0 {
		return errorf(http.StatusBadRequest, codeBadRequest, "quantile: one of p50, p95, p99")
	}
	st, ok, err := s.badgeStatus(w, r)
	if !ok || err != nil {
		return err
	}
	win, _ := st.Window("24h")
	// The figure is the answer time (see store.RunRecord.AnswerTime), and the label says so:
	// a whole probe, with its rule probes, takes several times as long.
	b := badge.Badge{Label: qs + " answer time", Message: "no data", Color: badge.ColorGrey}
	if win.Up+win.Degraded > 0 && win.Latency != nil {
		d := win.LatencyQuantile(q)
		b.Message = formatLatency(d)
		switch {
		case d < 500*time.Millisecond:
			b.Color = badge.ColorGreen
		case d < 2*time.Second:
			b.Color = badge.ColorYellow
		default:
			b.Color = badge.ColorOrange
		}
	}
	s.writeBadge(w, r, http.StatusOK, badgeMaxAge, b)
	return nil
}

func formatLatency(d time.Duration) string {
	switch {
	case d < 10*time.Millisecond:
		return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond))
	case d < time.Second:
		return fmt.Sprintf("%d ms", d.Round(time.Millisecond).Milliseconds())
	}
	return fmt.Sprintf("%.2f s", d.Seconds())
}

// conformanceBadge is GET /badge/{server}/conformance.svg: the score of the latest run.
func (s *API) conformanceBadge(w http.ResponseWriter, r *http.Request) error {
	st, ok, err := s.badgeStatus(w, r)
	if !ok || err != nil {
		return err
	}
	b := badge.Badge{Label: "MCP conformance", Message: "no data", Color: badge.ColorGrey}
	if c := st.Conformance; c != nil {
		score := c.Score()
		b.Message = fmt.Sprintf("%.0f%%", math.Floor(score))
		if c.Fail > 0 {
			b.Message += fmt.Sprintf(" · %d failing", c.Fail)
		}
		switch {
		case c.Fail == 0 && c.Warn == c.Advice && c.Untested == 0:
			b.Color = badge.ColorGreen
		case c.Fail == 0:
			b.Color = badge.ColorYellow
		default:
			b.Color = badge.ColorRed
		}
	}
	s.writeBadge(w, r, http.StatusOK, badgeMaxAge, b)
	return nil
}
