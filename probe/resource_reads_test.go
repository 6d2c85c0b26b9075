package probe

import (
	"encoding/json"
	"slices"
	"testing"
)

func TestResourcesToReadTakesTheFirstOfEachFamily(t *testing.T) {
	big := float64(MaxResourceReadBytes + 1)
	small := float64(10)
	listed := []listedResource{
		{URI: "file:///big.txt", MIMEType: "text/plain", Size: &big},
		{URI: "file:///a.md", MIMEType: "text/markdown"},
		{URI: "file:///b.txt", MIMEType: "text/plain"},
		{URI: "file:///p.png", MIMEType: "image/png", Size: &small},
		{URI: "file:///c.json", MIMEType: "application/json; charset=utf-8"},
		{URI: "file:///d.bin", MIMEType: "application/octet-stream"},
		{URI: "file:///e"},
		{URI: "file:///f.geojson", MIMEType: "application/geo+json"},
	}
	var got []string
	for _, r := range resourcesToRead(listed) {
		got = append(got, r.URI)
	}
	want := []string{"file:///a.md", "file:///p.png", "file:///c.json", "file:///d.bin"}
	if !slices.Equal(got, want) {
		t.Errorf("read %v, want %v", got, want)
	}
	if n := len(resourcesToRead(nil)); n != 0 {
		t.Errorf("%d reads of nothing", n)
	}
}

func TestDeclaresSubscribe(t *testing.T) {
	for init, want := range map[string]bool{
		`{"capabilities":{"resources":{"subscribe":true}}}`:   true,
		`{"capabilities":{"resources":{"subscribe":false}}}`:  false,
		`{"capabilities":{"resources":{"subscribe":"true"}}}`: false,
		`{"capabilities":{"resources":{}}}`:                   false,
		`{"capabilities":{"tools":{}}}`:                       false,
		`{"capabilities":{"resources":null}}`:                 false,
	} {
		if got := declaresSubscribe(json.RawMessage(init)); got != want {
			t.Errorf("%s: %v, want %v", init, got, want)
		}
	}
}
