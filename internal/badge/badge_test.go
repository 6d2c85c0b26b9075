package badge

import (
	"encoding/binary"
	"encoding/xml"
	"errors"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

func TestTextWidthGrowsWithTheText(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ short, long string }{
		{"up", "degraded"}, {"i", "m"}, {"1", "100%"}, {"ab", "ab\u4e2d"},
	} {
		if TextWidth(tc.short) >= TextWidth(tc.long) {
			t.Errorf("TextWidth(%q) = %v >= TextWidth(%q) = %v", tc.short, TextWidth(tc.short), tc.long, TextWidth(tc.long))
		}
	}
	// "mcp" in DejaVu Sans at 11px: (1995 + 1126 + 1300) / 2048 * 11.
	if got, want := TextWidth("mcp"), 4421.0*11/2048; got != want {
		t.Errorf("TextWidth(mcp) = %v, want %v", got, want)
	}
}

var svgNumbers = regexp.MustCompile(`<svg[^>]* width="([0-9.]+)"`)

func TestSVGFitsItsTextAndEscapesIt(t *testing.T) {
	t.Parallel()
	for _, b := range []Badge{
		{Label: "mcp", Message: "up", Color: ColorGreen},
		{Label: "uptime 30d", Message: "99.95%", Color: ColorYellow},
		{Label: `<script>alert("x")</script>`, Message: "a & b", Color: `red" onload="x`},
		{Label: strings.Repeat("W", 500), Message: "\x00bad\xffutf8\n", Color: ColorRed},
	} {
		svg := string(b.SVG())
		if err := xml.Unmarshal([]byte(svg), new(struct{})); err != nil {
			t.Errorf("%q: not XML: %v\n%s", b.Label, err, svg)
		}
		if strings.Contains(svg, "<script") || strings.Contains(svg, "onload") {
			t.Errorf("%q: unescaped text in %s", b.Label, svg)
		}
		m := svgNumbers.FindStringSubmatch(svg)
		if m == nil {
			t.Fatalf("no width in %s", svg)
		}
		total, _ := strconv.ParseFloat(m[1], 64)
		label, msg := clipText(b.Label), clipText(b.Message)
		if min := TextWidth(label) + TextWidth(msg) + 4*padding; total < min || total > min+2 {
			t.Errorf("%q: width %v, text needs %v", b.Label, total, min)
		}
	}
}

// The width table is DejaVu Sans itself: checked against the font file where one is
// installed.
func TestWidthsMatchTheDejaVuSansFont(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")
	if errors.Is(err, os.ErrNotExist) {
		t.Skip("DejaVu Sans is not installed (Debian: fonts-dejavu-core)")
	}
	if err != nil {
		t.Fatal(err)
	}
	advances, err := fontAdvances(data)
	if err != nil {
		t.Fatal(err)
	}
	for r := rune(0x20); r <= 0x7e; r++ {
		if got, want := advance(r), advances[r]; got != want {
			t.Errorf("advance(%q) = %d, the font says %d", r, got, want)
		}
	}
}

// fontAdvances reads the advance widths of the printable ASCII characters from a TrueType
// font: cmap (format 4) maps characters to glyphs, hmtx gives each glyph its advance.
func fontAdvances(f []byte) (map[rune]int, error) {
	u16 := func(o int) int { return int(binary.BigEndian.Uint16(f[o:])) }
	u32 := func(o int) int { return int(binary.BigEndian.Uint32(f[o:])) }
	tables := map[string]int{}
	for i := range u16(4) {
		rec := 12 + 16*i
		tables[string(f[rec:rec+4])] = u32(rec + 8)
	}
	if u16(tables["head"]+18) != unitsPerEm {
		return nil, errors.New("unexpected units per em")
	}
	nMetrics := u16(tables["hhea"] + 34)
	cmap, sub := tables["cmap"], -1
	for i := range u16(cmap + 2) {
		rec := cmap + 4 + 8*i
		if u16(rec) == 3 && u16(rec+2) == 1 {
			sub = cmap + u32(rec+4)
		}
	}
	if sub < 0 || u16(sub) != 4 {
		return nil, errors.New("no format 4 Unicode cmap")
	}
	segs := u16(sub+6) / 2
	ends, starts := sub+14, sub+16+2*segs
	deltas, offsets := starts+2*segs, starts+4*segs
	glyph := func(c int) int {
		for i := range segs {
			if c < u16(starts+2*i) || c > u16(ends+2*i) {
				continue
			}
			delta := int(int16(u16(deltas + 2*i)))
			if ro := u16(offsets + 2*i); ro != 0 {
				g := u16(offsets + 2*i + ro + 2*(c-u16(starts+2*i)))
				if g == 0 {
					return 0
				}
				return (g + delta) & 0xffff
			}
			return (c + delta) & 0xffff
		}
		return 0
	}
	out := map[rune]int{}
	for c := 0x20; c <= 0x7e; c++ {
		g := min(glyph(c), nMetrics-1)
		out[rune(c)] = u16(tables["hmtx"] + 4*g)
	}
	return out, nil
}
