package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestExamplePlansCheck keeps every example plan valid: each
// examples/*/plan.yaml must pass `loadlab run -check` (its files found,
// its variables and variants resolved), so an example cannot rot unseen
// between the long runs recorded in its EXPECTED.md.
func TestExamplePlansCheck(t *testing.T) {
	plans, err := filepath.Glob("../../examples/*/plan.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(plans) < 8 {
		t.Fatalf("found %d example plans, want at least 8: %v", len(plans), plans)
	}
	for _, plan := range plans {
		t.Run(filepath.Base(filepath.Dir(plan)), func(t *testing.T) {
			code, stdout, stderr := runCLI(t, nil, "run", "-check", plan)
			if code != 0 {
				t.Fatalf("run -check %s: exit %d\n%s%s", plan, code, stdout, stderr)
			}
			if !strings.Contains(stdout, " is valid: ") || !strings.Contains(stdout, "step 1: ") {
				t.Errorf("run -check %s: no step list in\n%s", plan, stdout)
			}
		})
	}
}
