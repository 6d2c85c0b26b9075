package deploy

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpwatch/mcpwatch/internal/testkit/dockerfile"
	"github.com/mcpwatch/mcpwatch/internal/testkit/modroot"
)

// monitorImage is what the tests read of deploy/Dockerfile.
type monitorImage struct {
	stages []dockerfile.Stage
	build  dockerfile.Stage // the first stage, which compiles
	final  dockerfile.Stage // the last, which `docker build` without --target gives
	cmd    []string         // the final stage's CMD
}

func loadMonitorImage(t *testing.T) monitorImage {
	t.Helper()
	stages := dockerfile.Load(t, deployFile(t, "Dockerfile"))
	if len(stages) < 2 {
		t.Fatalf("deploy/Dockerfile: %d stages, want a build stage and a final one", len(stages))
	}
	img := monitorImage{stages: stages, build: stages[0], final: stages[len(stages)-1]}
	cmds := img.final.Find("CMD")
	if len(cmds) != 1 {
		t.Fatalf("deploy/Dockerfile: the final stage has %d CMD, want one: `run` with its flags", len(cmds))
	}
	argv, ok := cmds[0].Exec()
	if !ok {
		t.Fatalf("deploy/Dockerfile:%d: CMD %s: want the exec form", cmds[0].Line, cmds[0].Args)
	}
	img.cmd = argv
	return img
}

// proberBuild is the stage's RUN that compiles ./cmd/prober.
func proberBuild(st dockerfile.Stage) string {
	for _, in := range st.Find("RUN") {
		if strings.Contains(in.Args, "go build") && strings.HasSuffix(in.Args, "./cmd/prober") {
			return in.Args
		}
	}
	return ""
}

// TestMonitorImageBuildsTheProberAsTheReleaseImageDoes: the release image's test
// (cmd/prober/release_test.go) checks the Go version, the static build and the version
// stamp of the root Dockerfile; the monitor's image is held to the same lines instead of
// being checked twice.
func TestMonitorImageBuildsTheProberAsTheReleaseImageDoes(t *testing.T) {
	img := loadMonitorImage(t)
	release := dockerfile.Load(t, filepath.Join(modroot.Of(t), "Dockerfile"))[0]
	if img.build.From != release.From {
		t.Errorf("build stage FROM %s, the release image's FROM %s: want the same Go", img.build.From, release.From)
	}
	got, want := proberBuild(img.build), proberBuild(release)
	if want == "" {
		t.Fatal("the root Dockerfile has no RUN … go build … ./cmd/prober")
	}
	if got != want {
		t.Errorf("the prober is built by\n  %s\nin deploy/Dockerfile, by\n  %s\nin the release image: want one recipe", got, want)
	}
	if !slices.ContainsFunc(img.build.Find("ARG"), func(in dockerfile.Instruction) bool {
		return strings.HasPrefix(in.Args, "VERSION")
	}) {
		t.Error("the build stage has no ARG VERSION: the monitor would print version dev")
	}
}

func TestMonitorImageRunsAsNonRootWithoutAShellAndKeepsItsSpool(t *testing.T) {
	img := loadMonitorImage(t)
	for _, st := range img.stages[1:] {
		if st.From != "scratch" && !strings.HasPrefix(st.From, "gcr.io/distroless/static") {
			t.Errorf("stage %s FROM %s: want scratch or distroless/static (no shell, no C library)", st.Name, st.From)
		}
		var user string
		for _, in := range st.Instructions {
			switch in.Keyword {
			case "RUN", "SHELL":
				t.Errorf("line %d: %s in stage %s, which has no shell to run it", in.Line, in.Keyword, st.Name)
			case "USER":
				user = in.Args
			case "ENTRYPOINT", "CMD":
				if _, ok := in.Exec(); !ok {
					t.Errorf("line %d: %s %s: want the exec form (a JSON array), not a shell command", in.Line, in.Keyword, in.Args)
				}
			}
		}
		if name, _, _ := strings.Cut(user, ":"); name == "" || name == "root" || name == "0" {
			t.Errorf("stage %s USER %q: want a non-root user", st.Name, user)
		}
	}

	final := img.final
	entry := final.Find("ENTRYPOINT")
	if argv, ok := lastExec(entry); !ok || !slices.Equal(argv, []string{"/prober"}) {
		t.Errorf("ENTRYPOINT %v: want [\"/prober\"], so that `docker run IMAGE migrate` reaches the other commands", argv)
	}
	assertMonitorArgs(t, "deploy/Dockerfile CMD", img.cmd, "0.0.0.0:8080")
	if !slices.ContainsFunc(final.Find("EXPOSE"), func(in dockerfile.Instruction) bool { return in.Args == "8080" }) {
		t.Error("the final stage does not EXPOSE 8080, the port of --listen")
	}

	// The spool's folder is a volume, and it belongs to the user the monitor runs as: a named
	// volume starts as a copy of the image's folder, owner included, and the monitor could
	// not write a root-owned one.
	var volumes []string
	for _, in := range final.Find("VOLUME") {
		var v []string
		if err := json.Unmarshal([]byte(in.Args), &v); err != nil {
			v = strings.Fields(in.Args)
		}
		volumes = append(volumes, v...)
	}
	if !slices.Contains(volumes, stateDir) {
		t.Errorf("VOLUME %v: want %s, where the spool is kept", volumes, stateDir)
	}
	user := final.Find("USER")
	owned := slices.ContainsFunc(final.Find("COPY"), func(in dockerfile.Instruction) bool {
		f := strings.Fields(in.Args)
		// Into the folder itself, or into its parent with the folder as a copied entry.
		dest := strings.TrimSuffix(f[len(f)-1], "/")
		return len(user) == 1 && slices.Contains(f, "--chown="+user[0].Args) && (dest == stateDir || dest == filepath.Dir(stateDir))
	})
	if !owned {
		t.Errorf("nothing makes %s the monitor's user's (COPY --chown=USER … %s): the spool could not be written", stateDir, filepath.Dir(stateDir))
	}
}

// lastExec is the argv of the last of the instructions, the one that counts.
func lastExec(ins []dockerfile.Instruction) ([]string, bool) {
	if len(ins) == 0 {
		return nil, false
	}
	return ins[len(ins)-1].Exec()
}
