package monitor

import (
	"errors"
	"maps"
	"path/filepath"
	"strings"
	"testing"
)

// An optional stdio server whose program this machine lacks is left out with a note; one
// whose program is there, and every server not optional, is probed as written.
func TestOptionalServersWhoseProgramIsMissingAreSkippedWithANote(t *testing.T) {
	t.Parallel()
	cfg, err := ParseConfig("fleet.yaml", []byte(`servers:
  - name: installed
    command: [go, run, ./server]
    optional: true
  - name: missing
    command: [npx, -y, some-server]
    optional: true
  - name: required
    command: [npx, -y, other-server]
  - name: off
    command: [npx, -y, third-server]
    optional: true
    enabled: false
`))
	if err != nil {
		t.Fatal(err)
	}
	lookPath := func(name string) (string, error) {
		if name == "go" {
			return "/usr/bin/go", nil
		}
		return "", errors.New(`exec: "` + name + `": executable file not found in $PATH`)
	}
	notes := cfg.SkipMissingCommands(lookPath)
	if len(notes) != 1 || !strings.Contains(notes[0], "server missing skipped: its program npx is not installed here") {
		t.Errorf("notes %q, want one for server missing", notes)
	}
	want := map[string]bool{"installed": true, "missing": false, "required": true, "off": false}
	for _, s := range cfg.Servers {
		if s.Enabled != want[s.Name] {
			t.Errorf("%s: enabled %v, want %v", s.Name, s.Enabled, want[s.Name])
		}
	}
}

func TestOptionalIsForStdioServersOnly(t *testing.T) {
	t.Parallel()
	_, err := ParseConfig("fleet.yaml", []byte("servers:\n  - name: s\n    url: http://127.0.0.1:1/mcp\n    optional: true\n"))
	if err == nil || !strings.Contains(err.Error(), "servers[0].optional: only a stdio server (one with a command) takes optional") {
		t.Errorf("%v, want optional refused on a url server", err)
	}
}

// The README's quick start fleet loads, and only its npx server may be left out.
func TestTheExampleFleetIsValidAndOnlyItsNpxServerIsOptional(t *testing.T) {
	t.Parallel()
	cfg, err := LoadConfig(filepath.Join("..", "examples", "fleet.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	optional := map[string]bool{}
	for _, s := range cfg.Servers {
		optional[s.Name] = s.Optional
	}
	if want := map[string]bool{"go-sdk-everything": false, "reference-everything": true}; !maps.Equal(optional, want) {
		t.Errorf("servers and whether optional: %v, want %v", optional, want)
	}
}
