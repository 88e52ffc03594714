package main

import (
	"runtime/debug"
	"testing"
)

// --version is the main module's version, "(devel)" from a checkout, then
// the VCS revision when the build recorded one.
func TestVersionOf(t *testing.T) {
	for _, tt := range []struct {
		bi   debug.BuildInfo
		want string
	}{
		{debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}, "v1.2.3"},
		{debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "(devel)"},
		{debug.BuildInfo{}, "(devel)"},
		{debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "ec168fa579dc0123456789abcdef0123456789ab"}, {Key: "vcs.modified", Value: "false"}}},
			"(devel) ec168fa579dc"},
		{debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "ec168fa579dc0123"}, {Key: "vcs.modified", Value: "true"}}},
			"(devel) ec168fa579dc+dirty"},
		{debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261201103500-ec168fa579dc"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "ec168fa579dc0123"}}},
			"v0.0.0-20261201103500-ec168fa579dc"},
	} {
		if got := versionOf(&tt.bi); got != tt.want {
			t.Errorf("versionOf(%+v) = %q, want %q", tt.bi, got, tt.want)
		}
	}
}
