package web

import (
	"fmt"
	"html/template"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/mcpwatch/mcpwatch/store"
	"github.com/mcpwatch/mcpwatch/web/chart"
)

// chartWindow is a span of the latency chart and the width of its buckets.
type chartWindow struct {
	name   string
	hours  int
	bucket time.Duration
}

const defaultWindow = "24h"

func chartWindows() []chartWindow {
	return []chartWindow{
		{"24h", 24, time.Hour},
		{"7d", 7 * 24, time.Hour},
		{"30d", 30 * 24, 6 * time.Hour},
		{"90d", 90 * 24, 24 * time.Hour},
	}
}

func chartWindowOf(name string) (chartWindow, bool) {
	if name == "" {
		name = defaultWindow
	}
	for _, w := range chartWindows() {
		if w.name == name {
			return w, true
		}
	}
	return chartWindow{}, false
}

// latencyChart is the latency card of the server page.
type latencyChart struct {
	Window  string
	Tabs    []windowTab
	Legend  []legendItem
	Wide    template.HTML
	Narrow  template.HTML
	Caption string
}

type windowTab struct {
	Label   string
	Href    string
	Current bool
}

type legendItem struct {
	Name  string
	Class string
}

// maxChartRegions bounds the regions drawn (five colours); more would be unreadable anyway.
const maxChartRegions = 5

// latencyChart draws p50 and p95 per region over the chosen window. The server's detail holds
// the last week hour by hour; longer windows read the rollups (by day where a bucket is a day)
// and sum them per bucket.
func (d *dashboard) latencyChart(r *http.Request, det store.ServerDetail, w chartWindow, now time.Time) (latencyChart, error) {
	out := latencyChart{Window: w.name}
	for _, cw := range chartWindows() {
		v := url.Values{}
		if cw.name != defaultWindow {
			v.Set("window", cw.name)
		}
		href := serverHref(det.Server.Name)
		if len(v) > 0 {
			href += "?" + v.Encode()
		}
		out.Tabs = append(out.Tabs, windowTab{Label: windowLabel(cw.name), Href: href + "#latency", Current: cw.name == w.name})
	}
	end := now.Truncate(time.Hour).Add(time.Hour) // the current hour is in
	start := end.Add(-time.Duration(w.hours) * time.Hour)
	start = time.Unix(0, 0).UTC().Add(start.Sub(time.Unix(0, 0)).Truncate(w.bucket))
	n := int((end.Sub(start) + w.bucket - 1) / w.bucket)

	var hours []store.HourStats
	switch {
	case w.hours <= store.DetailHours:
		for _, h := range det.Hours {
			if !h.Hour.Before(start) && h.Hour.Before(end) {
				hours = append(hours, h)
			}
		}
	case w.bucket == 24*time.Hour:
		// Buckets of a day: whole days from the status sums where they hold them.
		var err error
		if hours, err = d.store.DayRollups(r.Context(), det.Server.ID, start, end, now); err != nil {
			return out, err
		}
	default:
		rows, err := d.store.HourlyRollups(r.Context(), []int64{det.Server.ID}, start, end)
		if err != nil {
			return out, err
		}
		for _, h := range rows {
			hours = append(hours, h.HourStats)
		}
	}

	var regions []string
	seen := map[string]bool{}
	for _, h := range hours {
		if !seen[h.Region] {
			seen[h.Region] = true
			regions = append(regions, h.Region)
		}
	}
	slices.Sort(regions)
	if len(regions) > maxChartRegions {
		regions = regions[:maxChartRegions]
	}
	index := map[string]int{}
	for i, rg := range regions {
		index[rg] = i
	}
	buckets := make([][]store.Stats, len(regions))
	for i := range buckets {
		buckets[i] = make([]store.Stats, n)
	}
	for _, h := range hours {
		ri, ok := index[h.Region]
		b := int(h.Hour.Sub(start) / w.bucket)
		if ok && b >= 0 && b < n {
			buckets[ri][b].Merge(h.Stats)
		}
	}
	x := make([]time.Time, n)
	for i := range x {
		x[i] = start.Add(time.Duration(i) * w.bucket)
	}
	var series []chart.Series
	hover := make([]string, n)
	for ri, rg := range regions {
		p50, p95 := make([]float64, n), make([]float64, n)
		for b, st := range buckets[ri] {
			p50[b], p95[b] = math.NaN(), math.NaN()
			if st.Up+st.Degraded > 0 {
				p50[b], p95[b] = millis(st.LatencyQuantile(0.5)), millis(st.LatencyQuantile(0.95))
			}
		}
		class := fmt.Sprintf("r%d", ri)
		series = append(series,
			chart.Series{Name: rg + " p50", Class: class + " p50", Values: p50},
			chart.Series{Name: rg + " p95", Class: class + " p95", Values: p95})
		out.Legend = append(out.Legend, legendItem{Name: rg + " p50", Class: class + " p50"}, legendItem{Name: rg + " p95", Class: class + " p95"})
	}
	for b := range n {
		var parts []string
		for ri, rg := range regions {
			st := buckets[ri][b]
			if st.Runs == 0 {
				continue
			}
			part := fmt.Sprintf("%s: %s", rg, plural(int(st.Runs), "run", "runs"))
			if st.Up+st.Degraded > 0 {
				part += fmt.Sprintf(", p50 %s, p95 %s", formatLatency(st.LatencyQuantile(0.5)), formatLatency(st.LatencyQuantile(0.95)))
			}
			if st.Down > 0 {
				part += fmt.Sprintf(", %d down", st.Down)
			}
			parts = append(parts, part)
		}
		if len(parts) > 0 {
			hover[b] = bucketLabel(x[b], w.bucket) + " — " + strings.Join(parts, "; ")
		}
	}
	label := fmt.Sprintf("Answer time of %s over the last %s, p50 and p95 per region", det.Server.Name, windowLabel(w.name))
	base := chart.TimeChart{X: x, Step: w.bucket, Series: series, Hover: hover, YFormat: formatAxisMillis,
		Class: "timechart", Label: label, Empty: "No run reached the server in this window"}
	wide, narrow := base, base
	wide.Width, wide.Height = 860, 260
	narrow.Width, narrow.Height = 380, 240
	out.Wide, out.Narrow = template.HTML(wide.SVG()), template.HTML(narrow.SVG())
	out.Caption = fmt.Sprintf("Each point is the answer-time percentile of runs in one %s bucket (solid p50, dashed p95); hover for the numbers. "+
		"A run's answer time is how long the server took to answer initialize (server/discover when stateless) and the first tools/list page; "+
		"the whole probe, with its other requests and rule probes, is on each run's page.", bucketName(w.bucket))
	return out, nil
}

func bucketLabel(t time.Time, bucket time.Duration) string {
	if bucket >= 24*time.Hour {
		return t.UTC().Format("Mon Jan 2")
	}
	return t.UTC().Format("Jan 2 15:04") + "–" + t.Add(bucket).UTC().Format("15:04") + " UTC"
}

func bucketName(bucket time.Duration) string {
	switch bucket {
	case time.Hour:
		return "hour"
	case 24 * time.Hour:
		return "day"
	}
	return fmt.Sprintf("%d-hour", int(bucket.Hours()))
}
