package summary

import (
	"path/filepath"
	"testing"
)

// A component's file is the run folder's own copy when the run kept it in
// its components/ (wherever that folder was: the path recorded is the
// folder's at the time), else the file the plan named (an older run's
// recipe), which the folder does not hold.
func TestKeptFile(t *testing.T) {
	for _, tc := range []struct{ file, want string }{
		{filepath.Join("/", "tmp", "run-001", "components", "proxy-step01.yaml"), "components/proxy-step01.yaml"},
		{filepath.Join("run", "components", "origin-recipe.json"), "components/origin-recipe.json"},
		{filepath.Join("/", "home", "me", "plans", "origin.json"), ""},
		{"origin.json", ""},
		{"", ""},
	} {
		if got := (ComponentRun{File: tc.file}).KeptFile(); got != tc.want {
			t.Errorf("KeptFile of %q = %q, want %q", tc.file, got, tc.want)
		}
	}
}
