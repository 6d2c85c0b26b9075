package web

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/mcpwatch/mcpwatch/report"
)

func TestFrameBodyShowsBytesReadably(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		frame    report.Frame
		body     string
		noteHas  []string
		bodyHas  string
		bodySize int
	}{
		{name: "JSON is indented", frame: report.Frame{Kind: "message", Raw: `{"a":1,"b":[2]}`, Size: 15},
			body: "{\n  \"a\": 1,\n  \"b\": [\n    2\n  ]\n}", noteHas: []string{"15 bytes"}},
		{name: "text that is not JSON stays as it is", frame: report.Frame{Kind: "message", Raw: "hello {", Size: 7},
			body: "hello {", noteHas: []string{"7 bytes"}},
		{name: "bytes that are not UTF-8 are quoted", frame: report.Frame{Kind: "message", Raw: base64.StdEncoding.EncodeToString([]byte{'a', 0xff, '\n'}), RawEncoding: "base64", Size: 3},
			body: `"a\xff\n"`, noteHas: []string{"not UTF-8"}},
		{name: "an empty message says so", frame: report.Frame{Kind: "message"}, noteHas: []string{"empty"}},
		{name: "a frame the probe cut says so", frame: report.Frame{Kind: "message", Raw: "{", Size: 1, Truncated: true},
			body: "{", noteHas: []string{"cut by the probe"}},
		{name: "a huge frame is cut for the page", frame: report.Frame{Kind: "message", Raw: strings.Repeat("é", maxFrameShown), Size: 2 * maxFrameShown},
			noteHas: []string{"first 64 KiB shown"}, bodySize: maxFrameShown},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			body, note := frameBody(tc.frame)
			if tc.bodySize > 0 {
				if len(body) > tc.bodySize || len(body) < tc.bodySize-4 || !strings.HasPrefix(body, "é") || strings.ContainsRune(body, '\uFFFD') {
					t.Errorf("body of %d bytes, want about %d cut at a character", len(body), tc.bodySize)
				}
			} else if body != tc.body {
				t.Errorf("body %q, want %q", body, tc.body)
			}
			for _, want := range tc.noteHas {
				if !strings.Contains(note, want) {
					t.Errorf("note %q lacks %q", note, want)
				}
			}
		})
	}
}

func TestFramesOfNamesDirectionsAndHTTP(t *testing.T) {
	t.Parallel()
	frames := framesOf([]report.Frame{
		{Seq: 0, Conn: 1, Dir: "out", Kind: "message", AtMs: 1.5, Raw: `{}`, HTTP: &report.HTTP{Method: "POST", URL: "http://127.0.0.1/mcp",
			Header: map[string][]string{"Authorization": {"[redacted]"}, "Accept": {"application/json", "text/event-stream"}}}},
		{Seq: 1, Conn: 1, Dir: "in", Kind: "http-response", AtMs: 20, HTTP: &report.HTTP{Status: 503, ContentType: "text/html",
			Timing: &report.HTTPTiming{FirstByteMs: 12.25, TotalMs: 14, ConnectMs: 1}}},
		{Seq: 2, Conn: 2, Dir: "in", Kind: "note", Note: "timeout", Detail: "no answer within 10s"},
	})
	if len(frames) != 3 {
		t.Fatalf("%d frames", len(frames))
	}
	out, in, note := frames[0], frames[1], frames[2]
	if out.Dir != "out" || out.Arrow != "→" || out.HTTP != "POST http://127.0.0.1/mcp" || out.At != "+0.002 s" {
		t.Errorf("request frame %+v", out)
	}
	if strings.Join(out.Headers, "|") != "Accept: application/json, text/event-stream|Authorization: [redacted]" {
		t.Errorf("headers %q, want sorted with values joined", out.Headers)
	}
	if in.Dir != "in" || in.HTTP != "HTTP 503 text/html" || !strings.Contains(in.Timing, "first byte 12.2 ms") || !strings.Contains(in.Timing, "connect 1.0 ms") {
		t.Errorf("response frame %+v", in)
	}
	if note.Dir != "note" || note.Arrow != "·" || note.Note != "timeout" || note.Detail != "no answer within 10s" {
		t.Errorf("note frame %+v", note)
	}
}
