package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/loadlab/loadlab/internal/origin/recipe"
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

// TestShippedRecipesPlayOffline: the recipes the README's quick tour and
// docs/origin.md use parse as origin_simulator recipes and fetch nothing
// (a recipe naming an origin URL would send a newcomer's first origin to
// the internet).
func TestShippedRecipesPlayOffline(t *testing.T) {
	files, err := filepath.Glob("../../examples/recipes/*.json")
	if err != nil || len(files) < 3 {
		t.Fatalf("examples/recipes: %v %v", files, err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rs, err := recipe.Parse(data)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		for _, r := range rs {
			if r.Origin != "" {
				t.Errorf("%s: route %q fetches %s", f, r.Route, r.Origin)
			}
		}
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range regexp.MustCompile(`examples/recipes/[\w.-]+\.json`).FindAllString(string(readme), -1) {
		if _, err := os.Stat("../../" + m); err != nil {
			t.Errorf("README.md names %s: %v", m, err)
		}
	}
}
