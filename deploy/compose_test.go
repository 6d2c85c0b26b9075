package deploy

import (
	"bytes"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/mcpwatch/mcpwatch/internal/testkit/dockerfile"
	"github.com/mcpwatch/mcpwatch/internal/units"
	"github.com/mcpwatch/mcpwatch/monitor"
)

// composeFile is the part of the Compose specification deploy/compose.yaml uses. It is read
// with unknown keys refused, so a misspelt key (depends-on, healthcheck.intervall), which
// Compose would reject, fails here first.
type composeFile struct {
	Name     string                    `yaml:"name"`
	Services map[string]composeService `yaml:"services"`
	Volumes  map[string]*struct{}      `yaml:"volumes"`
}

type composeService struct {
	Image string `yaml:"image"`
	Build *struct {
		Context    string            `yaml:"context"`
		Dockerfile string            `yaml:"dockerfile"`
		Target     string            `yaml:"target"`
		Args       map[string]string `yaml:"args"`
	} `yaml:"build"`
	Restart     string            `yaml:"restart"`
	Command     []string          `yaml:"command"`
	Environment map[string]string `yaml:"environment"`
	EnvFile     []struct {
		Path     string `yaml:"path"`
		Required *bool  `yaml:"required"`
	} `yaml:"env_file"`
	Ports       []string `yaml:"ports"`
	Volumes     []string `yaml:"volumes"`
	Healthcheck *struct {
		Test        []string `yaml:"test"`
		Interval    string   `yaml:"interval"`
		Timeout     string   `yaml:"timeout"`
		Retries     int      `yaml:"retries"`
		StartPeriod string   `yaml:"start_period"`
	} `yaml:"healthcheck"`
	DependsOn map[string]struct {
		Condition string `yaml:"condition"`
	} `yaml:"depends_on"`
	StopGracePeriod string `yaml:"stop_grace_period"`
}

