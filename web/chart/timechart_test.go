package chart

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"
)

func sampleChart() TimeChart {
	start := time.Date(2025, 11, 20, 0, 0, 0, 0, time.UTC)
	var x []time.Time
	for i := range 4 {
		x = append(x, start.Add(time.Duration(i)*time.Hour))
	}
	return TimeChart{
		Width: 466, Height: 194, X: x, Step: time.Hour,
		Series: []Series{
			{Name: "eu p50", Class: "s0 p50", Values: []float64{100, 200, math.NaN(), 400}},
			{Name: "eu p95", Class: "s0 p95", Values: []float64{150, 300, 350, 380}},
		},
		Hover:   []string{"00:00", "01:00", "", "03:00"},
		YFormat: func(v float64) string { return fmt.Sprintf("%gms", v) },
		Label:   "latency",
		Empty:   "no data",
	}
}

func TestTimeChartPlacesValuesInTheirBuckets(t *testing.T) {
	t.Parallel()
	// Plot area: x 56..456 (400 wide, 100 per bucket), y 10..170 (160 high, room for four
	// ticks). Values 0..400 tick at 0, 100, ... 400, so a value v sits at y = 170 - 0.4v.
	root := parseSVG(t, sampleChart().SVG())
	series := withClass(root.all("g"), "series")
	if len(series) != 2 {
		t.Fatalf("%d series groups, want 2", len(series))
	}
	for _, tc := range []struct {
		i     int
		class string
		path  string
		dots  int
	}{
		// The gap in the third bucket breaks the p50 line; the fourth value is then alone.
		{0, "s0 p50", "M106 130L206 90", 1},
		{1, "s0 p95", "M106 110L206 50L306 30L406 18", 0},
	} {
		g := series[tc.i]
		if g.attrs["class"] != "series "+tc.class {
			t.Errorf("series %d class %q", tc.i, g.attrs["class"])
		}
		if p := g.all("path"); len(p) != 1 || p[0].attrs["d"] != tc.path {
			t.Errorf("series %d path %v, want %q", tc.i, p, tc.path)
		}
		if dots := g.all("circle"); len(dots) != tc.dots {
			t.Errorf("series %d: %d dots, want %d", tc.i, len(dots), tc.dots)
		} else if tc.dots == 1 && (dots[0].attrs["cx"] != "406" || dots[0].attrs["cy"] != "10") {
			t.Errorf("lone point at %v, want (406, 10)", dots[0].attrs)
		}
	}
	var yLabels []string
	for _, tx := range root.all("text") {
		if tx.attrs["text-anchor"] == "end" && strings.HasSuffix(tx.text, "ms") {
			yLabels = append(yLabels, tx.text)
		}
	}
	if strings.Join(yLabels, " ") != "0ms 100ms 200ms 300ms 400ms" {
		t.Errorf("value axis labels %v", yLabels)
	}
	hits := withClass(root.all("rect"), "hit")
	if len(hits) != 3 {
		t.Fatalf("%d hover columns, want 3 (the empty hover text gets none)", len(hits))
	}
	if hits[2].attrs["x"] != "356" || hits[2].attrs["width"] != "100" || hits[2].all("title")[0].text != "03:00" {
		t.Errorf("last hover column %v", hits[2].attrs)
	}
}

func TestTimeChartWithoutDataSaysSo(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		chart TimeChart
	}{
		{"no buckets", TimeChart{Width: 300, Height: 100, Empty: "no runs yet"}},
		{"only gaps", TimeChart{Width: 300, Height: 100, Empty: "no runs yet", X: []time.Time{time.Unix(0, 0)}, Step: time.Hour,
			Series: []Series{{Name: "a", Values: []float64{math.NaN()}}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			root := parseSVG(t, tc.chart.SVG())
			empty := withClass(root.all("text"), "empty")
			if len(empty) != 1 || empty[0].text != "no runs yet" {
				t.Errorf("no empty-state text: %v", root.all("text"))
			}
			for _, p := range root.all("path") {
				if p.attrs["d"] != "" {
					t.Errorf("drew a line without data: %v", p.attrs)
				}
			}
		})
	}
}

func TestTimeChartEscapesText(t *testing.T) {
	t.Parallel()
	c := sampleChart()
	c.Series[0].Name = `</title><script>x</script>`
	c.Hover[0] = `a < b & "c"`
	doc := c.SVG()
	if strings.Contains(doc, "<script>") {
		t.Fatalf("unescaped series name in %s", doc)
	}
	root := parseSVG(t, doc)
	if got := withClass(root.all("rect"), "hit")[0].all("title")[0].text; got != `a < b & "c"` {
		t.Errorf("hover text %q", got)
	}
}
