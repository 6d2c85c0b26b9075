package main

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/mcpwatch/mcpwatch/internal/testkit/dockerfile"
	"github.com/mcpwatch/mcpwatch/internal/testkit/modroot"
)

// The release files (the Dockerfile and .goreleaser.yaml at the module root) build this
// command; these tests hold them to what the README, docs/release.md and the GitHub Action
// rely on.

func TestDockerfileBuildsStaticAndRunsAsNonRootWithoutAShell(t *testing.T) {
	stages := dockerfile.Load(t, filepath.Join(modroot.Of(t), "Dockerfile"))
	if len(stages) < 2 {
		t.Fatalf("%d stages: want a build stage and a final one", len(stages))
	}
	build, final := stages[0], stages[len(stages)-1]
	if !strings.HasPrefix(build.From, "golang:") || build.Name == "" {
		t.Errorf("build stage FROM %s AS %q: want the Go image, named", build.From, build.Name)
	}
	if build.From != "golang:"+goLine(t)+"-bookworm" {
		t.Errorf("build stage FROM %s: want the Go of go.mod (%s)", build.From, goLine(t))
	}
	if !slices.ContainsFunc(build.Instructions, func(in dockerfile.Instruction) bool {
		return in.Keyword == "RUN" && strings.Contains(in.Args, "CGO_ENABLED=0 go build") && strings.HasSuffix(in.Args, "./cmd/prober")
	}) {
		t.Error("the build stage has no RUN CGO_ENABLED=0 go build … ./cmd/prober")
	}

	if final.From != "scratch" && !strings.HasPrefix(final.From, "gcr.io/distroless/static") {
		t.Errorf("final stage FROM %s: want scratch or distroless/static (no shell, no C library)", final.From)
	}
	var user string
	copied := false
	for _, in := range final.Instructions {
		switch in.Keyword {
		case "RUN", "SHELL":
			t.Errorf("line %d: %s in the final stage, which has no shell to run it", in.Line, in.Keyword)
		case "USER":
			user = in.Args
		case "COPY":
			copied = copied || strings.HasPrefix(in.Args, "--from="+build.Name+" ")
		case "ENTRYPOINT", "CMD":
			if _, ok := in.Exec(); !ok {
				t.Errorf("line %d: %s %s: want the exec form (a JSON array), not a shell command", in.Line, in.Keyword, in.Args)
			}
		}
	}
	if name, _, _ := strings.Cut(user, ":"); name == "" || name == "root" || name == "0" {
		t.Errorf("final stage USER %q: want a non-root user", user)
	}
	if !copied {
		t.Errorf("the final stage copies nothing from the build stage %q", build.Name)
	}
}

// goLine is go.mod's go version as major.minor, the tag of the Go image.
func goLine(t *testing.T) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(modroot.Of(t), "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(raw)) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "go "); ok {
			parts := strings.Split(v, ".")
			return strings.Join(parts[:min(2, len(parts))], ".")
		}
	}
	t.Fatal("go.mod has no go line")
	return ""
}

// goreleaserConfig is the part of .goreleaser.yaml the Action and the docs rely on.
type goreleaserConfig struct {
	Version int `yaml:"version"`
	Builds  []struct {
		ID      string   `yaml:"id"`
		Main    string   `yaml:"main"`
		Binary  string   `yaml:"binary"`
		Env     []string `yaml:"env"`
		Flags   []string `yaml:"flags"`
		Ldflags []string `yaml:"ldflags"`
		Goos    []string `yaml:"goos"`
		Goarch  []string `yaml:"goarch"`
	} `yaml:"builds"`
	Archives []struct {
		Formats      []string `yaml:"formats"`
		NameTemplate string   `yaml:"name_template"`
	} `yaml:"archives"`
	Checksum struct {
		NameTemplate string `yaml:"name_template"`
		Algorithm    string `yaml:"algorithm"`
	} `yaml:"checksum"`
}

