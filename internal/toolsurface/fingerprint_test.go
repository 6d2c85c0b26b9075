package toolsurface

import (
	"crypto/sha256"
	"encoding/json"
	"testing"
)

func TestFingerprintDataSurvivesAJSONRoundTrip(t *testing.T) {
	fp := FingerprintOf([]ToolDigest{sha256.Sum256([]byte("b")), sha256.Sum256([]byte("a"))})
	wire, err := json.Marshal(fp.Data(2))
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"count":2,"hash":"` + fp.String() + `"}`; string(wire) != want {
		t.Fatalf("on the wire %s, want %s", wire, want)
	}
	var stored map[string]any
	if err := json.Unmarshal(wire, &stored); err != nil {
		t.Fatal(err)
	}
	for _, data := range []map[string]any{fp.Data(2), stored} {
		got, n, err := FromData(data)
		if err != nil || got != fp || n != 2 {
			t.Errorf("FromData(%v) = %s, %d, %v; want %s, 2", data, got, n, err, fp)
		}
	}
}

func TestFingerprintIgnoresDigestOrderButCountsEveryTool(t *testing.T) {
	a, b := ToolDigest(sha256.Sum256([]byte("a"))), ToolDigest(sha256.Sum256([]byte("b")))
	if FingerprintOf([]ToolDigest{a, b}) != FingerprintOf([]ToolDigest{b, a}) {
		t.Error("the order of the tools changed the fingerprint")
	}
	if FingerprintOf([]ToolDigest{a, b}) == FingerprintOf([]ToolDigest{a, b, b}) {
		t.Error("a tool listed twice left the fingerprint unchanged")
	}
	if FingerprintOf(nil) == FingerprintOf([]ToolDigest{a}) {
		t.Error("an added tool left the fingerprint unchanged")
	}
}

func TestFromDataRefusesWhatDataDoesNotWrite(t *testing.T) {
	good := FingerprintOf(nil).String()
	tests := []map[string]any{
		nil,
		{"count": 1},
		{"hash": 7, "count": 1},
		{"hash": "sha256:9f86d081884c", "count": 1},
		{"hash": "md5:" + good[len("sha256:"):], "count": 1},
		{"hash": "sha256:" + string(make([]byte, 64)), "count": 1},
		{"hash": good},
		{"hash": good, "count": 1.5},
		{"hash": good, "count": "1"},
	}
	for _, data := range tests {
		if fp, n, err := FromData(data); err == nil {
			t.Errorf("FromData(%v) = %s, %d, want an error", data, fp, n)
		}
	}
	if _, err := ParseFingerprint(good); err != nil {
		t.Errorf("ParseFingerprint(%q): %v", good, err)
	}
}
