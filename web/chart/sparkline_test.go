package chart

import (
	"math"
	"testing"
)

func TestSparklineDrawsValuesWithGaps(t *testing.T) {
	t.Parallel()
	nan := math.NaN()
	for _, tc := range []struct {
		name      string
		values    []float64
		zero      bool
		wantPath  string
		wantDots  int
		wantLast  bool
		wantEmpty bool
	}{
		{name: "no values", values: nil, wantEmpty: true},
		{name: "only gaps", values: []float64{nan, nan}, wantEmpty: true},
		// Width 104, height 24, padding 2: x from 2 to 102, y from 2 (max) to 22 (min).
		{name: "rising line", values: []float64{0, 5, 10}, wantPath: "M2 22L52 12L102 2", wantLast: true},
		{name: "flat line sits in the middle", values: []float64{3, 3}, wantPath: "M2 12L102 12", wantLast: true},
		{name: "zero based", values: []float64{5, 10}, zero: true, wantPath: "M2 12L102 2", wantLast: true},
		{name: "not zero based stretches", values: []float64{5, 10}, wantPath: "M2 22L102 2", wantLast: true},
		{name: "gap splits the path", values: []float64{0, 10, nan, 10, 0}, wantPath: "M2 22L27 2M77 2L102 22", wantLast: true},
		{name: "lone point becomes a dot", values: []float64{0, nan, 10, nan, 5, 5}, wantPath: "M82 12L102 12", wantDots: 2, wantLast: true},
		// A server probed for the first time this hour: one value in 24, at the right edge.
		{name: "a single value is drawn", values: []float64{nan, nan, nan, 7}, zero: true, wantDots: 1, wantLast: true},
		{name: "a single value alone", values: []float64{7}, wantDots: 1, wantLast: true},
		{name: "missing newest value has no end marker", values: []float64{1, 2, nan}, wantPath: "M2 22L52 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			root := parseSVG(t, Sparkline{Width: 104, Height: 24, Values: tc.values, ZeroBased: tc.zero, Label: "latency"}.SVG())
			paths := root.all("path")
			if tc.wantEmpty {
				if len(paths) != 0 || len(root.all("circle")) != 0 {
					t.Fatalf("drew marks for no data: %v", root.children)
				}
				return
			}
			got := ""
			if len(paths) == 1 {
				got = paths[0].attrs["d"]
			}
			if got != tc.wantPath {
				t.Errorf("path %q, want %q", got, tc.wantPath)
			}
			if dots := withClass(root.all("circle"), "dot"); len(dots) != tc.wantDots {
				t.Errorf("%d lone dots, want %d", len(dots), tc.wantDots)
			}
			if last := withClass(root.all("circle"), "last"); (len(last) == 1) != tc.wantLast {
				t.Errorf("end marker drawn: %v, want %v", len(last) == 1, tc.wantLast)
			}
			if root.attrs["role"] != "img" || root.attrs["aria-label"] != "latency" {
				t.Errorf("root attributes %v", root.attrs)
			}
		})
	}
}

func TestChartsAreDeterministic(t *testing.T) {
	t.Parallel()
	values := []float64{1.1, 2.7, math.NaN(), 3.14159, 0.5}
	spark := Sparkline{Width: 120, Height: 30, Values: values}
	if a, b := spark.SVG(), spark.SVG(); a != b {
		t.Errorf("sparkline differs between two drawings:\n%s\n%s", a, b)
	}
	chart := sampleChart()
	if a, b := chart.SVG(), chart.SVG(); a != b {
		t.Errorf("time chart differs between two drawings")
	}
}
