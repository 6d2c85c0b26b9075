package report

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

func (t *textWriter) steps() {
	if len(t.r.Steps) == 0 {
		return
	}
	t.section("Steps")
	type row struct{ conn, method, latency, outcome, code, outcomeRaw string }
	rows := []row{{conn: "conn", method: "method", latency: "latency", outcome: "outcome", code: "code/status"}}
	for _, s := range t.r.Steps {
		method := clip(s.Method, 50)
		if s.Name != s.Method && s.Name != "" {
			method += " (" + s.Name + ")"
		}
		if s.Page > 1 {
			method += " page " + strconv.Itoa(s.Page)
		}
		latency := "-"
		if s.LatencyMs != nil {
			latency = humanMillis(*s.LatencyMs)
		}
		rows = append(rows, row{
			conn: strconv.Itoa(s.Conn), method: method, latency: latency,
			outcome: s.Outcome, outcomeRaw: s.Outcome, code: stepCode(s),
		})
	}
	widths := [3]int{}
	for _, r := range rows {
		widths[0] = max(widths[0], len([]rune(r.method)))
		widths[1] = max(widths[1], len([]rune(r.latency)))
		widths[2] = max(widths[2], len([]rune(r.outcome)))
	}
	for i, r := range rows {
		outcome := pad(r.outcome, widths[2])
		switch r.outcomeRaw {
		case "ok", "sent":
		case "error":
			outcome = t.p.yellow(outcome)
		default:
			if i > 0 {
				outcome = t.p.red(outcome)
			}
		}
		text := fmt.Sprintf("  %s  %s  %s  %s  %s", pad(r.conn, 4), pad(r.method, widths[0]),
			padLeft(r.latency, widths[1]), outcome, r.code)
		if i == 0 {
			text = t.p.dim(text)
		}
		t.line("%s", strings.TrimRight(text, " "))
	}
}

// stepCode is what came back, exactly: the JSON-RPC error code, the HTTP status, the reason.
func stepCode(s Step) string {
	var parts []string
	switch {
	case s.ErrorCode != nil:
		parts = append(parts, strconv.FormatInt(*s.ErrorCode, 10))
	case s.ErrorCodeRaw != "":
		parts = append(parts, "code "+clip(s.ErrorCodeRaw, 40))
	}
	if s.HTTPStatus != 0 {
		parts = append(parts, "HTTP "+strconv.Itoa(s.HTTPStatus))
	}
	if s.Error != "" && s.Outcome != "ok" {
		parts = append(parts, clip(s.Error, 80))
	}
	return strings.Join(parts, " · ")
}

// stderr shows what a failing stdio server said on stderr: often the reason it failed.
func (t *textWriter) stderr() {
	if !t.r.Failed() {
		return
	}
	var shown []string
	for _, p := range t.r.Processes {
		if p.StderrTail == "" || slices.Contains(shown, p.StderrTail) {
			continue
		}
		shown = append(shown, p.StderrTail)
		lines := strings.Split(strings.TrimRight(p.StderrTail, "\n"), "\n")
		title := fmt.Sprintf("Stderr of the server (conn %d", p.Conn)
		if len(lines) > stderrLines {
			title += fmt.Sprintf(", last %d of %d lines", stderrLines, len(lines))
			lines = lines[len(lines)-stderrLines:]
		}
		if p.StderrDropped > 0 {
			title += fmt.Sprintf(", %d earlier bytes not kept", p.StderrDropped)
		}
		t.section(title + ")")
		for _, l := range lines {
			t.line("  %s %s", t.p.dim("│"), clip(strings.TrimSuffix(l, "\r"), stderrWidth))
		}
	}
}
