package main

import (
	"runtime/debug"
	"testing"
)

func TestVersionPrefersTheStampedReleaseThenTheModuleVersionThenDev(t *testing.T) {
	rev := []debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef0123"}}
	dirty := append(rev, debug.BuildSetting{Key: "vcs.modified", Value: "true"})
	tests := []struct {
		name    string
		stamped string
		info    *debug.BuildInfo
		ok      bool
		want    string
	}{
		{"stamped by the release build", "1.4.0", &debug.BuildInfo{Main: debug.Module{Version: "v1.3.0"}}, true, "1.4.0"},
		{"stamped with spaces", " 1.4.0\n", nil, false, "1.4.0"},
		{"go install of a published version", "", &debug.BuildInfo{Main: debug.Module{Version: "v1.3.0"}}, true, "v1.3.0"},
		{"checkout with a VCS revision", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: rev}, true, "dev+0123456789ab"},
		{"checkout with local changes", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: dirty}, true, "dev+0123456789ab-dirty"},
		{"checkout without VCS information", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, true, "dev"},
		{"no build information", "", nil, false, "dev"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := versionOf(tt.stamped, tt.info, tt.ok); got != tt.want {
				t.Errorf("versionOf = %q, want %q", got, tt.want)
			}
		})
	}
}
