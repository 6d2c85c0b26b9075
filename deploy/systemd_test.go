package deploy

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/internal/units"
)

// unitFile is a systemd unit: section, then key, then every value given to it in order
// (ExecStart= and the like may be given more than once).
type unitFile map[string]map[string][]string

// last is the value that counts for a key given once or overridden: the last one.
func (u unitFile) last(section, key string) string {
	v := u[section][key]
	if len(v) == 0 {
		return ""
	}
	return v[len(v)-1]
}

// loadUnit reads the subset of systemd's unit syntax deploy/mcpwatch.service uses: comments,
// [Section] headers and Key=Value lines. systemd-analyze verify, where it runs, judges the
// rest.
func loadUnit(t *testing.T, file string) unitFile {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	u := unitFile{}
	section := ""
	sc := bufio.NewScanner(bytes.NewReader(raw))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, ";"):
		case strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]"):
			section = strings.Trim(line, "[]")
			u[section] = map[string][]string{}
		case strings.HasSuffix(line, `\`):
			t.Fatalf("%s:%d: a continued line, which this test does not read: write it on one line", file, n)
		default:
			key, value, ok := strings.Cut(line, "=")
			if !ok || section == "" {
				t.Fatalf("%s:%d: %q: want Key=Value inside a [Section]", file, n, line)
			}
			key = strings.TrimSpace(key)
			u[section][key] = append(u[section][key], strings.TrimSpace(value))
		}
	}
	return u
}

func TestSystemdUnitRunsTheMonitorHardenedAsAUserOfItsOwn(t *testing.T) {
	u := loadUnit(t, deployFile(t, "mcpwatch.service"))
	argv := strings.Fields(u.last("Service", "ExecStart"))
	if len(argv) < 2 || !filepath.IsAbs(argv[0]) || filepath.Base(argv[0]) != "prober" {
		t.Fatalf("ExecStart %q: want the absolute path of prober, then run", argv)
	}
	// Under systemd the status page stays on the machine: a proxy with TLS shows it further.
	assertMonitorArgs(t, "mcpwatch.service ExecStart", argv[1:], "127.0.0.1:8080")
	if dir, ok := flagValue(argv, "--data-dir"); ok && !strings.HasPrefix(dir, stateDir+"/") {
		t.Errorf("--data-dir %q: want a folder of %s, the one directory the service may write", dir, stateDir)
	}

	want := []struct{ key, value, why string }{
		{"DynamicUser", "yes", "a user of its own, never root"},
		{"StateDirectory", filepath.Base(stateDir), "the spool's folder, made and owned for that user"},
		{"ProtectSystem", "strict", "the rest of the file system read-only"},
		{"ProtectHome", "yes", "no access to home directories"},
		{"NoNewPrivileges", "yes", "no setuid way back to privileges"},
		{"PrivateTmp", "yes", "a /tmp of its own"},
		{"CapabilityBoundingSet", "", "no capabilities at all"},
		{"Restart", "on-failure", "back after a crash"},
		{"RestartPreventExitStatus", "2", "a configuration error (exit 2) is not restarted in a loop"},
		{"ExecReload", "/bin/kill -HUP $MAINPID", "the monitor reloads its configuration on SIGHUP"},
		{"KillMode", "mixed", "SIGTERM to the monitor alone, which stops its stdio servers itself"},
	}
	for _, w := range want {
		vals, ok := u["Service"][w.key]
		if !ok || vals[len(vals)-1] != w.value {
			t.Errorf("[Service] %s=%q (set: %v), want %q: %s", w.key, u.last("Service", w.key), ok, w.value, w.why)
		}
	}
	if user := u.last("Service", "User"); user != "" {
		t.Errorf("User=%s beside DynamicUser: want the dynamic user alone", user)
	}
	envFiles := u["Service"]["EnvironmentFile"]
	if !slices.ContainsFunc(envFiles, func(f string) bool { return strings.HasPrefix(strings.TrimPrefix(f, "-"), "/etc/mcpwatch/") }) {
		t.Errorf("EnvironmentFile %q: want the secrets in a file of /etc/mcpwatch, out of the unit", envFiles)
	}
	if slices.ContainsFunc(u["Service"]["Environment"], func(e string) bool {
		return strings.Contains(e, "DATABASE_URL") || strings.Contains(e, "WEBHOOK") || strings.Contains(e, "TOKEN")
	}) {
		t.Errorf("Environment %q: secrets belong in the EnvironmentFile, which systemctl show does not print", u["Service"]["Environment"])
	}
	stop, err := units.ParseDuration(u.last("Service", "TimeoutStopSec"))
	if err != nil || stop <= 30*time.Second+5*time.Second {
		t.Errorf("TimeoutStopSec=%q: want more than the default shutdown-grace (30s) and the time to write what the monitor holds", u.last("Service", "TimeoutStopSec"))
	}
	if got := u.last("Install", "WantedBy"); got != "multi-user.target" {
		t.Errorf("[Install] WantedBy=%q: want multi-user.target, so that enable starts it at boot", got)
	}
}

// TestSystemdUnitPassesSystemdAnalyzeVerify runs systemd's own checker on the unit: unknown
// keys, values it cannot parse, a missing ExecReload program. systemd-analyze also wants the
// ExecStart program to exist; the unit names where the install steps put prober, so the copy
// it reads names this test's own executable there instead.
func TestSystemdUnitPassesSystemdAnalyzeVerify(t *testing.T) {
	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		msg := "no systemd-analyze (apt-get install systemd): the unit's syntax is not verified"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	unit := deployFile(t, "mcpwatch.service")
	raw, err := os.ReadFile(unit)
	if err != nil {
		t.Fatal(err)
	}
	argv := strings.Fields(loadUnit(t, unit).last("Service", "ExecStart"))
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	copied := filepath.Join(t.TempDir(), filepath.Base(unit))
	if err := os.WriteFile(copied, bytes.ReplaceAll(raw, []byte("ExecStart="+argv[0]+" "), []byte("ExecStart="+self+" ")), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(analyze, "verify", "--man=no", copied).CombinedOutput()
	// verify exits 0 on keys it ignores; a line of output is a complaint all the same.
	if err != nil || len(bytes.TrimSpace(out)) > 0 {
		t.Errorf("systemd-analyze verify %s: %v\n%s", unit, err, out)
	}

	// The exposure score of the hardening, where systemd-analyze can judge a unit file
	// offline (systemd 250 and later): 1.7 when written; above 2.5 something was dropped.
	sec, err := exec.Command(analyze, "security", "--offline=yes", "--threshold=25", "--no-pager", copied).CombinedOutput()
	switch {
	case err != nil && bytes.Contains(sec, []byte("unrecognized option")):
		t.Logf("systemd-analyze security --offline is not in this systemd: exposure not measured")
	case err != nil:
		t.Errorf("systemd-analyze security: %v: the unit's exposure is above 2.5\n%s", err, lastLines(sec, 3))
	}
}

func lastLines(b []byte, n int) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
