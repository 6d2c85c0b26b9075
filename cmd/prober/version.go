package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
)

// buildVersion is the module version of a `go install …@version` build, or "dev" with the
// VCS revision for a build from a checkout.
func buildVersion() string {
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
