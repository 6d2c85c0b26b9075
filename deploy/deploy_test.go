// Package deploy holds no Go code: its tests hold the deployment files beside them (the
// monitor's Dockerfile, compose.yaml, the systemd unit, the sample configuration) to what
// docs/deploy.md promises, in a machine without Docker or systemd running.
package deploy

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpwatch/mcpwatch/internal/testkit/modroot"
	"github.com/mcpwatch/mcpwatch/monitor"
)

// Where the monitor finds its files, in the image as under systemd.
const (
	configPath = "/etc/mcpwatch/mcpwatch.yaml"
	stateDir   = "/var/lib/mcpwatch"
)

// deployFile is the path of a file of this folder, from the module root.
func deployFile(t *testing.T, name string) string {
	t.Helper()
	return filepath.Join(modroot.Of(t), "deploy", name)
}

// flagValue is the value of a `--name value` or `--name=value` flag in argv, and whether it
// is there.
func flagValue(argv []string, name string) (string, bool) {
	for i, a := range argv {
		if v, ok := strings.CutPrefix(a, name+"="); ok {
			return v, true
		}
		if a == name && i+1 < len(argv) {
			return argv[i+1], true
		}
	}
	return "", false
}

// assertMonitorArgs holds the arguments of a `prober run` (the image's, compose's, the
// unit's) to the rules they share: the configuration where it is mounted or installed, the
// status page on listen, the spool in the state directory. where names the file for messages.
func assertMonitorArgs(t *testing.T, where string, argv []string, listen string) {
	t.Helper()
	if len(argv) == 0 || argv[0] != "run" {
		t.Errorf("%s: %q: want `run` and its flags", where, argv)
		return
	}
	want := map[string]string{"--config": configPath, "--listen": listen}
	for name, v := range want {
		if got, ok := flagValue(argv, name); got != v {
			t.Errorf("%s: %s %q (given: %v), want %q", where, name, got, ok, v)
		}
	}
	if spool, _ := flagValue(argv, "--spool-dir"); !strings.HasPrefix(spool, stateDir+"/") {
		t.Errorf("%s: --spool-dir %q: want a folder of %s, the state that is kept", where, spool, stateDir)
	}
}

func TestSampleConfigurationLoadsAndProbesOnlyTheComposeFileServers(t *testing.T) {
	cfg, err := monitor.LoadConfig(deployFile(t, "mcpwatch.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	services := loadCompose(t).Services
	if len(cfg.Servers) == 0 {
		t.Fatal("the sample configuration has no server: the first status page would be empty")
	}
	for _, s := range cfg.Servers {
		if len(s.Command) > 0 {
			// The monitor's image holds the prober alone: a command would not be found.
			t.Errorf("server %s: a stdio command %q, which the monitor's image does not hold", s.Name, s.Command)
			continue
		}
		host := strings.TrimPrefix(strings.TrimPrefix(s.URL, "http://"), "https://")
		host, _, _ = strings.Cut(host, "/")
		host, _, _ = strings.Cut(host, ":")
		if _, ok := services[host]; !ok {
			t.Errorf("server %s: %s is not a service of compose.yaml: the sample would probe something a trial does not start", s.Name, s.URL)
		}
	}
	if missing := cfg.MissingEnv(func(string) (string, bool) { return "", false }); len(missing) > 0 {
		t.Errorf("the sample needs variables %v: its probes would fail in a trial without secrets", missing)
	}
	if !slices.ContainsFunc(cfg.Servers, func(s monitor.ServerConfig) bool { return s.Enabled }) {
		t.Error("no server of the sample is enabled")
	}
}
