package chart

import (
	"math"
	"strings"
	"testing"
)

func TestBarsDrawsOneLabelledBarPerItem(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name        string
		bars        []Bar
		wantHeights []string // of the visible rects
		wantClasses []string
	}{
		{name: "empty strip", bars: nil},
		{
			name:        "full, half and empty",
			bars:        []Bar{{Fill: 1, Class: "up", Label: "a"}, {Fill: 0.5, Class: "down", Label: "b"}, {Fill: 0, Class: "none", Label: "c"}},
			wantHeights: []string{"20", "10", "2"},
			wantClasses: []string{"up", "down", "none"},
		},
		{
			name:        "out of range fills are clamped, NaN is a stub",
			bars:        []Bar{{Fill: 7}, {Fill: -1}, {Fill: math.NaN()}},
			wantHeights: []string{"20", "2", "2"},
			wantClasses: []string{"", "", ""},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			doc := Bars{Width: 90, Height: 20, Gap: 1, Bars: tc.bars, Class: "uptime", Label: "uptime"}.SVG()
			root := parseSVG(t, doc)
			if root.attrs["viewBox"] != "0 0 90 20" || root.attrs["role"] != "list" || root.attrs["aria-label"] != "uptime" {
				t.Errorf("root attributes %v", root.attrs)
			}
			bars := root.all("rect")
			if len(bars) != len(tc.bars) {
				t.Fatalf("%d bars drawn, want %d", len(bars), len(tc.bars))
			}
			for i, bar := range bars {
				if bar.attrs["role"] != "listitem" {
					t.Errorf("bar %d: attributes %v, want a list item", i, bar.attrs)
				}
				if tc.bars[i].Label != "" {
					if titles := bar.all("title"); len(titles) != 1 || titles[0].text != tc.bars[i].Label {
						t.Errorf("bar %d: title %v, want %q", i, titles, tc.bars[i].Label)
					}
				}
				if bar.attrs["height"] != tc.wantHeights[i] || bar.attrs["class"] != tc.wantClasses[i] {
					t.Errorf("bar %d: height %s class %q, want %s %q", i, bar.attrs["height"], bar.attrs["class"], tc.wantHeights[i], tc.wantClasses[i])
				}
				// Bars stand on the baseline.
				if got := bar.attrs["y"]; num(20-parse(t, bar.attrs["height"])) != got {
					t.Errorf("bar %d: y %s does not put it on the baseline", i, got)
				}
			}
		})
	}
}

func TestBarsAreEvenlySpacedAcrossTheWidth(t *testing.T) {
	t.Parallel()
	bars := make([]Bar, 90)
	root := parseSVG(t, Bars{Width: 450, Height: 30, Gap: 1, Bars: bars}.SVG())
	rects := root.all("rect")
	if len(rects) != 90 {
		t.Fatalf("%d bars, want 90", len(rects))
	}
	// Slots of 5 units, each bar 4 wide in the middle of its slot.
	for i, r := range rects {
		if want := num(float64(i)*5 + 0.5); r.attrs["x"] != want || r.attrs["width"] != "4" {
			t.Errorf("bar %d at x=%s width %s, want x=%s width 4", i, r.attrs["x"], r.attrs["width"], want)
		}
	}
}

func TestBarsEscapeLabels(t *testing.T) {
	t.Parallel()
	hostile := `<script>alert("x")</script> & "quotes"`
	doc := Bars{Width: 10, Height: 10, Bars: []Bar{{Fill: 1, Class: `a" onload="x`, Label: hostile}}, Label: hostile}.SVG()
	if strings.Contains(doc, "<script>") || strings.Contains(doc, `onload="x"`) {
		t.Fatalf("unescaped text in %s", doc)
	}
	root := parseSVG(t, doc)
	if root.attrs["aria-label"] != hostile || root.all("title")[0].text != hostile {
		t.Errorf("label did not survive escaping: %v", root.attrs)
	}
}

func TestBarsStretchOnlyWhenAsked(t *testing.T) {
	t.Parallel()
	for _, stretch := range []bool{false, true} {
		root := parseSVG(t, Bars{Width: 10, Height: 10, Bars: []Bar{{Fill: 1}}, Stretch: stretch}.SVG())
		if got := root.attrs["preserveAspectRatio"] == "none"; got != stretch {
			t.Errorf("Stretch %v: preserveAspectRatio %q", stretch, root.attrs["preserveAspectRatio"])
		}
	}
}

func TestBarsDrawTheirShareOnTopInProportion(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		bar        Bar
		wantShare  string // height of the share rect, "" for none
		wantClass  string
		wantHeight string // of the bar beneath
	}{
		{name: "no share draws one rect", bar: Bar{Fill: 1, Class: "ok"}, wantHeight: "20"},
		{name: "a quarter of the bar", bar: Bar{Fill: 1, Class: "ok", Share: 0.25, ShareClass: "bad"}, wantShare: "5", wantClass: "share bad", wantHeight: "20"},
		{name: "one failure in a thousand is still seen", bar: Bar{Fill: 1, Class: "ok", Share: 0.001, ShareClass: "bad"}, wantShare: "3", wantClass: "share bad", wantHeight: "20"},
		{name: "a share above 1 is the whole bar", bar: Bar{Fill: 1, Share: 4, ShareClass: "bad"}, wantShare: "20", wantClass: "share bad", wantHeight: "20"},
		{name: "a NaN share draws none", bar: Bar{Fill: 1, Share: math.NaN(), ShareClass: "bad"}, wantHeight: "20"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			root := parseSVG(t, Bars{Width: 10, Height: 20, Bars: []Bar{tc.bar}}.SVG())
			rects := root.all("rect")
			want := 1
			if tc.wantShare != "" {
				want = 2
			}
			if len(rects) != want {
				t.Fatalf("%d rects, want %d", len(rects), want)
			}
			if rects[0].attrs["height"] != tc.wantHeight || rects[0].attrs["role"] != "listitem" {
				t.Errorf("bar: %v", rects[0].attrs)
			}
			if want == 2 {
				sh := rects[1]
				if sh.attrs["height"] != tc.wantShare || sh.attrs["class"] != tc.wantClass || sh.attrs["role"] != "" {
					t.Errorf("share: %v, want height %s class %q and no role", sh.attrs, tc.wantShare, tc.wantClass)
				}
				if sh.attrs["y"] != rects[0].attrs["y"] {
					t.Errorf("share at y=%s, bar at y=%s: the share is not on top", sh.attrs["y"], rects[0].attrs["y"])
				}
			}
		})
	}
}
