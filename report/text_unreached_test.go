package report

import (
	"strings"
	"testing"

	"github.com/mcpwatch/mcpwatch/checks"
	"github.com/mcpwatch/mcpwatch/probe"
)

// A probe that never heard from the server: the same reason for every untested check, said
// once unless --verbose asks for the list.
func TestTextCollapsesTheUntestedAndSkippedListsOfAnUnreachedServer(t *testing.T) {
	unreached := &probe.Result{
		Target: "http://127.0.0.1:1/mcp", Transport: "http", Err: "initialize failed: connection refused",
		Frames: []probe.Frame{{Seq: 0, Conn: 1, Dir: probe.Out, Kind: probe.KindMessage, Raw: []byte(`{}`)}},
	}
	heard := &probe.Result{Target: unreached.Target, Transport: "http", Err: unreached.Err,
		Frames: append(unreached.Frames, probe.Frame{Seq: 1, Conn: 1, Dir: probe.In, Kind: probe.KindHTTPResponse})}
	findings := []checks.Finding{
		{ID: "lifecycle.ping", Area: "lifecycle", Status: checks.StatusUntested, Message: "ping was not sent"},
		{ID: "tools.list", Area: "tools", Status: checks.StatusUntested, Message: "no initialize result"},
		{ID: "stdio.spawn", Area: "stdio", Status: checks.StatusSkip, Message: "applies to the stdio transport only"},
	}
	tests := []struct {
		name      string
		res       *probe.Result
		verbose   bool
		want      []string
		unwanted  []string
		unreached bool
	}{
		{name: "unreached", res: unreached, unreached: true,
			want:     []string{"Untested (2", "  all 2: nothing came back from the server (initialize failed: connection refused); --verbose lists them", "Skipped (1)", "  1 checks that do not apply"},
			unwanted: []string{"ping was not sent", "applies to the stdio transport only"}},
		{name: "unreached, verbose", res: unreached, verbose: true, unreached: true,
			want:     []string{"lifecycle.ping", "ping was not sent", "tools.list", "applies to the stdio transport only"},
			unwanted: []string{"all 2:"}},
		{name: "an answer came", res: heard,
			want:     []string{"ping was not sent", "no initialize result", "applies to the stdio transport only"},
			unwanted: []string{"all 2:", "nothing came back"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Build(tt.res, findings, BuildOptions{Verbose: tt.verbose})
			if r.Unreached != tt.unreached {
				t.Errorf("Unreached = %v, want %v", r.Unreached, tt.unreached)
			}
			out := renderText(t, r, TextOptions{Verbose: tt.verbose})
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("missing %q:\n%s", w, out)
				}
			}
			for _, u := range tt.unwanted {
				if strings.Contains(out, u) {
					t.Errorf("unexpected %q:\n%s", u, out)
				}
			}
		})
	}
}
