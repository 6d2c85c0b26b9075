package report

import (
	"encoding/base64"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// transcript prints every frame, one line each (plus one for HTTP headers).
func (t *textWriter) transcript() {
	if len(t.r.Transcript) == 0 {
		return
	}
	t.section(fmt.Sprintf("Transcript (%s; → sent by the probe, ← received, · observed)",
		plural(len(t.r.Transcript), "frame", "frames")))
	for _, f := range t.r.Transcript {
		t.line("  %s", t.frameLine(f, verboseRawWidth))
		if f.HTTP != nil && len(f.HTTP.Header) > 0 {
			t.line("  %s", t.p.dim(pad("", 22)+clip(headerLine(f.HTTP.Header), verboseRawWidth)))
		}
	}
}

// frameLine renders one frame: number, direction, time, connection and content.
func (t *textWriter) frameLine(f Frame, width int) string {
	arrow := "·"
	switch {
	case f.Kind == "note":
	case f.Dir == "out":
		arrow = t.p.cyan("→")
	case f.Dir == "in":
		arrow = "←"
	}
	at := fmt.Sprintf("+%.3fs", f.AtMs/1000)
	prefix := fmt.Sprintf("%s %s %s %s ", padLeft("#"+strconv.Itoa(f.Seq), 5), arrow,
		t.p.dim(padLeft(at, 8)), t.p.dim("c"+strconv.Itoa(f.Conn)))
	return prefix + t.frameContent(f, width)
}

// frameHead is what a frame line shows before the frame's bytes (HTTP method or status, SSE
// event, note), without colour.
func frameHead(f Frame) string {
	var tags []string
	if h := f.HTTP; h != nil {
		switch {
		case f.Dir == "out" && h.Method != "":
			tags = append(tags, h.Method+" "+clip(h.URL, 60))
		case h.Status != 0:
			tags = append(tags, fmt.Sprintf("HTTP %d %s", h.Status, clip(h.ContentType, 40)))
		}
	}
	if s := f.SSE; s != nil {
		ev := "sse"
		if s.Event != "" {
			ev += " event=" + clip(s.Event, 30)
		}
		if s.ID != "" {
			ev += " id=" + clip(s.ID, 30)
		}
		if s.Retry != "" {
			ev += " retry=" + clip(s.Retry, 12)
		}
		if s.Malformed != "" {
			ev += " malformed: " + clip(s.Malformed, 80)
		}
		tags = append(tags, ev)
	}
	if f.Kind == "note" {
		tags = append(tags, "note "+f.Note)
	}
	return strings.TrimSpace(strings.Join(tags, " "))
}

// citedFrame writes a frame that evidence points at within the report's width: on one line
// when at least citedMinBytes of its bytes fit beside its head, else the head on one line and
// the bytes under it, clipped to the width (bytes have no spaces to wrap at).
func (t *textWriter) citedFrame(indent string, f Frame) {
	const prefix, size = 22, 14 // "   #12 →  +0.003s c6 ", " (12345 bytes)"
	const citedMinBytes = 40
	room := t.width - utf8.RuneCountInString(indent) - prefix - size
	head := frameHead(f)
	if head == "" || room-utf8.RuneCountInString(head)-1 >= citedMinBytes {
		t.line("%s%s", indent, t.frameLine(f, max(room-utf8.RuneCountInString(head)-1, citedMinBytes)))
		return
	}
	headOnly, bytesOnly := f, f
	headOnly.Raw, headOnly.RawEncoding, headOnly.Detail, headOnly.Clipped, headOnly.Truncated = "", "", "", false, false
	if headOnly.Kind == "message" {
		headOnly.Kind = "head" // no "(empty)" for the bytes shown below
	}
	bytesOnly.HTTP, bytesOnly.SSE = nil, nil
	t.line("%s%s", indent, t.frameLine(headOnly, max(room, citedMinBytes)))
	t.line("%s%s", indent+frameHeaderIndent, t.frameContent(bytesOnly, max(room+prefix-len(frameHeaderIndent), 24)))
}

func (t *textWriter) frameContent(f Frame, width int) string {
	head := frameHead(f)
	if head != "" {
		head = t.p.dim(head) + " "
	}
	body := ""
	switch {
	case f.Kind == "note" || f.Raw == "" && f.Detail != "":
		body = clip(f.Detail, width)
	case f.RawEncoding == "base64":
		raw, err := base64.StdEncoding.DecodeString(f.Raw)
		if err != nil {
			raw = []byte(f.Raw)
		}
		// strconv.Quote escapes the bytes that are not UTF-8 so they can be read.
		body = clip(strconv.Quote(string(raw)), width) + " " + t.p.yellow("(not UTF-8)")
	case f.Raw != "":
		body = clip(f.Raw, width)
	case f.Kind == "message":
		body = t.p.dim("(empty)")
	}
	shown := len(f.Raw)
	if f.RawEncoding == "base64" {
		shown = base64.StdEncoding.DecodedLen(len(f.Raw))
	}
	switch {
	case f.Truncated:
		body += " " + t.p.yellow(fmt.Sprintf("(cut by the probe at %d bytes)", f.Size))
	case f.Clipped || len([]rune(printable(f.Raw))) > width:
		body += " " + t.p.dim(fmt.Sprintf("(%d bytes)", max(f.Size, shown)))
	}
	if body == "" {
		return strings.TrimSuffix(head, " ")
	}
	return head + body
}

// headerLine renders HTTP headers on one line, sorted by name.
func headerLine(h map[string][]string) string {
	names := make([]string, 0, len(h))
	for k := range h {
		names = append(names, k)
	}
	slices.Sort(names)
	parts := make([]string, 0, len(names))
	for _, k := range names {
		parts = append(parts, k+": "+strings.Join(h[k], ", "))
	}
	return strings.Join(parts, " · ")
}