func loadGoreleaser(t *testing.T) goreleaserConfig {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(modroot.Of(t), ".goreleaser.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var c goreleaserConfig
	if err := yaml.Unmarshal(raw, &c); err != nil {
		t.Fatalf(".goreleaser.yaml: %v", err)
	}
	return c
}

func TestGoreleaserBuildsTheStaticMatrixTheActionDownloads(t *testing.T) {
	c := loadGoreleaser(t)
	if c.Version != 2 {
		t.Errorf("version %d: the file is written for GoReleaser v2", c.Version)
	}
	if len(c.Builds) != 1 {
		t.Fatalf("%d builds: want the prober's alone", len(c.Builds))
	}
	b := c.Builds[0]
	if b.Main != "./cmd/prober" || b.Binary != "prober" {
		t.Errorf("build main %q binary %q: want ./cmd/prober as prober", b.Main, b.Binary)
	}
	if !slices.Contains(b.Env, "CGO_ENABLED=0") || !slices.Contains(b.Flags, "-trimpath") {
		t.Errorf("env %v flags %v: want a static (CGO_ENABLED=0), -trimpath build", b.Env, b.Flags)
	}
	var targets []string
	for _, goos := range b.Goos {
		for _, arch := range b.Goarch {
			targets = append(targets, goos+"/"+arch)
		}
	}
	want := []string{"darwin/amd64", "darwin/arm64", "linux/amd64", "linux/arm64", "windows/amd64", "windows/arm64"}
	slices.Sort(targets)
	if !slices.Equal(targets, want) {
		t.Errorf("targets %v, want %v", targets, want)
	}
	if len(c.Archives) != 1 || !slices.Equal(c.Archives[0].Formats, []string{"tar.gz"}) ||
		c.Archives[0].NameTemplate != "mcpwatch_{{ .Version }}_{{ .Os }}_{{ .Arch }}" {
		t.Errorf("archives %+v: want one tar.gz named mcpwatch_<version>_<os>_<arch>", c.Archives)
	}
	if c.Checksum.NameTemplate != "checksums.txt" || c.Checksum.Algorithm != "sha256" {
		t.Errorf("checksum %+v: want sha256 in checksums.txt", c.Checksum)
	}
}

// TestReleaseBuildsPrintTheVersionTheyAreStampedWith builds the prober as each release file
// does, with its own linker flags, and runs `prober version`: a -X of a misspelt variable
// would be ignored without a word by the linker.
func TestReleaseBuildsPrintTheVersionTheyAreStampedWith(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the prober twice")
	}
	_ = version // the variable the release files stamp
	root := modroot.Of(t)
	c := loadGoreleaser(t)
	goreleaserLdflags := strings.ReplaceAll(strings.Join(c.Builds[0].Ldflags, " "), "{{ .Version }}", "9.8.7")

	var dockerBuild string
	for _, st := range dockerfile.Load(t, filepath.Join(root, "Dockerfile")) {
		for _, in := range st.Instructions {
			if in.Keyword == "RUN" && strings.Contains(in.Args, "go build") {
				dockerBuild = in.Args
			}
		}
	}
	out := t.TempDir()
	builds := []struct {
		name, script, want string
		env                []string
	}{
		{".goreleaser.yaml", `CGO_ENABLED=0 go build -trimpath -ldflags "$LDFLAGS" -o /out/prober ./cmd/prober`, "prober v9.8.7 ", []string{"LDFLAGS=" + goreleaserLdflags}},
		// The Dockerfile's own command, run as written with its output moved to a temporary folder.
		{"Dockerfile", dockerBuild, "prober v1.2.3-docker ", []string{"VERSION=v1.2.3-docker"}},
	}
	for _, b := range builds {
		t.Run(b.name, func(t *testing.T) {
			dir := filepath.Join(out, strings.TrimPrefix(b.name, "."))
			bin := filepath.Join(dir, "prober")
			script := strings.ReplaceAll(b.script, "/out/prober", bin)
			cmd := exec.Command("sh", "-c", script)
			cmd.Dir = root
			cmd.Env = append(os.Environ(), b.env...)
			if msg, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("%s: %v\n%s", script, err, msg)
			}
			got, err := exec.Command(bin, "version").Output()
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(string(got), b.want) {
				t.Errorf("prober version printed %q, want it to start %q", got, b.want)
			}
			if runtime.GOOS == "linux" {
				assertStatic(t, bin)
			}
		})
	}
}

// assertStatic fails unless bin is an ELF file without a dynamic loader (PT_INTERP) or shared
// libraries: it runs on any Linux and in an image with nothing else.
func assertStatic(t *testing.T, bin string) {
	t.Helper()
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Errorf("%s asks for a dynamic loader: not a static build", bin)
		}
	}
	if libs, _ := f.ImportedLibraries(); len(libs) > 0 {
		t.Errorf("%s needs shared libraries %v", bin, libs)
	}
}
