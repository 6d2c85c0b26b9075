package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
)

// version is the release version, set by the linker in release builds (.goreleaser.yaml, the
// Dockerfile): go build -ldflags "-X main.version=v1.2.3" ./cmd/prober. It is the one place a
// build names its version; nothing assigns it at run time. Empty in any other build.
var version string

// buildVersion is the version a release build was stamped with, else the module version of a
// `go install …@version` build, or "dev" with the VCS revision for a build from a checkout.
func buildVersion() string {
	if version != "" {
		return version
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
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
