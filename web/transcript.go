package web

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcpwatch/mcpwatch/internal/textclip"
	"github.com/mcpwatch/mcpwatch/jsondoc"
	"github.com/mcpwatch/mcpwatch/report"
)

// frameView is one transcript frame on the run page.
type frameView struct {
	Seq      int
	Dir      string // out, in or note: the class
	Arrow    string
	DirLabel string
	At       string
	Conn     int
	Kind     string
	HTTP     string
	Timing   string
	Headers  []string
	SSE      string
	Note     string
	Detail   string
	Body     string
	BodyNote string
	// Long bodies start folded.
	Long bool
}

// Bounds of the transcript view: the probe bounds what it records, but a page that shows 16
// MiB of one frame helps nobody.
const (
	maxFrameShown     = 64 << 10
	maxPrettyJSON     = 256 << 10
	longFrameLines    = 30
	maxHeaderLineSize = 300
)

func framesOf(frames []report.Frame) []frameView {
	out := make([]frameView, 0, len(frames))
	for _, f := range frames {
		v := frameView{Seq: f.Seq, Conn: f.Conn, Kind: f.Kind, At: fmt.Sprintf("+%.3f s", f.AtMs/1000),
			Note: f.Note, Detail: f.Detail}
		switch {
		case f.Kind == "note":
			v.Dir, v.Arrow, v.DirLabel = "note", "·", "observed"
		case f.Dir == "out":
			v.Dir, v.Arrow, v.DirLabel = "out", "→", "sent"
		default:
			v.Dir, v.Arrow, v.DirLabel = "in", "←", "received"
		}
		if h := f.HTTP; h != nil {
			switch {
			case f.Dir == "out" && h.Method != "":
				v.HTTP = h.Method + " " + h.URL
			case h.Status != 0:
				v.HTTP = "HTTP " + strconv.Itoa(h.Status)
				if h.ContentType != "" {
					v.HTTP += " " + h.ContentType
				}
			}
			if t := h.Timing; t != nil {
				v.Timing = fmt.Sprintf("first byte %.1f ms, total %.1f ms", t.FirstByteMs, t.TotalMs)
				if !t.Reused && t.ConnectMs > 0 {
					v.Timing += fmt.Sprintf(" (connect %.1f ms", t.ConnectMs)
					if t.TLSMs > 0 {
						v.Timing += fmt.Sprintf(", TLS %.1f ms", t.TLSMs)
					}
					v.Timing += ")"
				}
			}
			names := make([]string, 0, len(h.Header))
			for k := range h.Header {
				names = append(names, k)
			}
			slices.Sort(names)
			for _, k := range names {
				v.Headers = append(v.Headers, textclip.Runes(k+": "+strings.Join(h.Header[k], ", "), maxHeaderLineSize))
			}
		}
		if s := f.SSE; s != nil {
			var parts []string
			if s.Event != "" {
				parts = append(parts, "event "+s.Event)
			}
			if s.ID != "" {
				parts = append(parts, "id "+s.ID)
			}
			if s.Retry != "" {
				parts = append(parts, "retry "+s.Retry)
			}
			if s.Malformed != "" {
				parts = append(parts, "malformed: "+s.Malformed)
			}
			v.SSE = "SSE " + strings.Join(parts, ", ")
		}
		v.Body, v.BodyNote = frameBody(f)
		v.Long = strings.Count(v.Body, "\n") > longFrameLines
		out = append(out, v)
	}
	return out
}

// frameBody renders a frame's bytes: JSON indented, text as it is, other bytes quoted, and
// says what the reader should know about them (size, cut, encoding).
func frameBody(f report.Frame) (body, note string) {
	raw := []byte(f.Raw)
	binary := false
	if f.RawEncoding == "base64" {
		if b, err := base64.StdEncoding.DecodeString(f.Raw); err == nil {
			raw, binary = b, true
		}
	}
	if len(raw) == 0 {
		if f.Kind == "message" {
			return "", "empty"
		}
		return "", ""
	}
	var notes []string
	notes = append(notes, plural(max(f.Size, len(raw)), "byte", "bytes"))
	if f.Truncated {
		notes = append(notes, "cut by the probe at its size limit")
	}
	switch {
	case binary || !utf8.Valid(raw):
		notes = append(notes, "not UTF-8, shown quoted")
		body = strconv.Quote(string(raw[:min(len(raw), maxFrameShown)]))
	case len(raw) <= maxPrettyJSON && jsondoc.Valid(raw):
		var pretty bytes.Buffer
		if json.Indent(&pretty, raw, "", "  ") == nil {
			body = pretty.String()
		} else {
			body = string(raw)
		}
	default:
		body = string(raw)
	}
	if len(body) > maxFrameShown {
		cut := maxFrameShown
		for cut > 0 && !utf8.RuneStart(body[cut]) {
			cut--
		}
		body = body[:cut]
		notes = append(notes, "first "+strconv.Itoa(maxFrameShown>>10)+" KiB shown")
	}
	return body, strings.Join(notes, ", ")
}