func loadCompose(t *testing.T) composeFile {
	t.Helper()
	raw, err := os.ReadFile(deployFile(t, "compose.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var c composeFile
	dec := yaml.NewDecoder(bytes.NewReader(raw))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil {
		t.Fatalf("deploy/compose.yaml: %v", err)
	}
	return c
}

// volumeMount is one short-syntax volume of a service: SOURCE:TARGET[:MODE].
type volumeMount struct{ source, target, mode string }

func mounts(t *testing.T, service string, s composeService) []volumeMount {
	t.Helper()
	var out []volumeMount
	for _, v := range s.Volumes {
		parts := strings.Split(v, ":")
		if len(parts) < 2 || len(parts) > 3 {
			t.Fatalf("%s volume %q: want SOURCE:TARGET[:MODE]", service, v)
		}
		m := volumeMount{source: parts[0], target: parts[1]}
		if len(parts) == 3 {
			m.mode = parts[2]
		}
		out = append(out, m)
	}
	return out
}

// pinnedTag: an image tag that names a release, major.minor at least (postgres:17.6 or
// postgres:17.6-bookworm), not latest or a bare major that moves under the volume.
var pinnedTag = regexp.MustCompile(`^[a-z0-9./-]+:\d+\.\d+(\.\d+)?(-[a-z0-9]+)?$`)

func TestComposeDatabaseIsPinnedHealthcheckedKeptAndUnpublished(t *testing.T) {
	c := loadCompose(t)
	pg, ok := c.Services["postgres"]
	if !ok {
		t.Fatal("compose.yaml has no postgres service")
	}
	if !pinnedTag.MatchString(pg.Image) {
		t.Errorf("postgres image %q: want a pinned release tag such as postgres:17.6", pg.Image)
	}
	if pg.Healthcheck == nil || len(pg.Healthcheck.Test) < 2 || pg.Healthcheck.Test[0] != "CMD" || pg.Healthcheck.Test[1] != "pg_isready" {
		t.Errorf("postgres healthcheck %+v: want [CMD, pg_isready, …], what the monitor's depends_on waits for", pg.Healthcheck)
	} else if !slices.Contains(pg.Healthcheck.Test, pg.Environment["POSTGRES_USER"]) {
		t.Errorf("healthcheck %q does not ask as POSTGRES_USER %q (pg_isready would log failed logins as root)", pg.Healthcheck.Test, pg.Environment["POSTGRES_USER"])
	}
	data := slices.ContainsFunc(mounts(t, "postgres", pg), func(m volumeMount) bool {
		_, named := c.Volumes[m.source]
		return named && m.target == "/var/lib/postgresql/data"
	})
	if !data {
		t.Error("postgres keeps /var/lib/postgresql/data in no named volume: the runs would go with the container")
	}
	if len(pg.Ports) > 0 {
		t.Errorf("postgres publishes %v: only the monitor needs it, on the compose network", pg.Ports)
	}
	for _, key := range []string{"POSTGRES_USER", "POSTGRES_DB", "POSTGRES_PASSWORD"} {
		if pg.Environment[key] == "" {
			t.Errorf("postgres sets no %s", key)
		}
	}
}

func TestComposeMonitorWaitsForTheDatabaseAndListensOnLoopbackOnly(t *testing.T) {
	c := loadCompose(t)
	mon, ok := c.Services["monitor"]
	if !ok {
		t.Fatal("compose.yaml has no monitor service")
	}
	if dep := mon.DependsOn["postgres"]; dep.Condition != "service_healthy" {
		t.Errorf("monitor depends_on postgres %+v: want condition service_healthy", dep)
	}
	img := loadMonitorImage(t)
	// One command, written in both files so that each reads on its own; they must not drift.
	if !slices.Equal(mon.Command, img.cmd) {
		t.Errorf("monitor command %q, the image's CMD %q: want the same", mon.Command, img.cmd)
	}
	assertMonitorArgs(t, "compose.yaml monitor command", mon.Command, "0.0.0.0:8080")
	if len(mon.Ports) == 0 {
		t.Error("the monitor publishes no port: the status page would be out of reach")
	}
	for _, p := range mon.Ports {
		if parts := strings.Split(p, ":"); len(parts) != 3 || parts[0] != "127.0.0.1" || parts[2] != "8080" {
			t.Errorf("monitor port %q: want 127.0.0.1:HOSTPORT:8080, the status page on the host's loopback alone", p)
		}
	}
	if mon.Restart == "" || mon.Restart == "no" {
		t.Errorf("monitor restart %q: want it back after a crash or a reboot", mon.Restart)
	}

	// The database URL comes from the environment and names the compose database.
	pg := c.Services["postgres"]
	raw := mon.Environment["MCPWATCH_DATABASE_URL"]
	// The password is the same ${VARIABLE:-default} text in both services, which Compose
	// replaces; as written it is no valid userinfo, so it is matched before the URL is parsed.
	const password = "PASSWORD-OF-THE-POSTGRES-SERVICE"
	u, err := url.Parse(strings.Replace(raw, ":"+pg.Environment["POSTGRES_PASSWORD"]+"@", ":"+password+"@", 1))
	if err != nil || u.Scheme != "postgres" {
		t.Fatalf("MCPWATCH_DATABASE_URL %q: want a postgres:// URL: %v", raw, err)
	}
	pass, _ := u.User.Password()
	if u.Hostname() != "postgres" || u.User.Username() != pg.Environment["POSTGRES_USER"] ||
		strings.TrimPrefix(u.Path, "/") != pg.Environment["POSTGRES_DB"] || pass != password {
		t.Errorf("MCPWATCH_DATABASE_URL %q: want user, password and database of the postgres service (%s, %s, %s) at host postgres",
			raw, pg.Environment["POSTGRES_USER"], pg.Environment["POSTGRES_PASSWORD"], pg.Environment["POSTGRES_DB"])
	}
}

func TestComposeMonitorMountsItsConfigurationAndKeepsItsSpool(t *testing.T) {
	c := loadCompose(t)
	mon := c.Services["monitor"]
	var config, spool *volumeMount
	for _, m := range mounts(t, "monitor", mon) {
		switch m.target {
		case configPath:
			config = &m
		case stateDir:
			spool = &m
		}
	}
	if config == nil {
		t.Fatalf("monitor volumes %v: nothing mounted at %s, the --config of its command", mon.Volumes, configPath)
	}
	if config.mode != "ro" {
		t.Errorf("the configuration is mounted %q: want ro, the monitor never writes it", config.mode)
	}
	host := filepath.Join(filepath.Dir(deployFile(t, "compose.yaml")), config.source)
	if _, err := monitor.LoadConfig(host); err != nil {
		t.Errorf("the mounted configuration %s: %v", config.source, err)
	}
	if spool == nil {
		t.Errorf("monitor volumes %v: nothing at %s: the spool would go with the container", mon.Volumes, stateDir)
	} else if _, named := c.Volumes[spool.source]; !named {
		t.Errorf("%s is mounted from %q, not a named volume of the file", stateDir, spool.source)
	}

	// Compose's SIGKILL must not cut short the monitor's own graceful stop.
	cfg, err := monitor.LoadConfig(host)
	if err != nil {
		t.Fatal(err)
	}
	grace, err := units.ParseDuration(mon.StopGracePeriod)
	if err != nil || grace <= cfg.ShutdownGrace+5*time.Second {
		t.Errorf("monitor stop_grace_period %q: want more than shutdown-grace (%s) and the time to write what it holds", mon.StopGracePeriod, cfg.ShutdownGrace)
	}
}

func TestComposeBuildsEveryImageFromDeployDockerfile(t *testing.T) {
	c := loadCompose(t)
	stages := loadMonitorImage(t).stages
	for name, s := range c.Services {
		if s.Build == nil {
			continue
		}
		file := filepath.Join(filepath.Dir(deployFile(t, "compose.yaml")), s.Build.Context, s.Build.Dockerfile)
		if file != deployFile(t, "Dockerfile") {
			t.Errorf("service %s builds %s: want deploy/Dockerfile from the module root", name, file)
			continue
		}
		if s.Build.Target != "" && !slices.ContainsFunc(stages, func(st dockerfile.Stage) bool { return st.Name == s.Build.Target }) {
			t.Errorf("service %s: target %q is no stage of deploy/Dockerfile", name, s.Build.Target)
		}
		if s.Image == "" {
			t.Errorf("service %s: no image name: each `up --build` would leave an unnamed image behind", name)
		}
	}
	for _, s := range c.Services {
		for dep := range s.DependsOn {
			if _, ok := c.Services[dep]; !ok {
				t.Errorf("depends_on %s: no such service", dep)
			}
		}
	}
}

// TestComposeConfigValidates runs Compose's own validation when the machine has Compose (it
// needs no Docker daemon): what the struct above does not model (interpolation, the long
// syntax of env_file) is Compose's to judge.
func TestComposeConfigValidates(t *testing.T) {
	if _, err := exec.LookPath("docker"); err != nil {
		t.Skip("no docker command: `docker compose config` not run (the YAML checks above still ran)")
	}
	if out, err := exec.Command("docker", "compose", "version").CombinedOutput(); err != nil {
		t.Skipf("docker without the compose plugin (`docker compose version`: %v, %s): `docker compose config` not run", err, firstLine(out))
	}
	cmd := exec.Command("docker", "compose", "-f", deployFile(t, "compose.yaml"), "config", "--quiet")
	cmd.Env = append(os.Environ(), "MCPWATCH_DB_PASSWORD=test")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("docker compose config: %v\n%s", err, out)
	}
}

func firstLine(b []byte) string {
	line, _, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
	return line
}
