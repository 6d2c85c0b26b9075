package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"
)

// version is the release the binary was built as, stamped by the release build with
// `-ldflags "-X main.version=1.2.3"`; empty in every other build. It is written once, by the
// linker, and only read.
var version string

// buildVersion is the prober's version, the one every report's generator and the SARIF
// tool version carry: the stamped release, else the module version of a
// `go install …/cmd/prober@v1.2.3` build, else "dev" (with the VCS revision when the build
// recorded one) for a build of a checkout.
func buildVersion() string {
	info, ok := debug.ReadBuildInfo()
	return versionOf(version, info, ok)
}

// versionOf decides the version from what the linker stamped and what the build recorded.
func versionOf(stamped string, info *debug.BuildInfo, ok bool) string {
	if v := strings.TrimSpace(stamped); v != "" {
		return v
	}
	if !ok || info == nil {
		return "dev"
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	version, dirty := "dev", false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			if len(s.Value) >= 12 {
				version = "dev+" + s.Value[:12]
			}
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if dirty && version != "dev" {
		version += "-dirty"
	}
	return version
}

func runVersion(w io.Writer) int {
	fmt.Fprintf(w, "prober %s (%s, %s/%s)\n", buildVersion(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return exitOK
}
